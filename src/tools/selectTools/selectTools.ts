import { z } from 'zod';

export const SelectToolsInputSchema = z.object({
  names: z
    .array(z.string().min(1))
    .min(1)
    .describe('Exact names of tools from the announced list (<tools_added>) to load, e.g. ["mcp__github__create_issue"].'),
});
export type SelectToolsInput = z.infer<typeof SelectToolsInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const SELECT_TOOLS_SAMPLES: readonly SelectToolsInput[] = [{ names: ['mcp__github__create_issue'] }, { names: ['a', 'b'] }];
