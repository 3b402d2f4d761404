import { z } from 'zod';

export const SelectToolsInputSchema = z.object({
  names: z
    .array(z.string().min(1))
    .min(1)
    .describe('Exact names of tools from the announced list (<tools_added>) to load, e.g. ["mcp__github__create_issue"].'),
});
export type SelectToolsInput = z.infer<typeof SelectToolsInputSchema>;
