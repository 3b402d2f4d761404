import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const TasksConfigSchema = z.strictObject({
  maxRunning: z.number().int().min(1).default(8).describe('At most this many background tasks run at once per agent.'),
  outputChars: z
    .number()
    .int()
    .min(1_000)
    .max(45_000)
    .default(30_000)
    .describe('Characters of output one TaskOutput result shows at most.'),
  waitDefaultTimeoutS: z.number().int().min(1).default(60).describe('WaitFor timeout when the call gives none, in seconds.'),
  waitMaxTimeoutS: z.number().int().min(1).max(86_400).default(600).describe('The largest WaitFor timeout, in seconds.'),
});

export const tasksConfig = defineConfigSection('tasks', TasksConfigSchema.prefault({}));
export type TasksConfig = z.output<typeof TasksConfigSchema>;
