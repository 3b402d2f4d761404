/** Where the CLI reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Aborts on Ctrl-C (set by the real process; absent in tests). */
  readonly interrupt?: AbortSignal;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** An error the CLI reports as a usage error (exit code 2) with its message only. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The real process. The first Ctrl-C aborts the running batch; a second one exits at once. */
export function processIo(): CliIo {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\nAborting… (press Ctrl-C again to quit now)\n');
    controller.abort();
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env, interrupt: controller.signal };
}
