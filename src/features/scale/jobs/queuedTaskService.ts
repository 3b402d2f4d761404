import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Emitter } from '../../../base/event';
import { errorMessage } from '../../../base/errors';
import { sliceHeldOutput, utf8Window } from '../../../base/shell/outputSlice';
import { randomBase36 } from '../../../base/strings';
import {
  type IAgentTaskService,
  isTerminalStatus,
  type StartAgentTaskOptions,
  type StartProcessTaskOptions,
  type TaskInfo,
  assertTaskCanStart,
  type TaskOutputRequest,
  type TaskOutputSlice,
  type TaskWaitResult,
} from '../../../tools/task/contract';
import type { QueuedSubagentEnd, SubagentJob } from '../../../tools/agent/contract';
import { type NewTaskRecord, type TaskJobData, type TaskKeys, type TaskRef, isHiddenRecord, JOB_NAMES, newRecordFields, subagentResultOf, TaskRecordStore, taskInfoOf } from './taskRecords';

/** What the queued service needs from its agent and the configuration. */
export interface QueuedTaskServiceOptions {
  readonly agentId: string;
  /** The agent's workspace roots (a sandboxed worker lets a command write them). */
  readonly roots: readonly string[];
  /** Whether background Bash tasks are queued (scale.jobs.backgroundTasks "queue"); otherwise they run in `local`. */
  readonly queueProcesses: boolean;
  /** The App's shared Redis connection (IScaleRedis.connection()), for commands and the queue. */
  readonly redis: Redis;
  /** Opens the subscriber's own connection (IScaleRedis.openConnection()); closed with the service. */
  readonly openSubscriber: () => Redis;
  /** The BullMQ queue on `keys.queueName`. */
  readonly openQueue: (connection: Redis) => Queue<TaskJobData>;
  readonly keys: TaskKeys;
  readonly maxRunning: number;
  readonly keepEndedS: number;
  /** How long TaskStop waits for a worker to end a task before it reports it still running. */
  readonly stopWaitMs: number;
}

/** A wait with no end of its own (a subagent's job ends by itself, or is stopped). */
const NO_TIMEOUT_MS = Number.MAX_SAFE_INTEGER;

/** How often waits re-read the records, in case an announcement was missed (pub/sub is fire-and-forget). */
const WAIT_POLL_MS = 1000;

/**
 * The agent's task service when background Bash tasks run on `toolhost worker` processes: each
 * task is a record in Redis plus a BullMQ job; whichever worker takes the job runs the command and
 * streams its output into Redis. Any instance of the agent (same agent id, same Redis) lists,
 * reads, stops and waits for the same tasks. Background subagents stay in this process (`local`):
 * their runner lives here.
 *
 * get/list are synchronous, so the service mirrors the agent's records: it loads them at start,
 * follows the change announcements, and `refresh` (TaskList) re-reads them all.
 */
export class QueuedTaskService implements IAgentTaskService {
  private readonly mirror = new Map<string, TaskInfo>();
  /** Ids of AgentSwarm items: in the mirror (waits need them) but neither listed nor reported. */
  private readonly hidden = new Set<string>();
  /** Tasks this instance queued, with the write that created them (later operations wait for it). */
  private readonly created = new Map<string, Promise<void>>();
  private readonly changed = new Emitter<TaskInfo>();
  readonly onDidChangeTask = this.changed.event;
  /** Wakes waits on any change (local or remote). */
  private readonly anyChange = new Emitter<void>();
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly queue: Queue<TaskJobData>;
  private readonly store: TaskRecordStore;
  private readonly loaded: Promise<void>;
  private disposed = false;
  /** Disposed and disconnected: waits end (the records cannot be read any more). */
  private closed = false;

  constructor(
    private readonly local: IAgentTaskService,
    private readonly options: QueuedTaskServiceOptions,
  ) {
    // A lost connection fails the commands that need it (a task that cannot be queued ends failed
    // with the reason) and ioredis reconnects; IScaleRedis listens for its errors.
    this.redis = options.redis;
    this.subscriber = options.openSubscriber();
    this.queue = options.openQueue(this.redis);
    this.store = new TaskRecordStore(this.redis, options.keys, options.keepEndedS);
    local.onDidChangeTask((task) => {
      this.changed.fire(task);
      this.anyChange.fire();
    });
    // Announcements on the agent's channel: its tasks changed, or another instance started one.
    this.subscriber.on('message', (_channel: string, taskId: string) => void this.reload(taskId));
    this.loaded = this.subscriber
      .subscribe(options.keys.events(options.agentId))
      .then(() => this.refresh())
      .catch(() => undefined);
  }

  get runningCount(): number {
    let n = this.local.runningCount;
    for (const task of this.mirror.values()) if (task.status === 'running' && !this.hidden.has(task.id)) n++;
    return n;
  }

