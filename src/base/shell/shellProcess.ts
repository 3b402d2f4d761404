import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { errorMessage } from '../errors';
import { isProcessGroupAlive, signalProcessGroup } from './processGroup';

export type OutputStreamName = 'stdout' | 'stderr';

export interface ShellProcessOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The shell binary; run as `<shell> -c <command>` (never a login shell). Default `bash`. */
  readonly shell?: string;
  /** After the shell exits, how long to wait for its pipes to close before cutting them. */
  readonly drainMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  readonly killGraceMs: number;
  /** Stop processes the shell left running in its group once it exits (default true). */
  readonly stopLeftovers?: boolean;
  /** Each chunk of output, in arrival order. */
  onData(chunk: Buffer, stream: OutputStreamName): void;
}

export interface ShellExit {
  /** The shell's exit code; null when a signal ended it or it never started. */
  readonly exitCode: number | null;
  /** The signal that ended the shell, if any. */
  readonly signal: NodeJS.Signals | null;
  /** Why the process group was killed (the reason given to `kill`), if it was. */
  readonly killReason?: string;
  /** SIGKILL was needed: the group did not stop within the grace period after SIGTERM. */
  readonly forceKilled: boolean;
  /** Processes the shell left running in its group were stopped after it exited. */
  readonly leftoversStopped: boolean;
  /** The pipes were still held open by another process when the drain period ended. */
  readonly outputCutOff: boolean;
  /** The shell could not be started (e.g. the shell binary or the cwd is missing). */
  readonly spawnError?: string;
}

const POLL_MS = 20;
/** After SIGKILL, how long to wait for the group to disappear before giving up. */
const AFTER_KILL_WAIT_MS = 2000;

/**
 * A shell command in its own process group, stdin closed. Completion is the exit of the shell
 * plus a short drain of its pipes, so a background child that keeps a pipe open cannot hang it;
 * processes left in the group are then stopped. `kill` sends SIGTERM to the whole group and
 * SIGKILL after a grace period; `done` resolves once no live process of the group remains.
 */
export class ShellProcess {
  readonly done: Promise<ShellExit>;
  private readonly child: ChildProcess;
  private readonly streams: Readable[];
  private resolveDone!: (exit: ShellExit) => void;
  private exited = false;
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;
  private openStreams = 2;
  private finishing = false;
  private killReason: string | undefined;
  private sigtermAt = 0;
  private forceKilled = false;
  private killTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private drainExpired = false;
  private paused = false;
  private outputCutOff = false;
  private leftoversStopped = false;
  private settled = false;

  constructor(private readonly options: ShellProcessOptions) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.child = spawn(options.shell ?? 'bash', ['-c', options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.streams = [this.child.stdout!, this.child.stderr!];
    this.child.on('error', (error) => {
      if (this.child.pid === undefined && !this.finishing) {
        this.finishing = true;
        this.settled = true;
        this.resolveDone({ exitCode: null, signal: null, forceKilled: false, leftoversStopped: false, outputCutOff: false, spawnError: errorMessage(error) });
      }
    });
    this.listen(this.child.stdout!, 'stdout');
    this.listen(this.child.stderr!, 'stderr');
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.exitCode = code;
      this.exitSignal = signal;
      if (this.openStreams === 0) void this.finish();
      else this.drainTimer = setTimeout(() => this.drainTimeout(), options.drainMs);
    });
  }

  /** The shell's pid, which is also its process group id; undefined if it did not start. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get isRunning(): boolean {
    return !this.finishing;
  }

  /** Stops reading output (backpressure from a slow consumer). */
  pause(): void {
    this.paused = true;
    for (const stream of this.streams) stream.pause();
  }

  resume(): void {
    this.paused = false;
    for (const stream of this.streams) stream.resume();
    if (this.drainExpired) {
      // The drain period ended while the consumer was behind: give what is buffered in the pipes
      // one more period to arrive, then cut whatever still holds them.
      this.drainExpired = false;
      this.drainTimer = setTimeout(() => this.cutPipes(), this.options.drainMs);
    }
  }

  /** SIGTERM to the whole group now, SIGKILL after the grace period. Later calls do nothing. */
  kill(reason: string): void {
    if (this.killReason !== undefined || this.child.pid === undefined || this.settled) return;
    this.killReason = reason;
    this.sigtermAt = Date.now();
    signalProcessGroup(this.child.pid, 'SIGTERM');
    this.killTimer = setTimeout(() => this.forceKill(), this.options.killGraceMs);
  }

  private forceKill(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.forceKilled) return;
    if (isProcessGroupAlive(pid)) {
      this.forceKilled = true;
      signalProcessGroup(pid, 'SIGKILL');
    }
  }

  private listen(stream: Readable, name: OutputStreamName): void {
    stream.on('data', (chunk: Buffer) => this.options.onData(chunk, name));
    // A pipe error (e.g. EPIPE, or reading after destroy) must not crash the host.
    stream.on('error', () => undefined);
    stream.once('close', () => {
      this.openStreams--;
      if (this.openStreams === 0 && this.exited) {
        if (this.drainTimer) clearTimeout(this.drainTimer);
        void this.finish();
      }
    });
  }

  private drainTimeout(): void {
    if (this.paused) {
      // The consumer is behind (its file is slow); extend the drain once it has caught up.
      this.drainExpired = true;
      return;
    }
    this.cutPipes();
  }

  private cutPipes(): void {
    this.drainExpired = false;
    if (this.openStreams === 0 || this.finishing) return;
    this.outputCutOff = true;
    for (const stream of this.streams) stream.destroy();
  }

  private async finish(): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    const pid = this.child.pid!;
    if (this.killReason === undefined && this.options.stopLeftovers !== false && isProcessGroupAlive(pid)) {
      this.leftoversStopped = true;
      this.kill('leftovers');
    }
    if (this.killReason !== undefined) await this.waitForGroupExit(pid);
    if (this.killTimer) clearTimeout(this.killTimer);
    this.settled = true;
    this.resolveDone({
      exitCode: this.exitCode,
      signal: this.exitSignal,
      ...(this.killReason !== undefined && this.killReason !== 'leftovers' ? { killReason: this.killReason } : {}),
      forceKilled: this.forceKilled,
      leftoversStopped: this.leftoversStopped,
      outputCutOff: this.outputCutOff,
    });
  }

  private async waitForGroupExit(pid: number): Promise<void> {
    const giveUpAt = this.sigtermAt + this.options.killGraceMs + AFTER_KILL_WAIT_MS;
    while (isProcessGroupAlive(pid) && Date.now() < giveUpAt) {
      if (!this.forceKilled && Date.now() >= this.sigtermAt + this.options.killGraceMs) this.forceKill();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

export function startShell(options: ShellProcessOptions): ShellProcess {
  return new ShellProcess(options);
}
