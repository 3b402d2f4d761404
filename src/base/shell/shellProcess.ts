import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { errorMessage } from '../errors';
import { findMarkedProcesses, isMarkedProcessAlive, isProcessGroupAlive, newRunId, signalProcess, signalProcessGroup, withRunMarker } from './processGroup';
import { ensureProcessWatchdog, unwatchProcessGroup, watchProcessGroup } from './processWatchdog';
import { nodeBuiltins } from '../nodeBuiltins';

export type OutputStreamName = 'stdout' | 'stderr';

export interface ShellProcessOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The shell binary; run as `<shell> -c <command>` (never a login shell). Default `bash`. */
  readonly shell?: string;
  /**
   * The program line actually started, from `[shell, '-c', command]`: a sandbox puts itself in
   * front. The first element is the program. Default: the line as it is.
   */
  readonly wrapArgv?: (argv: readonly string[]) => readonly string[];
  /** After the shell exits, how long to wait for its pipes to close before cutting them. */
  readonly drainMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  readonly killGraceMs: number;
  /** Stop processes the shell left running (in its group or marked as its own) once it exits (default true). */
  readonly stopLeftovers?: boolean;
  /**
   * With stopLeftovers, also look for processes that left the group (`setsid`) after a normal exit:
   * one pass over /proc, a few ms on a busy machine (default true). A kill always looks for them.
   */
  readonly findEscapedOnExit?: boolean;
  /** Written to the shell's stdin, which is then closed; without it stdin is closed from the start. */
  readonly stdin?: string;
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
  /** Processes the shell left running (in its group, or escaped from it) were stopped after it exited. */
  readonly leftoversStopped: boolean;
  /** The pipes were still held open by another process when the drain period ended. */
  readonly outputCutOff: boolean;
  /** The shell could not be started (e.g. the shell binary or the cwd is missing). */
  readonly spawnError?: string;
}

const POLL_MS = 20;
/** After SIGKILL, how long to wait for the group to disappear before giving up. */
const AFTER_KILL_WAIT_MS = 2000;
/** Once all that was stopped is gone, how many more /proc scans look for marked processes started meanwhile. */
const MAX_LATE_SCANS = 3;

/** A started shell command as its callers see it (ShellProcess; a runtime may supply another). */
export interface RunningShell {
  readonly done: Promise<ShellExit>;
  /** The pid of the process started (its process group id); undefined if it did not start. */
  readonly pid: number | undefined;
  readonly isRunning: boolean;
  pause(): void;
  resume(): void;
  kill(reason: string): void;
}

/**
 * A shell command in its own process group, stdin closed (or given once, then closed).
 * Completion is the exit of the shell plus a short drain of its pipes, so a background child that keeps a pipe open cannot hang it;
 * processes left in the group are then stopped. `kill` sends SIGTERM to the whole group and
 * SIGKILL after a grace period; `done` resolves once no live process of the group remains.
 *
 * Processes that leave the group (`setsid`, `setpgid`) are found by the run marker in their
 * environment (`TOOLHOST_RUN_ID`) and stopped with it, and the process watchdog stops
 * group and marked processes if toolhost dies first.
 */
