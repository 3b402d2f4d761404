import type { Event } from '../../base/event';
import type { IDisposable } from '../../base/lifecycle';
import { createServiceId } from '../../di/serviceId';
import type { JsonValue } from '../../services/agentState/agentState';
import type {
  ExecuteOptions,
  ToolCall,
  ToolCallFinishedEvent,
  ToolCallResult,
  ToolCallStartedEvent,
  ToolProgressEvent,
} from '../../services/executor/toolExecutor';
import type { ModelToolInfo } from '../../services/toolSelect/toolSelect';
import type { AgentOptions } from '../../services/workspace/workspace';
import type { ToolAccess } from '../../tool/accesses';
import type { ToolPolicy } from '../../toolPolicy/evaluate';
import type { TaskInfo } from '../task/contract';
import type { Worktree } from './worktree';

/**
 * The subagent port: toolhost builds the child agent (its tools, policy, approvals, locks) and
 * hands a runner an `AgentHandle`; the runner drives a model with it. toolhost has no model loop,
 * so a host provides the runner: an OpenAI-compatible Chat Completions runner, MCP sampling on a
 * `toolhost mcp serve` client, or the scripted runner of the tests. Nothing here depends on how
 * a runner talks to its model.
 */

/** A subagent profile as a runner sees it (config `agent.profiles.<name>`, resolved). */
export interface SubagentProfile {
  /** The `subagent_type` the model picked, e.g. `explore`. */
  readonly name: string;
  /** What the profile is for (shown to the parent model in the Agent tool's description). */
  readonly description: string;
  /** Every tool of the child only reads: the child runs beside the parent's reads. */
  readonly readOnly: boolean;
  /** The system prompt for the child model, if the profile has one; a runner may add its own framing. */
  readonly instructions?: string;
  /** A model name the profile asks for; a runner that has one model may ignore it. */
  readonly model?: string;
  /** The most model turns (model requests) the runner may take; past it, it ends with status `failed`. */
  readonly maxTurns: number;
}

/** Token counts as the model provider reports them. */
export interface SubagentUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Input + output when the provider gives only the sum (or both). */
  readonly totalTokens: number;
}

/** The child agent, as a runner drives it. It is valid until the run settles or `dispose()`. */
export interface AgentHandle {
  /** The child's agent id (`agent-…`): what `resume` names. */
  readonly agentId: string;
  readonly parentAgentId: string;
  /** 1 for a child of a main agent, 2 for its child, … */
  readonly depth: number;
  /** The Agent call's `description` (3–80 characters), for logs and UIs. */
  readonly description: string;
  /** The child's working directory: the parent's workspace, or its git worktree under isolation. */
  readonly cwd: string;
  /**
   * The tools to offer the model now (name, description, JSON Schema parameters), sorted by name.
   * Ask again before every model request: the set changes (onDidChangeModelTools). Format them
   * with toOpenAiTools / toAnthropicTools.
   */
  modelTools(): ModelToolInfo[];
  /**
   * Runs one batch of the model's tool calls through the child's real executor (validation,
   * approval by the parent's policy, plan mode, path locks, scheduling). One result per call, in
   * call order; it never throws for a bad call (the result says what was wrong, for the model).
   * Pass the run's signal (or one derived from it).
   */
  execute(calls: readonly ToolCall[], options?: ExecuteOptions): Promise<ToolCallResult[]>;
  readonly events: AgentHandleEvents;
  /**
   * Ends the child: its tasks are stopped and its services disposed. toolhost calls it when the
   * run settles; a runner calls it only to give up early (later `execute` calls then fail).
   */
  dispose(): Promise<void>;
  readonly isDisposed: boolean;
}

/** The child's events, for runners that stream progress. */
export interface AgentHandleEvents {
  readonly onToolCallStarted: Event<ToolCallStartedEvent>;
  readonly onToolProgress: Event<ToolProgressEvent>;
  readonly onToolCallFinished: Event<ToolCallFinishedEvent>;
  /** The model-facing tool list may have changed: call `modelTools()` again before the next request. */
  readonly onDidChangeModelTools: Event<void>;
}

