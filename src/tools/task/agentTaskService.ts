import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { OutputCapture } from '../../base/shell/outputCapture';
import { type OutputText, sliceHeldOutput, takeLastLines, utf8Window } from '../../base/shell/outputSlice';
import type { RunningShell, ShellExit } from '../../base/shell/shellProcess';
import { formatDuration, randomBase36 } from '../../base/strings';
import { IConfigService } from '../../services/config/config';
import { IAgentRuntimeService } from '../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../services/workspace/workspace';
import {
  type AgentTaskEnd,
  type IAgentTaskService,
  type StartAgentTaskOptions,
  type StartProcessTaskOptions,
  type TaskInfo,
  assertTaskCanStart,
  type TaskOutputRequest,
  type TaskOutputSlice,
  type TaskStatus,
  type TaskWaitResult,
} from './contract';
import { tasksConfig } from './taskConfig';
import { bashConfig } from '../os/contract';

/** Characters of a task's most recent output kept in memory (for reads once its log is full). */
const MEMORY_TAIL_CHARS = 64_000;

/** What a record shows of how it was started, whatever its kind. */
interface TaskOrigin {
  readonly kind: TaskInfo['kind'];
  readonly description: string;
  readonly command: string;
  readonly cwd: string;
  readonly agentId?: string;
  readonly timeoutMs?: number;
}

interface TaskRecord {
  readonly id: string;
  readonly options: TaskOrigin;
  readonly startedAt: number;
  readonly outputPath: string;
  readonly capture: OutputCapture;
  process?: RunningShell;
  /** An agent task's work: aborted to stop it. */
  work?: AbortController;
  status: TaskStatus;
  endedAt?: number;
  exit?: ShellExit;
  stopReason?: string;
  /** What ended it early: set before the kill, read when it exits. */
  ending?: 'timed_out' | 'killed';
  timer?: NodeJS.Timeout;
  readonly done: Promise<void>;
  markDone(): void;
}

/** The stop reason of tasks stopped because their agent was disposed (no one is left to tell). */
export const AGENT_ENDED_STOP_REASON = 'The agent ended';

