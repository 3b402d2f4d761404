import * as os from 'node:os';

/**
 * The library modules of the running toolhost, by the specifier a feature imports them with
 * (`toolhost`, `toolhost/internals`), each loaded on first use. A configured feature that imports
 * toolhost gets these, the CLI's own copy: its Feature, service ids and inversify are then the
 * ones the CLI's App is built with (the CLI is one bundled file; `dist/index.js` would be another copy).
 */
export type HostLibrary = Readonly<Record<string, () => object>>;

/** Where the CLI reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  /** `writableLength`: bytes written and not yet taken by the reader (a pipe); progress events are left out while it is high. */
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly writableLength?: number };
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /**
   * Aborts on Ctrl-C, SIGTERM or SIGHUP (set by the real process; absent in tests). Its reason is
   * the signal's name.
   */
  readonly interrupt?: AbortSignal;
  /** What config `features` modules get when they import toolhost (set by the command's entry; absent: their own copy). */
  readonly library?: HostLibrary;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** An error the CLI reports as a usage error (exit code 2) with its message only. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The command stopped because toolhost was signalled; the exit code says which signal. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

/** The signals that stop toolhost: each aborts what runs, stops its processes and exits with 128 + its number. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The stop signal that aborted `interrupt`, if one did. */
export function stopSignalOf(interrupt: AbortSignal | undefined): StopSignal | undefined {
  const reason: unknown = interrupt?.aborted ? interrupt.reason : undefined;
  return STOP_SIGNALS.find((signal) => signal === reason);
}

/** 128 + the signal number, the shell's convention for a process ended by a signal. */
export function signalExitCode(signal: StopSignal): number {
  return 128 + os.constants.signals[signal];
}

/**
 * The real process. The first Ctrl-C, SIGTERM or SIGHUP aborts the running batch (or the server),
 * which stops its commands and tasks; the exit code is then 128 + the signal number. A second one
 * exits at once (the process watchdog stops what is still running).
 */
export function processIo(): CliIo {
  const controller = new AbortController();
  // After a hangup, or once the reader went away, writes fail: that must not become an exception
  // on every later write (an uncaught one per log line would spin, and end nothing).
  const ignore = () => undefined;
  process.stdout.on('error', ignore);
  process.stderr.on('error', ignore);
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (controller.signal.aborted) process.exit(signalExitCode(signal));
      process.stderr.write(signal === 'SIGINT' ? '\nAborting… (press Ctrl-C again to quit now)\n' : `toolhost: ${signal}: stopping…\n`);
      controller.abort(signal);
    });
  }
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env, interrupt: controller.signal };
}
