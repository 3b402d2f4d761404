import { SAMPLE_TASK_ID } from '../taskFormat';
import { z } from 'zod';

export interface WaitForInput {
  readonly task_ids?: readonly string[];
  readonly mode?: 'all' | 'any';
  readonly timeout?: number;
}

/** The input schema; the timeout limits come from config. */
export function createWaitForInputSchema(limits: { defaultTimeoutS: number; maxTimeoutS: number }) {
  return z.object({
    task_ids: z
      .array(z.string().min(1))
      .min(1)
      .max(50)
      .optional()
      .describe('The tasks to wait for (default: every task running when the call starts).'),
    mode: z
      .enum(['all', 'any'])
      .optional()
      .describe('`all` (default): return when every task has ended; `any`: return as soon as one has ended.'),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(limits.maxTimeoutS)
      .optional()
      .describe(`Seconds to wait at most (default ${limits.defaultTimeoutS}, at most ${limits.maxTimeoutS}). Reaching it is not an error; the tasks keep running.`),
  });
}

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const WAIT_FOR_SAMPLES: readonly WaitForInput[] = [{}, { task_ids: [SAMPLE_TASK_ID], mode: 'any', timeout: 5 }];