/** What a runner reports while it runs; toolhost turns these into progress updates and pacing. */
export type SubagentRunEvent =
  /** A model request starts; `turn` counts from 1. */
  | { readonly type: 'turn'; readonly turn: number }
  /** Text the model produced (a delta or a whole message), for progress display only. */
  | { readonly type: 'text'; readonly text: string }
  /** Usage so far (cumulative over the run). */
  | { readonly type: 'usage'; readonly usage: SubagentUsage }
  /** The provider asked to wait (HTTP 429, retry-after); the runner waits or gives up itself. */
  | { readonly type: 'rate_limited'; readonly retryAfterMs: number };

export interface SubagentRunRequest {
  readonly child: AgentHandle;
  /** The task for the child, as the parent model wrote it. */
  readonly prompt: string;
  readonly profile: SubagentProfile;
  /**
   * Aborted when the parent's call is aborted, the Agent timeout (`agent.timeoutS`) passes, or a
   * background subagent is stopped. The runner stops its model request and resolves (status
   * `aborted`) instead of throwing.
   */
  readonly signal: AbortSignal;
  readonly onEvent: (event: SubagentRunEvent) => void;
  /**
   * On `resume`: the `conversation` the runner returned for this child last time. The runner
   * continues that conversation with `prompt` as the next user message.
   */
  readonly resumeFrom?: JsonValue;
}

export type SubagentRunStatus = 'completed' | 'failed' | 'aborted';

export interface SubagentRunResult {
  readonly status: SubagentRunStatus;
  /** The child's final answer (its last assistant text); may be empty on failure. */
  readonly text: string;
  /** When the provider reports it: the whole run's usage. */
  readonly usage?: SubagentUsage;
  /** Model requests made. */
  readonly turns?: number;
  /** Failed because the provider rate-limited it: try again after this long (AgentSwarm paces by it). */
  readonly retryAfterMs?: number;
  /** Why it failed or was aborted, in words for the parent model. */
  readonly error?: string;
  /**
   * Opaque, JSON-serialisable conversation state (e.g. the message list) that `resumeFrom` gets
   * back on `resume`; leave it out and resume starts a fresh conversation in the same child.
   */
  readonly conversation?: JsonValue;
}

/**
 * Drives a model for a subagent. `run` resolves once the child has its final answer, failed, or
 * was aborted; a throw counts as `failed` with the error's message. Runs of different children
 * may overlap (AgentSwarm runs many at once).
 */
export interface ISubagentRunner {
  run(request: SubagentRunRequest): Promise<SubagentRunResult>;
}

/**
 * Optional: the runner a host binds when the App is created
 * (`createApp({overrides: (c) => c.bind(ISubagentRunner).toConstantValue(runner)})`).
 */
export const ISubagentRunner = createServiceId<ISubagentRunner>('SubagentRunner');

/**
 * Which runner the App uses (App scope). With none, Agent (and AgentSwarm) are inactive; binding
 * one activates them in every agent, no restart. Starts with the `ISubagentRunner` binding, if any.
 */
export interface ISubagentRunnerService {
  readonly current: ISubagentRunner | undefined;
  /** Makes `runner` the App's runner; disposing the result unbinds it (if it is still the current one). */
  bind(runner: ISubagentRunner): IDisposable;
  readonly onDidChange: Event<ISubagentRunner | undefined>;
}
export const ISubagentRunnerService = createServiceId<ISubagentRunnerService>('SubagentRunnerService');

/** A profile ready to start a child with: what the runner sees, and the child's tool policy. */
export interface ResolvedSubagentProfile {
  readonly profile: SubagentProfile;
  readonly policy: ToolPolicy;
}

/** One child to start: what Agent and AgentSwarm hand to `IAgentSubagentService.run`. */
export interface SubagentLaunch {
  readonly agentId: string;
  readonly description: string;
  readonly prompt: string;
  readonly resolved: ResolvedSubagentProfile;
  /** Under isolation: the worktree folder to create (and the repository it belongs to). */
  readonly worktree?: { readonly path: string; readonly repoDir: string };
  /** Without a worktree: the child's working directory (default the parent's). */
  readonly cwd?: string;
  /** How long the child may run (default agent.timeoutS): a queued child keeps its parent's. */
  readonly timeoutMs?: number;
}

