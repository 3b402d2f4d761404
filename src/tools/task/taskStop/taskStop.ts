import { z } from 'zod';

export const TaskStopInputSchema = z.object({
  task_id: z.string().min(1).describe('The task to stop (TaskList lists them).'),
  reason: z.string().max(200).optional().describe('Why it is stopped, recorded with the task (default "Stopped with TaskStop").'),
});

export type TaskStopInput = z.infer<typeof TaskStopInputSchema>;
