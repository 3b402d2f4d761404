import type { Redis } from 'ioredis';
import { RedisScript } from '../redisScript';
import { bullQueuePrefix } from '../scaleConfig';
import type { SubagentJob, SubagentJobResult } from '../../../tools/agent/contract';
import type { TaskInfo, TaskKind, TaskStatus } from '../../../tools/task/contract';

/**
 * Queued background tasks in Redis, shared by the agent instances that start and read them and
 * the workers that run them. Per task: a hash (`task:<id>`) with its record and a list of output
 * chunks (`task:<id>:out`) bounded by `scale.jobs.outputMaxBytes`; per agent: a sorted set of its
 * task ids by start time. Changes are announced on a channel; TaskStop asks on another.
 */
export interface TaskKeys {
  readonly record: (taskId: string) => string;
  readonly output: (taskId: string) => string;
  readonly agentTasks: (agentId: string) => string;
  /** Pub/sub, per agent: the id of a task whose record or output changed. */
  readonly events: (agentId: string) => string;
  /** Pub/sub: `{"id","reason"}`, a stop request for whichever worker runs the task. */
  readonly control: string;
  /** The BullMQ queue's name and key prefix. */
  readonly queueName: string;
  readonly queuePrefix: string;
}

export function taskKeys(keyPrefix: string): TaskKeys {
  return {
    record: (taskId) => `${keyPrefix}task:${taskId}`,
    output: (taskId) => `${keyPrefix}task:${taskId}:out`,
    agentTasks: (agentId) => `${keyPrefix}agent:${agentId}:tasks`,
    events: (agentId) => `${keyPrefix}task-events:${agentId}`,
    control: `${keyPrefix}task-control`,
    queueName: 'tasks',
    queuePrefix: bullQueuePrefix(keyPrefix),
  };
}

/** A task's state in Redis: `queued` until a worker claims it, then as TaskStatus. */
export type QueuedTaskState = 'queued' | TaskStatus;

/** What a BullMQ job named `bash` carries: enough to run the command on any worker. */
export interface BashJobData {
  readonly taskId: string;
  readonly agentId: string;
  readonly command: string;
  readonly cwd: string;
  /** Variables the agent set on top of its own environment (the worker's environment is the base). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /** The agent's workspace roots: what a sandboxed worker (config sandbox "bwrap") lets the command write. */
  readonly roots?: readonly string[];
}

/** What a BullMQ job named `agent` carries: a subagent for the worker's ISubagentJobHost. */
export interface SubagentJobData {
  readonly taskId: string;
  readonly agentId: string;
  readonly job: SubagentJob;
}

export type TaskJobData = BashJobData | SubagentJobData;

/** The BullMQ job names, one per kind of task. */
export const JOB_NAMES = { process: 'bash', agent: 'agent' } as const satisfies Record<TaskKind, string>;

/** How a run ended, as the worker writes it. */
export interface TaskEnding {
  readonly status: Exclude<TaskStatus, 'running'>;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly stopReason?: string;
  readonly forceKilled?: boolean;
  /** A subagent's result (SubagentJobResult as JSON). */
  readonly result?: string;
}

/** What a new record says about the task. */
export interface NewTaskRecord {
  readonly id: string;
  /** The agent that owns the task. */
  readonly agentId: string;
  readonly kind: TaskKind;
  readonly description: string;
  readonly command: string;
  readonly cwd: string;
  readonly startedAt: number;
  readonly timeoutMs?: number;
  /** An agent task's subagent id. */
  readonly childAgentId?: string;
  /** Not listed (TaskList) nor reported: an AgentSwarm item, whose swarm reports it. */
  readonly hidden?: boolean;
}

/** The record written when a task is queued. */
export function newRecordFields(info: NewTaskRecord): Record<string, string> {
  return {
    id: info.id,
    agentId: info.agentId,
    kind: info.kind,
    ...(info.childAgentId !== undefined ? { childAgentId: info.childAgentId } : {}),
    ...(info.hidden === true ? { hidden: '1' } : {}),
    description: info.description,
    command: info.command,
    cwd: info.cwd,
    startedAt: String(info.startedAt),
    ...(info.timeoutMs !== undefined ? { timeoutMs: String(info.timeoutMs) } : {}),
    state: 'queued',
    outputBytes: '0',
    keptFrom: '0',
    keptBytes: '0',
  };
}