/** How a child's run ended, as Agent and AgentSwarm format it. */
export interface SubagentOutcome {
  readonly agentId: string;
  readonly profileName: string;
  readonly status: SubagentRunStatus;
  readonly text: string;
  readonly turns?: number;
  readonly usage?: SubagentUsage;
  readonly durationMs: number;
  /** Canonical paths the child wrote (its successful calls' declared file writes), in order. */
  readonly filesChanged: readonly string[];
  readonly error?: string;
  /** The runner's `retryAfterMs`: it failed because the provider rate-limited it. */
  readonly retryAfterMs?: number;
  readonly worktree?: Worktree & { readonly kept: boolean };
  /** Where the child's data (and the full result) lives. */
  readonly dataDir: string;
}

/** What a caller of `run` hears while the child runs. */
export interface SubagentRunListener {
  /** A line for the call's progress (`turn 3`, `rate limited; retrying in 2 s`). */
  readonly progress: (text: string) => void;
  /** The runner's events as they come (AgentSwarm paces its launches by `rate_limited`). */
  readonly onEvent?: (event: SubagentRunEvent) => void;
}

/**
 * The subagents of one agent (Agent scope): the one place children are checked, created, run and
 * ended, shared by the Agent tool and AgentSwarm so both start children the same way.
 */
export interface IAgentSubagentService {
  /** Why this agent cannot start subagents now (depth limit, no runner), as an error for the model; undefined when it can. */
  unavailableReason(): string | undefined;
  /** The profile names, sorted (the `subagent_type` enum). */
  profileNames(): string[];
  resolveProfile(name: string): ResolvedSubagentProfile | undefined;
  /** The repository `isolation: "worktree"` would use: only a git workspace with a runtime that runs processes. */
  worktreeRepo(): string | undefined;
  /** A launch with a fresh agent id (draw it when the call runs, not in resolve); `worktree` puts it in its own worktree of `worktreeRepo()` (which must be defined). */
  newLaunch(request: { readonly description: string; readonly prompt: string; readonly resolved: ResolvedSubagentProfile; readonly worktree?: boolean }): SubagentLaunch;
  /**
   * The accesses of running a child: a read-only one reads the workspace; a writing one writes it
   * and runs processes; an isolated one reads the workspace and writes the worktrees folder. They
   * depend on no agent id, so resolving a call again (the executor does, right before it runs)
   * gives the same accesses.
   */
  accessesOf(child: { readonly readOnly: boolean; readonly isolated: boolean }): ToolAccess[];
  /** Runs a child to its end and disposes it. Never throws: a failure is an outcome with `error`. */
  run(launch: SubagentLaunch, signal: AbortSignal, listener: SubagentRunListener): Promise<SubagentOutcome>;
  /**
   * Like `run`, but on a `toolhost worker` while `scale.jobs.subagents` is "queue" (AgentSwarm
   * items). Never throws. A worker's child sends no events back: the listener hears nothing.
   */
  runWhereConfigured(launch: SubagentLaunch, signal: AbortSignal, listener: SubagentRunListener): Promise<SubagentOutcome>;
  /** Why a launch cannot run where scale.jobs.subagents puts it (isolation on a worker), for the model; undefined when it can. */
  placementRefusal(launch: { readonly isolated: boolean }): string | undefined;
  /** The child's final text cut at `maxChars`, the whole text saved in its data folder (`configKey` names the limit in the note). */
  capText(outcome: SubagentOutcome, maxChars: number, configKey: string): { readonly text: string; readonly fullPath?: string };
}
export const IAgentSubagentService = createServiceId<IAgentSubagentService>('AgentSubagentService');

/** A detached subagent another feature starts (Tower workers): it runs as a background task of kind `agent`. */
export interface DetachedSubagentRequest {
  /** 3–80 characters, for the task list. */
  readonly description: string;
  readonly prompt: string;
  /** A profile name (config `agent.profiles`), e.g. `general`. */
  readonly profile: string;
  /** The child's working directory (e.g. a worktree the caller made); default the parent's. */
  readonly cwd?: string;
  /** An id from newAgentId(), so the caller can record the child before it starts; default a new one. */
  readonly agentId?: string;
}

