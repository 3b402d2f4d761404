import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';

/** The task family's contract for other families: the task service and the tasks section of the configuration. */
export { tasksConfig, type TasksConfig } from './taskConfig';

export type TaskKind = 'process' | 'agent';

/** `running`, then exactly one of the others. */
export type TaskStatus = 'running' | 'completed' | 'failed' | 'timed_out' | 'killed';

/** A background task of an agent, as a snapshot. */
export interface TaskInfo {
  /** `bash-` (a process) or `agent-task-` (a subagent) + 8 random base-36 characters. */
  readonly id: string;
  /** `process`: a shell command; `agent`: a background subagent. */
  readonly kind: TaskKind;
  readonly description: string;
  /** The shell command; for an agent task, what runs (`Agent explore`). */
  readonly command: string;
  /** The subagent's agent id, for an agent task. */
  readonly agentId?: string;
  readonly cwd: string;
  readonly status: TaskStatus;
  /** The shell's pid (also its process group id). */
  readonly pid?: number;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt?: number;
  /** The shell's exit code; null when a signal ended it. Absent while running. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  /** Why the task ended early: TaskStop's reason, the timeout, the agent ending, a start failure. */
  readonly stopReason?: string;
  /** The task is killed when it runs longer than this. */
  readonly timeoutMs?: number;
  /** Bytes of output so far. */
  readonly outputBytes: number;
  /** The log file holding the output (stdout and stderr interleaved, raw bytes). */
  readonly outputPath: string;
  /** The log stopped growing at its size cap; later output is counted but only the tail is kept. */
  readonly outputCapped: boolean;
  /** SIGKILL was needed to stop it. */
  readonly forceKilled: boolean;
}

export function isTerminalStatus(status: TaskStatus): boolean {
  return status !== 'running';
}

export interface StartProcessTaskOptions {
  readonly command: string;
  /** Canonical absolute working directory. */
  readonly cwd: string;
  readonly description: string;
  readonly env: NodeJS.ProcessEnv;
  /** Kill the task after this long; absent: it runs until it exits, is stopped, or the agent ends. */
  readonly timeoutMs?: number;
}

/** How an agent task's work ended, as its `run` reports it. */
export interface AgentTaskEnd {
  readonly status: 'completed' | 'failed';
  readonly stopReason?: string;
}

export interface StartAgentTaskOptions {
  readonly description: string;
  /** Shown where a process task shows its command, e.g. `Agent explore`. */
  readonly command: string;
  readonly agentId: string;
  /** Canonical absolute working directory of the subagent. */
  readonly cwd: string;
  /** Stop the task after this long; absent: it runs until it ends, is stopped, or the agent ends. */
  readonly timeoutMs?: number;
  /**
   * Does the work. `signal` aborts on TaskStop, the timeout or the agent ending; text passed to
   * `log` is the task's output (TaskOutput reads it). A throw ends the task as failed.
   */
  run(signal: AbortSignal, log: (text: string) => void): Promise<AgentTaskEnd>;
}

export type TaskOutputRequest =
  /** Bytes from `offset` on (at most `maxBytes`). */
  | { readonly offset: number; readonly maxBytes: number }
  /** The last `lines` lines (at most `maxBytes`); without `lines`, the last `maxBytes`. */
  | { readonly tailLines?: number; readonly maxBytes: number };

export interface TaskOutputSlice {
  readonly text: string;
  /** Byte offsets in the output of the first and after the last byte returned. */
  readonly start: number;
  readonly end: number;
  /** Bytes of output so far. */
  readonly totalBytes: number;
  /** Where it came from: the log file, or the in-memory tail (when the log reached its cap). */
  readonly source: 'file' | 'memory';
}

export interface TaskWaitResult {
  /** Snapshots of the awaited tasks, in the order asked. */
  readonly tasks: readonly TaskInfo[];
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

/** Thrown by startProcess when `tasks.maxRunning` tasks are running; the message is for the model. */
export class TaskLimitError extends Error {
  override readonly name = 'TaskLimitError';
}

/** Throws unless a task service may start one more task (every implementation applies the same rule and words). */
export function assertTaskCanStart(disposed: boolean, running: number, max: number): void {
  if (disposed) throw new Error('The agent has ended; no task can start.');
  if (running >= max) {
    throw new TaskLimitError(
      `Too many background tasks are running (${max} of ${max}; config tasks.maxRunning). ` +
        `Wait for one to finish with WaitFor, or stop one you no longer need with TaskStop; TaskList shows them.`,
    );
  }
}

/**
 * The background tasks of one agent (Agent scope): shell processes and background subagents. It
 * owns their processes: each runs in its own process group with its output in a log file under the agent's data directory, and every
 * running task is stopped when the agent is disposed.
 */
export interface IAgentTaskService {
  /** Starts a shell command as a task. Throws TaskLimitError when the cap is reached. */
  startProcess(options: StartProcessTaskOptions): TaskInfo;
  /** Starts other work as a task of kind `agent` (a background subagent). Throws TaskLimitError when the cap is reached. */
  startAgent(options: StartAgentTaskOptions): TaskInfo;
  /**
   * Brings what get, list and runningCount return up to date with where the tasks are kept. In
   * process they are always current; tasks on a queue (the scale feature) are read from Redis,
   * where another instance of the agent may have started them. The task tools call it first.
   */
  refresh(): Promise<void>;
  get(id: string): TaskInfo | undefined;
  /** All tasks of the agent, oldest first. */
  list(): readonly TaskInfo[];
  readonly runningCount: number;
  /** Reads a task's output from its log. Throws for an unknown id. */
  readOutput(id: string, request: TaskOutputRequest): Promise<TaskOutputSlice>;
  /** Stops a running task (SIGTERM to its group, SIGKILL after the grace period); resolves once it ended. */
  stop(id: string, reason: string): Promise<TaskInfo>;
  /** Waits until all (or any) of the tasks ended, the timeout passed, or the signal aborted. */
  wait(ids: readonly string[], options: { mode: 'all' | 'any'; timeoutMs: number; signal?: AbortSignal }): Promise<TaskWaitResult>;
  /** Fires when a task starts or ends. */
  readonly onDidChangeTask: Event<TaskInfo>;
}
export const IAgentTaskService = createServiceId<IAgentTaskService>('AgentTaskService');

/**
 * Replaces the agent's task service when it creates one (Agent scope, optional): the scale feature
 * binds it to run background Bash tasks as BullMQ jobs when `scale.jobs.backgroundTasks` is
 * "queue". `local` is the in-process service, for the kinds the replacement keeps here.
 */
export interface IAgentTaskServiceFactory {
  create(local: IAgentTaskService): IAgentTaskService | undefined;
}
export const IAgentTaskServiceFactory = createServiceId<IAgentTaskServiceFactory>('AgentTaskServiceFactory');

/**
 * Completion notices of background tasks (Agent scope): a task that ends on its own is reported
 * to the agent's model through the host's IAgentPromptInjection, unless the model already learnt
 * how it ended (WaitFor reported it, TaskStop stopped it). Active only while a host takes prompts.
 */
export interface IAgentTaskNotifications {
  /** Whether completions reach the model by themselves (the host bound IAgentPromptInjection). */
  readonly active: boolean;
  /** The model learnt how these tasks ended (or will): no notice for them. */
  markReported(taskIds: readonly string[]): void;
}
export const IAgentTaskNotifications = createServiceId<IAgentTaskNotifications>('AgentTaskNotifications');
