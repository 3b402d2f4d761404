import { SAMPLE_TASK_ID } from '../taskFormat';
import { z } from 'zod';

export const TaskOutputInputSchema = z.object({
  task_id: z.string().min(1).describe('The task_id returned by Bash with run_in_background (TaskList lists them).'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Read from this byte offset of the output on (0 = the start). Pass the next_offset of a previous result to get only what is new. Not together with tail_lines.'),
  tail_lines: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('Return only the last N lines. Without offset or tail_lines you get the latest output that fits in one result.'),
});

export type TaskOutputInput = z.infer<typeof TaskOutputInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const TASK_OUTPUT_SAMPLES: readonly TaskOutputInput[] = [{ task_id: SAMPLE_TASK_ID }, { task_id: SAMPLE_TASK_ID, offset: 0 }, { task_id: SAMPLE_TASK_ID, tail_lines: 10 }];
