import { ShellProcess } from '../../base/shell/shellProcess';

/** Bytes of stdout and of stderr kept from a hook; the rest is counted and dropped. */
export const MAX_HOOK_OUTPUT_BYTES = 256 * 1024;
/** After the hook's shell exits, how long a background child may hold its pipes. */
const HOOK_DRAIN_MS = 200;
/** After SIGTERM (timeout or abort), how long before SIGKILL. */
const HOOK_KILL_GRACE_MS = 1000;

export interface HookCommandOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The JSON text the hook reads on stdin. */
  readonly stdin: string;
  readonly timeoutMs: number;
  /** Kills the hook when the batch is aborted. */
  readonly signal: AbortSignal;
}

export interface HookCommandRun {
  /** null when a signal ended the shell or it never started. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Output past MAX_HOOK_OUTPUT_BYTES was dropped from stdout or stderr. */
  readonly outputCut: boolean;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** The shell could not be started. */
  readonly spawnError?: string;
}

/** The first `max` bytes of a stream: memory stays bounded whatever the hook prints. */
class BoundedBytes {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  cut = false;

  constructor(private readonly max: number) {}

  add(chunk: Buffer): void {
    const room = this.max - this.kept;
    if (room <= 0) {
      this.cut = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part !== chunk) this.cut = true;
    this.chunks.push(part);
    this.kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Runs one hook command (`bash -c`, its own process group, the payload on stdin). Never rejects:
 * a timeout or an abort kills the whole group and is reported in the run.
 */
export async function runHookCommand(options: HookCommandOptions): Promise<HookCommandRun> {
  const stdout = new BoundedBytes(MAX_HOOK_OUTPUT_BYTES);
  const stderr = new BoundedBytes(MAX_HOOK_OUTPUT_BYTES);
  let timedOut = false;
  let aborted = options.signal.aborted;
  if (aborted) return { exitCode: null, stdout: '', stderr: '', outputCut: false, timedOut, aborted };
  const proc = new ShellProcess({
    command: options.command,
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin,
    drainMs: HOOK_DRAIN_MS,
    killGraceMs: HOOK_KILL_GRACE_MS,
    // Hooks run for every matching call: after a normal exit only the group's leftovers are
    // stopped, without the /proc scan for escaped ones (a timeout or an abort still does it).
    findEscapedOnExit: false,
    onData: (chunk, stream) => (stream === 'stdout' ? stdout : stderr).add(chunk),
  });
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill('timeout');
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    proc.kill('aborted');
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await proc.done;
    return {
      exitCode: exit.exitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      outputCut: stdout.cut || stderr.cut,
      timedOut,
      aborted,
      ...(exit.spawnError !== undefined ? { spawnError: exit.spawnError } : {}),
    };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}
