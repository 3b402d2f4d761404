/** Where the CLI reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** An error the CLI reports as a usage error (exit code 2) with its message only. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env };
}