export class ShellProcess implements RunningShell {
  readonly done: Promise<ShellExit>;
  private readonly child: ChildProcess;
  private readonly streams: Readable[];
  private readonly runId = newRunId();
  /** Marked processes outside the group that a stop signalled; waited for like the group. */
  private readonly escaped = new Set<number>();
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
    ensureProcessWatchdog();
    const argv = [options.shell ?? 'bash', '-c', options.command];
    const [file, ...args] = options.wrapArgv ? options.wrapArgv(argv) : argv;
    this.child = nodeBuiltins.childProcess().spawn(file!, args, {
      cwd: options.cwd,
      env: withRunMarker(options.env, this.runId),
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined && this.child.stdin) {
      // A command that exits without reading its input makes the write fail with EPIPE: not our error.
      this.child.stdin.on('error', () => undefined);
      this.child.stdin.end(options.stdin);
    }
    this.streams = [this.child.stdout!, this.child.stderr!];
    if (this.child.pid !== undefined) watchProcessGroup(this.child.pid);
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

  /**
   * SIGTERM to the whole group and to the marked processes outside it now, SIGKILL after the grace
   * period. Later calls do nothing.
   */
  kill(reason: string): void {
    this.stop(reason);
  }

  private stop(reason: string, escaped?: readonly number[]): void {
    if (this.killReason !== undefined || this.child.pid === undefined || this.settled) return;
    this.killReason = reason;
    this.sigtermAt = Date.now();
    signalProcessGroup(this.child.pid, 'SIGTERM');
    this.signalEscaped(escaped ?? this.findEscaped(), 'SIGTERM');
    this.killTimer = setTimeout(() => this.forceKill(), this.options.killGraceMs);
  }

  private forceKill(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.forceKilled) return;
    // What escaped since the SIGTERM (a child forked while stopping) is found by a second scan.
    for (const escapee of this.findEscaped()) this.escaped.add(escapee);
    if (isProcessGroupAlive(pid) || this.escapedAlive()) {
      this.forceKilled = true;
      signalProcessGroup(pid, 'SIGKILL');
      this.signalEscaped([...this.escaped], 'SIGKILL');
    }
  }

  /** Live processes carrying this run's marker that are not in its process group (one /proc scan). */
  private findEscaped(): number[] {
    const pgid = this.child.pid;
    return findMarkedProcesses(this.runId)
      .filter((p) => p.pgrp !== pgid)
      .map((p) => p.pid);
  }

  private signalEscaped(pids: readonly number[], signal: NodeJS.Signals): void {
    for (const pid of pids) {
      this.escaped.add(pid);
      // Checked again just before: a pid that ended may have been reused by another process.
      if (isMarkedProcessAlive(pid, this.runId)) signalProcess(pid, signal);
    }
  }

  private escapedAlive(): boolean {
    for (const pid of this.escaped) {
      if (isMarkedProcessAlive(pid, this.runId)) return true;
      this.escaped.delete(pid);
    }
    return false;
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
    if (this.killReason === undefined && this.options.stopLeftovers !== false) {
      const escaped = this.options.findEscapedOnExit === false ? [] : this.findEscaped();
      if (isProcessGroupAlive(pid) || escaped.length > 0) {
        this.leftoversStopped = true;
        this.stop('leftovers', escaped);
      }
    }
    if (this.killReason !== undefined) await this.waitForExit(pid);
    if (this.killTimer) clearTimeout(this.killTimer);
    this.settled = true;
    unwatchProcessGroup(pid);
    this.resolveDone({
      exitCode: this.exitCode,
      signal: this.exitSignal,
      ...(this.killReason !== undefined && this.killReason !== 'leftovers' ? { killReason: this.killReason } : {}),
      forceKilled: this.forceKilled,
      leftoversStopped: this.leftoversStopped,
      outputCutOff: this.outputCutOff,
    });
  }

  /** Until the group and the escaped processes are gone (bounded), with a few scans for late ones. */
  private async waitForExit(pid: number): Promise<void> {
    const giveUpAt = this.sigtermAt + this.options.killGraceMs + AFTER_KILL_WAIT_MS;
    for (let scan = 0; ; scan++) {
      while ((isProcessGroupAlive(pid) || this.escapedAlive()) && Date.now() < giveUpAt) {
        if (!this.forceKilled && Date.now() >= this.sigtermAt + this.options.killGraceMs) this.forceKill();
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (Date.now() >= giveUpAt || scan >= MAX_LATE_SCANS) return;
      const late = this.findEscaped();
      if (late.length === 0) return;
      this.signalEscaped(late, this.forceKilled ? 'SIGKILL' : 'SIGTERM');
    }
  }
}

export function startShell(options: ShellProcessOptions): ShellProcess {
  return new ShellProcess(options);
}