@injectable()
export class AgentTaskService implements IAgentTaskService {
  private readonly records = new Map<string, TaskRecord>();
  private readonly changed = new Emitter<TaskInfo>();
  readonly onDidChangeTask = this.changed.event;
  private disposed = false;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
  ) {}

  get runningCount(): number {
    let n = 0;
    for (const record of this.records.values()) if (record.status === 'running') n++;
    return n;
  }

  private assertCanStart(): void {
    assertTaskCanStart(this.disposed, this.runningCount, this.config.section(tasksConfig).maxRunning);
  }

  startAgent(options: StartAgentTaskOptions): TaskInfo {
    this.assertCanStart();
    const id = this.newId('agent-task');
    const outputPath = nodePath.join(this.workspace.dataDir, 'tasks', `${id}.log`);
    let markDone!: () => void;
    const done = new Promise<void>((resolve) => (markDone = resolve));
    const capture = new OutputCapture({ headChars: 0, tailChars: MEMORY_TAIL_CHARS, filePath: outputPath, fileMode: 'always', fileMaxBytes: this.config.section(bashConfig).outputFileMaxBytes });
    const work = new AbortController();
    const origin: TaskOrigin = { kind: 'agent', description: options.description, command: options.command, cwd: options.cwd, agentId: options.agentId, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
    const record: TaskRecord = { id, options: origin, startedAt: Date.now(), outputPath, capture, work, status: 'running', done, markDone };
    this.records.set(id, record);
    this.armTimeout(record);
    const log = (text: string) => {
      if (record.status === 'running') capture.write(Buffer.from(text, 'utf8'), 'stdout');
    };
    const ran = Promise.resolve()
      .then(() => options.run(work.signal, log))
      .then(
        (end): AgentTaskEnd => end,
        (error: unknown): AgentTaskEnd => ({ status: 'failed', stopReason: `The subagent failed: ${error instanceof Error ? error.message : String(error)}` }),
      );
    void ran.then((end) => this.finish(record, { status: end.status, ...(end.stopReason !== undefined ? { stopReason: end.stopReason } : {}) }));
    this.changed.fire(this.snapshot(record));
    return this.snapshot(record);
  }

  private armTimeout(record: TaskRecord): void {
    const timeoutMs = record.options.timeoutMs;
    if (timeoutMs === undefined) return;
    record.timer = setTimeout(() => {
      if (record.status !== 'running') return;
      record.ending = 'timed_out';
      record.stopReason = `Timed out after ${formatDuration(timeoutMs)}`;
      this.terminate(record, 'timeout');
    }, timeoutMs);
  }

  /** Ends a running task's process group or work. */
  private terminate(record: TaskRecord, why: 'timeout' | 'stop' | 'dispose'): void {
    record.process?.kill(why);
    record.work?.abort(new Error(record.stopReason ?? why));
  }

  startProcess(options: StartProcessTaskOptions): TaskInfo {
    this.assertCanStart();
    const bash = this.config.section(bashConfig);
    const id = this.newId('bash');
    const outputPath = nodePath.join(this.workspace.dataDir, 'tasks', `${id}.log`);
    let markDone!: () => void;
    const done = new Promise<void>((resolve) => (markDone = resolve));
    // The capture pauses the shell when its file falls behind; the shell feeds the capture.
    const ref: { shell?: RunningShell } = {};
    const capture = new OutputCapture({
      headChars: 0,
      tailChars: MEMORY_TAIL_CHARS,
      filePath: outputPath,
      fileMode: 'always',
      fileMaxBytes: bash.outputFileMaxBytes,
      onBackpressure: (paused) => (paused ? ref.shell?.pause() : ref.shell?.resume()),
    });
    const origin: TaskOrigin = { kind: 'process', description: options.description, command: options.command, cwd: options.cwd, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
    const record: TaskRecord = { id, options: origin, startedAt: Date.now(), outputPath, capture, status: 'running', done, markDone };
    this.records.set(id, record);
    // Through the agent's runtime, so a sandboxing runtime runs background commands too.
    const shell = this.runtime.requireProcess().startShell({
      command: options.command,
      cwd: options.cwd,
      env: options.env,
      drainMs: bash.drainMs,
      killGraceMs: bash.killGraceMs,
      onData: (chunk, stream) => capture.write(chunk, stream),
    });
    ref.shell = shell;
    record.process = shell;
    this.armTimeout(record);
    void shell.done.then((exit) => this.finish(record, exit));
    this.changed.fire(this.snapshot(record));
    return this.snapshot(record);
  }

  /** In process, every snapshot is current. */
  async refresh(): Promise<void> {}

  get(id: string): TaskInfo | undefined {
    const record = this.records.get(id);
    return record ? this.snapshot(record) : undefined;
  }

  list(): readonly TaskInfo[] {
    return [...this.records.values()].map((r) => this.snapshot(r));
  }

  async readOutput(id: string, request: TaskOutputRequest): Promise<TaskOutputSlice> {
    const record = this.require(id);
    const capture = record.capture;
    const totalBytes = capture.totalBytes;
    const fileHolds = capture.hasFile ? capture.flushedFileBytes : 0;
    if (!('offset' in request) && (!capture.hasFile || capture.fileCapped)) {
      // The log does not hold the end of the output: use the in-memory tail.
      const text = takeLastLines(capture.tail(Math.max(1, request.maxBytes)), 'tailLines' in request ? request.tailLines : undefined);
      return { text, start: totalBytes - Buffer.byteLength(text), end: totalBytes, totalBytes, source: 'memory' };
    }
    const held = { from: 0, to: fileHolds, read: (start: number, end: number) => readAligned(record.outputPath, start, end, fileHolds) };
    return { ...(await sliceHeldOutput(held, request)), totalBytes, source: 'file' };
  }

  async stop(id: string, reason: string): Promise<TaskInfo> {
    const record = this.require(id);
    if (record.status === 'running') {
      record.ending ??= 'killed';
      record.stopReason ??= reason;
      this.terminate(record, 'stop');
      await record.done;
    }
    return this.snapshot(record);
  }

  async wait(ids: readonly string[], options: { mode: 'all' | 'any'; timeoutMs: number; signal?: AbortSignal }): Promise<TaskWaitResult> {
    const records = ids.map((id) => this.require(id));
    const snapshot = (timedOut: boolean, aborted: boolean): TaskWaitResult => ({ tasks: records.map((r) => this.snapshot(r)), timedOut, aborted });
    const dones = records.map((r) => r.done);
    const finished = options.mode === 'all' ? Promise.all(dones).then(() => 'done' as const) : Promise.race(dones).then(() => 'done' as const);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.timeoutMs)));
    const abort = new Promise<'abort'>((resolve) => {
      if (options.signal?.aborted) return resolve('abort');
      onAbort = () => resolve('abort');
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([finished, timeout, abort]);
      return snapshot(outcome === 'timeout', outcome === 'abort');
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Stops every running task (their process groups) when the agent is disposed. */
  @preDestroy()
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const running = [...this.records.values()].filter((r) => r.status === 'running');
    for (const record of running) {
      record.ending ??= 'killed';
      record.stopReason ??= AGENT_ENDED_STOP_REASON;
      this.terminate(record, 'dispose');
    }
    await Promise.all(running.map((r) => r.done));
    this.changed.dispose();
  }

  /** Settles a task: a process by its exit, an agent task by what its work reported. */
  private async finish(record: TaskRecord, exit: ShellExit | AgentTaskEnd): Promise<void> {
    if (record.timer) clearTimeout(record.timer);
    record.endedAt = Date.now();
    await record.capture.close();
    if ('status' in exit) {
      record.status = record.ending ?? exit.status;
      if (!record.ending && exit.stopReason !== undefined) record.stopReason = exit.stopReason;
    } else if ((record.exit = exit).spawnError !== undefined) {
      record.status = 'failed';
      record.stopReason = `The command could not be started: ${exit.spawnError}`;
    } else if (record.ending) {
      record.status = record.ending;
    } else {
      record.status = exit.exitCode === 0 ? 'completed' : 'failed';
    }
    if (record.capture.fileError !== undefined) {
      record.stopReason = [record.stopReason, `The output log could not be written: ${record.capture.fileError}`].filter(Boolean).join('; ');
    }
    record.markDone();
    this.changed.fire(this.snapshot(record));
  }

  private require(id: string): TaskRecord {
    const record = this.records.get(id);
    if (!record) throw new Error(`Task not found: ${id}`);
    return record;
  }

  private newId(prefix: 'bash' | 'agent-task'): string {
    for (;;) {
      const id = `${prefix}-${randomBase36(8)}`;
      if (!this.records.has(id)) return id;
    }
  }

  private snapshot(record: TaskRecord): TaskInfo {
    const { options, exit } = record;
    return {
      id: record.id,
      kind: options.kind,
      description: options.description,
      command: options.command,
      ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
      cwd: options.cwd,
      status: record.status,
      ...(record.process?.pid !== undefined ? { pid: record.process.pid } : {}),
      startedAt: record.startedAt,
      ...(record.endedAt !== undefined ? { endedAt: record.endedAt } : {}),
      ...(exit && record.status !== 'running' ? { exitCode: exit.exitCode, signal: exit.signal } : {}),
      ...(record.stopReason !== undefined ? { stopReason: record.stopReason } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      outputBytes: record.capture.totalBytes,
      outputPath: record.outputPath,
      outputCapped: record.capture.fileCapped,
      forceKilled: exit?.forceKilled ?? false,
    };
  }
}

/** Reads bytes [start, end) of a file, moved to UTF-8 character boundaries. */
async function readAligned(path: string, start: number, end: number, size: number): Promise<OutputText> {
  const from = start;
  const extra = Math.min(3, size - end);
  const handle = await fsp.open(path, 'r');
  try {
    const buffer = Buffer.alloc(end - from + extra);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    const aligned = utf8Window(buffer.subarray(0, bytesRead), 0, end - from, from > 0);
    return { text: aligned.text, start: from + aligned.start, end: from + aligned.end };
  } finally {
    await handle.close();
  }
}