const num = (text: string | undefined): number | undefined => (text === undefined || text === '' ? undefined : Number(text));

/** A TaskInfo from a record hash; undefined for a missing (expired) one. */
export function taskInfoOf(fields: Record<string, string>, keys: TaskKeys): TaskInfo | undefined {
  if (fields.id === undefined || fields.state === undefined) return undefined;
  const state = fields.state as QueuedTaskState;
  const exitCode = fields.exitCode === undefined ? undefined : fields.exitCode === '' ? null : Number(fields.exitCode);
  const timeoutMs = num(fields.timeoutMs);
  const endedAt = num(fields.endedAt);
  const pid = num(fields.pid);
  return {
    id: fields.id,
    kind: fields.kind === 'agent' ? 'agent' : 'process',
    description: fields.description ?? '',
    command: fields.command ?? '',
    ...(fields.childAgentId !== undefined ? { agentId: fields.childAgentId } : {}),
    cwd: fields.cwd ?? '',
    // Waiting for a worker counts as running: it has started as far as the agent is concerned.
    status: state === 'queued' ? 'running' : state,
    ...(pid !== undefined ? { pid } : {}),
    startedAt: num(fields.startedAt) ?? 0,
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(state !== 'queued' && state !== 'running' && exitCode !== undefined ? { exitCode, signal: fields.signal === undefined || fields.signal === '' ? null : fields.signal } : {}),
    ...(fields.stopReason !== undefined ? { stopReason: fields.stopReason } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    outputBytes: num(fields.outputBytes) ?? 0,
    outputPath: `redis:${keys.output(fields.id)}`,
    outputCapped: (num(fields.keptFrom) ?? 0) > 0,
    forceKilled: fields.forceKilled === '1',
  };
}

/** Whether a record is an AgentSwarm item's (not listed, not reported). */
export function isHiddenRecord(fields: Record<string, string>): boolean {
  return fields.hidden === '1';
}

/** A subagent's result from its record; undefined when the worker wrote none (or it is not JSON). */
export function subagentResultOf(fields: Record<string, string>): SubagentJobResult | undefined {
  if (fields.result === undefined) return undefined;
  try {
    return JSON.parse(fields.result) as SubagentJobResult;
  } catch {
    return undefined;
  }
}

/** Appends a chunk, drops the oldest chunks past the cap (counted in keptFrom) and announces it; ARGV: chunk, cap, channel, task id. */
const APPEND_OUTPUT = new RedisScript(`
local len = string.len(ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'outputBytes', len)
local kept = redis.call('HINCRBY', KEYS[1], 'keptBytes', len)
local cap = tonumber(ARGV[2])
while kept > cap do
  local first = redis.call('LPOP', KEYS[2])
  if not first then break end
  local n = string.len(first)
  kept = redis.call('HINCRBY', KEYS[1], 'keptBytes', -n)
  redis.call('HINCRBY', KEYS[1], 'keptFrom', n)
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return kept
`);

/** queued → running for one worker; returns the state found when it was not queued. */
const CLAIM = new RedisScript(`
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'queued' then return state or 'missing' end
redis.call('HSET', KEYS[1], 'state', 'running', 'worker', ARGV[1], 'claimedAt', ARGV[2])
return 'claimed'
`);

/** Ends a queued or running task once (the first ending wins) and announces it; ARGV: ttl seconds, channel, task id, then field/value pairs. */
const FINISH = new RedisScript(`
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'queued' and state ~= 'running' then return 0 end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`);

/** A task and its agent (changes are announced on the agent's channel). */
export interface TaskRef {
  readonly agentId: string;
  readonly taskId: string;
}

/** The record operations both sides use; every change is announced on the agent's events channel. */
export class TaskRecordStore {
  constructor(
    private readonly redis: Redis,
    readonly keys: TaskKeys,
    private readonly keepEndedS: number,
  ) {}

  /** Writes the record, lists it under its agent (unless hidden) and announces it, in one round trip. */
  async create(agentId: string, fields: Record<string, string>): Promise<void> {
    const taskId = fields.id!;
    const multi = this.redis.multi().hset(this.keys.record(taskId), fields);
    if (!isHiddenRecord(fields)) multi.zadd(this.keys.agentTasks(agentId), Number(fields.startedAt), taskId);
    await multi.publish(this.keys.events(agentId), taskId).exec();
  }

  async read(taskId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.record(taskId));
  }

  async readMany(taskIds: readonly string[]): Promise<Array<Record<string, string>>> {
    if (taskIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of taskIds) pipeline.hgetall(this.keys.record(id));
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, value]) => (error ? {} : (value as Record<string, string>)));
  }

  async agentTaskIds(agentId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.agentTasks(agentId), 0, -1);
  }

  async forget(agentId: string, taskIds: readonly string[]): Promise<void> {
    if (taskIds.length > 0) await this.redis.zrem(this.keys.agentTasks(agentId), ...taskIds);
  }

  async claim(taskId: string, workerId: string): Promise<string> {
    return String(await CLAIM.run(this.redis, [this.keys.record(taskId)], [workerId, String(Date.now())]));
  }

  /**
   * Records what a worker started (pid, worker pid) and announces it; returns a stop already
   * requested (before the worker listened for stop requests). One round trip.
   */
  async markStarted(ref: TaskRef, fields: Record<string, string>): Promise<string | undefined> {
    const record = this.keys.record(ref.taskId);
    const results = (await this.redis.multi().hset(record, fields).publish(this.keys.events(ref.agentId), ref.taskId).hget(record, 'stopRequested').exec()) ?? [];
    const [error, stopRequested] = results[2] ?? [null, null];
    if (error) throw error;
    return typeof stopRequested === 'string' ? stopRequested : undefined;
  }

  async appendOutput(ref: TaskRef, chunk: Buffer, capBytes: number): Promise<void> {
    await APPEND_OUTPUT.run(this.redis, [this.keys.record(ref.taskId), this.keys.output(ref.taskId)], [chunk, String(capBytes), this.keys.events(ref.agentId), ref.taskId]);
  }

  /** The output still held (read at one instant): the offset of its first byte, the bytes, and the total so far. */
  async readHeldOutput(taskId: string): Promise<{ from: number; data: Buffer; totalBytes: number }> {
    const results = (await this.redis.multi().hmget(this.keys.record(taskId), 'keptFrom', 'outputBytes').lrangeBuffer(this.keys.output(taskId), 0, -1).exec()) ?? [];
    const [counts, chunks] = results.map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [Array<string | null>, Buffer[]];
    return { from: Number(counts[0] ?? 0), data: Buffer.concat(chunks), totalBytes: Number(counts[1] ?? 0) };
  }

  /** Ends the task unless something ended it first; true when this call did. */
  async finish(ref: TaskRef, ending: TaskEnding): Promise<boolean> {
    const fields: string[] = ['state', ending.status, 'endedAt', String(Date.now())];
    if (ending.exitCode !== undefined) fields.push('exitCode', ending.exitCode === null ? '' : String(ending.exitCode), 'signal', ending.signal ?? '');
    if (ending.stopReason !== undefined) fields.push('stopReason', ending.stopReason);
    if (ending.forceKilled) fields.push('forceKilled', '1');
    if (ending.result !== undefined) fields.push('result', ending.result);
    const args = [String(this.keepEndedS), this.keys.events(ref.agentId), ref.taskId, ...fields];
    return (await FINISH.run(this.redis, [this.keys.record(ref.taskId), this.keys.output(ref.taskId)], args)) === 1;
  }

  async requestStop(taskId: string, reason: string): Promise<void> {
    await this.redis.multi().hset(this.keys.record(taskId), 'stopRequested', reason).publish(this.keys.control, JSON.stringify({ id: taskId, reason })).exec();
  }
}