  private assertCanStart(): void {
    assertTaskCanStart(this.disposed, this.runningCount, this.options.maxRunning);
  }

  startProcess(options: StartProcessTaskOptions): TaskInfo {
    if (!this.options.queueProcesses) return this.local.startProcess(options);
    this.assertCanStart();
    const id = this.newId('bash');
    const data: TaskJobData = {
      taskId: id,
      agentId: this.options.agentId,
      command: options.command,
      cwd: options.cwd,
      env: envOverlay(options.env),
      roots: this.options.roots,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    return this.queueTask({ id, agentId: this.options.agentId, kind: 'process', description: options.description, command: options.command, cwd: options.cwd, startedAt: Date.now(), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) }, data);
  }

  startAgent(options: StartAgentTaskOptions): TaskInfo {
    this.assertCanStart();
    return this.local.startAgent(options);
  }

  /**
   * Queues a subagent for a worker's ISubagentJobHost: a background child (a listed task of kind
   * `agent`), or a hidden AgentSwarm item. `ended` resolves once it ended, with what the worker wrote.
   */
  startSubagent(job: SubagentJob, shown: { readonly description: string; readonly command: string; readonly cwd: string }, hidden: boolean): { readonly task: TaskInfo; readonly ended: Promise<QueuedSubagentEnd> } {
    // Swarm items count as the one AgentSwarm call they are part of, as in process.
    if (!hidden) this.assertCanStart();
    const id = this.newId('agent-task');
    if (hidden) this.hidden.add(id);
    const task = this.queueTask(
      { id, agentId: this.options.agentId, kind: 'agent', description: shown.description, command: shown.command, cwd: shown.cwd, startedAt: Date.now(), childAgentId: job.agentId, hidden },
      { taskId: id, agentId: this.options.agentId, job },
    );
    const ended = this.wait([id], { mode: 'all', timeoutMs: NO_TIMEOUT_MS }).then(async ({ tasks }) => {
      const fields = await this.store.read(id).catch((): Record<string, string> => ({}));
      const result = subagentResultOf(fields);
      return { task: tasks[0]!, ...(result !== undefined ? { result } : {}) };
    });
    return { task, ended };
  }

  /** Writes the record and queues the job; a task that cannot be queued ends failed with the reason. */
  private queueTask(record: NewTaskRecord, data: TaskJobData): TaskInfo {
    const { id } = record;
    const fields = newRecordFields(record);
    const info = taskInfoOf(fields, this.options.keys)!;
    this.mirror.set(id, info);
    const creating = this.store
      .create(this.options.agentId, fields)
      .then(() => this.queue.add(JOB_NAMES[record.kind], data, { jobId: id, removeOnComplete: true, removeOnFail: { age: this.options.keepEndedS } }))
      .then(
        () => undefined,
        async (error: unknown) => {
          const stopReason = `The task could not be queued: ${errorMessage(error)}`;
          await this.store.finish(this.ref(id), { status: 'failed', stopReason }).catch(() => undefined);
          this.update({ ...info, status: 'failed', endedAt: Date.now(), stopReason });
        },
      );
    this.created.set(id, creating);
    if (!this.hidden.has(id)) this.changed.fire(info);
    return info;
  }

