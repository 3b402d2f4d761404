import { SAMPLE_TASK_ID } from '../taskFormat';
import { z } from 'zod';

export const TaskStopInputSchema = z.object({
  task_id: z.string().min(1).describe('The task to stop (TaskList lists them).'),
  reason: z.string().max(200).optional().describe('Why it is stopped, recorded with the task (default "Stopped with TaskStop").'),
});

export type TaskStopInput = z.infer<typeof TaskStopInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const TASK_STOP_SAMPLES: readonly TaskStopInput[] = [{ task_id: SAMPLE_TASK_ID }, { task_id: SAMPLE_TASK_ID, reason: 'no longer needed' }];
