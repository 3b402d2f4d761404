import { z } from 'zod';

export const TaskListInputSchema = z.object({
  active_only: z.boolean().optional().describe('List only running tasks (default false: running tasks first, then finished ones, newest first).'),
  limit: z.number().int().min(1).max(100).optional().describe('At most this many tasks (default 20).'),
});

export type TaskListInput = z.infer<typeof TaskListInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const TASK_LIST_SAMPLES: readonly TaskListInput[] = [{}, { active_only: true, limit: 5 }];