  async refresh(): Promise<void> {
    await Promise.all(this.created.values());
    const ids = await this.store.agentTaskIds(this.options.agentId);
    const records = await this.store.readMany(ids);
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const info = this.infoOf(records[i]!);
      if (info) this.update(info);
      else gone.push(id);
    });
    // Records expire (scale.jobs.keepEndedTasksS); their ids leave the agent's set with them.
    await this.store.forget(this.options.agentId, gone);
  }

  get(id: string): TaskInfo | undefined {
    return this.mirror.get(id) ?? this.local.get(id);
  }

  list(): readonly TaskInfo[] {
    return [...[...this.mirror.values()].filter((task) => !this.hidden.has(task.id)), ...this.local.list()].sort((a, b) => a.startedAt - b.startedAt);
  }

  async readOutput(id: string, request: TaskOutputRequest): Promise<TaskOutputSlice> {
    if (!this.mirror.has(id)) return this.local.readOutput(id, request);
    await this.created.get(id);
    const { from, data, totalBytes } = await this.store.readHeldOutput(id);
    const held = {
      from,
      to: from + data.length,
      read: async (start: number, end: number) => {
        const window = utf8Window(data, start - from, end - from, from > 0);
        return { text: window.text, start: from + window.start, end: from + window.end };
      },
    };
    // Past the cap only the latest output is held, as in memory for a local task whose log is full.
    return { ...(await sliceHeldOutput(held, request)), totalBytes, source: from > 0 ? 'memory' : 'file' };
  }

  async stop(id: string, reason: string): Promise<TaskInfo> {
    if (!this.mirror.has(id)) return this.local.stop(id, reason);
    await this.created.get(id);
    const before = await this.reload(id);
    if (before && before.status === 'running') {
      await this.store.requestStop(id, reason);
      // Still waiting for a worker: end it here, and take the job off the queue. A worker that
      // claims it meanwhile wins the record, and the stop request reaches it.
      const record = await this.store.read(id);
      if (record.state === 'queued' && (await this.store.finish(this.ref(id), { status: 'killed', stopReason: reason }))) {
        await this.queue.remove(id).catch(() => undefined);
      }
      await this.wait([id], { mode: 'all', timeoutMs: this.options.stopWaitMs });
    }
    return (await this.reload(id)) ?? this.mirror.get(id)!;
  }

  async wait(ids: readonly string[], options: { mode: 'all' | 'any'; timeoutMs: number; signal?: AbortSignal }): Promise<TaskWaitResult> {
    for (const id of ids) if (!this.get(id)) throw new Error(`Task not found: ${id}`);
    const deadline = Date.now() + options.timeoutMs;
    const snapshot = (timedOut: boolean, aborted: boolean): TaskWaitResult => ({ tasks: ids.map((id) => this.get(id)!), timedOut, aborted });
    const settled = () => {
      const ended = ids.map((id) => isTerminalStatus(this.get(id)!.status));
      return options.mode === 'all' ? ended.every(Boolean) : ended.some(Boolean);
    };
    for (;;) {
      if (settled()) return snapshot(false, false);
      if (options.signal?.aborted) return snapshot(false, true);
      if (this.closed) return snapshot(true, false);
      const left = deadline - Date.now();
      if (left <= 0) return snapshot(true, false);
      const woken = await this.nextChange(Math.min(left, WAIT_POLL_MS), options.signal);
      // Announcements keep the mirror current; after a quiet poll period the records are re-read,
      // so a missed announcement costs at most that period.
      if (woken === 'quiet') await Promise.all(ids.filter((id) => this.mirror.get(id)?.status === 'running').map((id) => this.reload(id)));
    }
  }

  /** Stops the tasks this instance queued that still run, then closes the connections. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.loaded;
    const running = [...this.created.keys()].filter((id) => this.mirror.get(id)?.status === 'running');
    await Promise.all(running.map((id) => this.stop(id, 'The agent ended').catch(() => undefined)));
    await this.queue.close().catch(() => undefined);
    // The shared connection is the App's: it closes with the App.
    this.subscriber.disconnect();
    this.closed = true;
    this.anyChange.fire();
    this.changed.dispose();
    this.anyChange.dispose();
  }

  /** Resolves on the next change or abort (`changed`), or after `ms` without one (`quiet`). */
  private nextChange(ms: number, signal: AbortSignal | undefined): Promise<'changed' | 'quiet'> {
    return new Promise((resolve) => {
      const done = (why: 'changed' | 'quiet') => {
        clearTimeout(timer);
        subscription.dispose();
        signal?.removeEventListener('abort', onAbort);
        resolve(why);
      };
      const onAbort = () => done('changed');
      const timer = setTimeout(() => done('quiet'), ms);
      const subscription = this.anyChange.event(() => done('changed'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async reload(id: string): Promise<TaskInfo | undefined> {
    const info = this.infoOf(await this.store.read(id).catch(() => ({})));
    if (info) this.update(info);
    return info;
  }

  /** A record's TaskInfo; notes AgentSwarm items (of any instance) as hidden. */
  private infoOf(fields: Record<string, string>): TaskInfo | undefined {
    const info = taskInfoOf(fields, this.options.keys);
    if (info && isHiddenRecord(fields)) this.hidden.add(info.id);
    return info;
  }

  private ref(taskId: string): TaskRef {
    return { agentId: this.options.agentId, taskId };
  }

  private update(info: TaskInfo): void {
    if (this.disposed && !this.mirror.has(info.id)) return;
    const before = this.mirror.get(info.id);
    this.mirror.set(info.id, info);
    if (before?.status !== info.status && !this.hidden.has(info.id)) this.changed.fire(info);
    this.anyChange.fire();
  }

  private newId(prefix: 'bash' | 'agent-task'): string {
    for (;;) {
      const id = `${prefix}-${randomBase36(8)}`;
      if (!this.mirror.has(id) && !this.local.get(id)) return id;
    }
  }
}

/** The variables the agent set or changed on top of this process's environment: what a worker adds to its own. */
function envOverlay(env: NodeJS.ProcessEnv): Record<string, string> {
  const overlay: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && process.env[name] !== value) overlay[name] = value;
  return overlay;
}
