import { z } from 'zod';

export interface BashInput {
  readonly command: string;
  readonly cwd?: string;
  readonly timeout?: number;
  readonly description?: string;
  readonly run_in_background?: boolean;
}

/** The input schema; the timeout limits come from config, so it is built per limit pair. */
export function createBashInputSchema(limits: { defaultTimeoutS: number; maxTimeoutS: number }) {
  return z.object({
    command: z
      .string()
      .min(1)
      .describe(
        'The command line, run with `bash -c` (not a login shell; stdin is closed, so nothing can prompt for input). ' +
          'Chain dependent steps with `&&`. Do not use it to read, search or edit files: use Read, Grep, Glob, Edit and Write.',
      ),
    cwd: z
      .string()
      .optional()
      .describe(
        'Directory to run in: absolute, or relative to the working directory, and inside the workspace (default: the working directory). ' +
          'Prefer this to `cd dir && …`. Each call starts a fresh shell, so a `cd` does not carry over to the next call.',
      ),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(limits.maxTimeoutS)
      .optional()
      .describe(
        `Seconds before the command and everything it started are stopped (default ${limits.defaultTimeoutS}, at most ${limits.maxTimeoutS}; ` +
          `larger values are rejected). For longer work use run_in_background.`,
      ),
    description: z
      .string()
      .max(200)
      .optional()
      .describe('What the command does, in 5-10 words ("Run the unit tests"). Shown to the user and in TaskList.'),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        'Start the command as a background task and return its task_id at once, for servers, watchers and long builds. ' +
          'Follow it with TaskOutput, WaitFor and TaskStop. `timeout` then applies only if given.',
      ),
  });
}

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const BASH_SAMPLES: readonly BashInput[] = [
  { command: 'npm test' },
  { command: 'ls -la src && git status', cwd: 'src', timeout: 10, description: 'List files' },
  { command: 'cat ../outside.txt /etc/hostname ~/x', cwd: '.' },
  { command: 'sleep 5', run_in_background: true, description: 'Sleep' },
];