export interface DetachedSubagent {
  readonly agentId: string;
  readonly taskId: string;
  readonly profile: string;
  /** Settles when the child ended (never rejects). */
  readonly settled: Promise<{ readonly status: SubagentRunStatus; readonly error?: string }>;
  /** Stops the child's task (its run is aborted, the child disposed and its own tasks killed); resolves once it has ended. */
  stop(reason: string): Promise<void>;
}

/** Thrown by ISubagentLauncher.startDetached; the message says what to do instead. */
export class SubagentLaunchError extends Error {
  override readonly name = 'SubagentLaunchError';
}

/**
 * Starts subagents for other features (Agent scope), with the parent's policy, grants and host as
 * the Agent tool does; never an automatic approval mode.
 */
export interface ISubagentLauncher {
  /** A runner is bound and background tasks are available. */
  readonly available: boolean;
  /** A fresh child agent id (`agent-…`) for startDetached's `agentId`. */
  newAgentId(): string;
  startDetached(request: DetachedSubagentRequest): DetachedSubagent;
}
export const ISubagentLauncher = createServiceId<ISubagentLauncher>('SubagentLauncher');

/**
 * A child's run as data, for a `toolhost worker` (config `scale.jobs.subagents: "queue"`):
 * what the worker needs to build the child as its parent would (the parent's workspace, its
 * session grants, the profile by name, the depth) and to continue a resumed conversation. The
 * worker resolves the profile and the runner from its own configuration (the same toolhost.json).
 */
export interface SubagentJob {
  /** The parent as it was when it queued the job: the worker builds a stand-in agent with these. */
  readonly parent: AgentOptions & {
    /** The parent's depth (0 for a main agent): the child is one deeper. */
    readonly depth: number;
    readonly description?: string;
  };
  readonly agentId: string;
  readonly description: string;
  readonly prompt: string;
  /** A profile name (config `agent.profiles`). */
  readonly profile: string;
  /** The child's working directory when it is not the parent's. */
  readonly cwd?: string;
  /** The parent's session grants (approval rules approved "for this session") when it queued the job. */
  readonly sessionGrants: readonly string[];
  /** The parent's agent.timeoutS, in milliseconds. */
  readonly timeoutMs: number;
  /** The conversation of the child's last run, on resume. */
  readonly resumeFrom?: JsonValue;
  /** A background child (Agent run_in_background): the worker writes its formatted result into the task's output, as in process. */
  readonly background: boolean;
}

/** How a queued child ended, as the worker writes it into the task record. */
export interface SubagentJobResult {
  readonly outcome: SubagentOutcome;
  /** The runner's conversation, for a later resume. */
  readonly conversation?: JsonValue;
}

/**
 * Runs queued children (App scope), on a `toolhost worker`: each job gets a stand-in of its
 * parent (the parent's id, workspace and session grants, with no one to ask: a call that would
 * need approval is denied with the reason) whose subagent service runs the child as it does in
 * process. `log` receives the progress lines and, for a background child, its formatted result.
 */
export interface ISubagentJobHost {
  run(job: SubagentJob, signal: AbortSignal, log: (text: string) => void): Promise<SubagentJobResult>;
}
export const ISubagentJobHost = createServiceId<ISubagentJobHost>('SubagentJobHost');

/** A queued child's task once it ended, with what the worker wrote (no result: it never ran, or its worker was lost). */
export interface QueuedSubagentEnd {
  readonly task: TaskInfo;
  readonly result?: SubagentJobResult;
}

/**
 * Where this agent's background children and AgentSwarm items run (Agent scope, optional): the
 * scale feature binds it; `enabled` while `scale.jobs.subagents` is "queue", and then each of
 * them is a BullMQ job on a `toolhost worker`.
 */
export interface ISubagentJobQueue {
  readonly enabled: boolean;
  /** Queues a background child as a task of kind `agent`; `ended` resolves once it ended. */
  startBackground(job: SubagentJob, task: { readonly description: string; readonly command: string; readonly cwd: string }): { readonly task: TaskInfo; readonly ended: Promise<QueuedSubagentEnd> };
  /** Runs a child on a worker (an AgentSwarm item: not listed as a task) until it ended; the signal cancels it, queued or running. */
  run(job: SubagentJob, signal: AbortSignal): Promise<QueuedSubagentEnd>;
}
export const ISubagentJobQueue = createServiceId<ISubagentJobQueue>('SubagentJobQueue');
