import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { PathAccessContext, PathAccessVerb } from '../../tool/pathAccess';

/** What createAgent settled for the agent (bound as a constant in the Agent scope). */
export interface AgentOptions {
  readonly id: string;
  /** The working directory, canonical (symlinks resolved). */
  readonly cwd: string;
  readonly additionalDirs: readonly string[];
  readonly homeDir: string;
  /** Where the agent keeps files of its own (spilled outputs, task logs). */
  readonly dataDir: string;
  /** Tools the workspace disables. */
  readonly disabledTools: readonly string[];
  /** The agent that started this one (a subagent); absent for a main agent. */
  readonly parentAgentId?: string;
}
export const IAgentOptions = createServiceId<AgentOptions>('AgentOptions');

/** A main agent is one no other agent started: main-agent-only tools (goals, cron) use this in `when`. */
export function isMainAgent(options: AgentOptions): boolean {
  return options.parentAgentId === undefined;
}

/** The agent's workspace (Agent scope): its roots, its data directory and its tool vetoes. */
export interface IAgentWorkspaceService {
  readonly agentId: string;
  readonly cwd: string;
  readonly additionalDirs: readonly string[];
  readonly homeDir: string;
  readonly dataDir: string;
  /** Tools the workspace disables; a veto no other layer overrides. */
  readonly disabledTools: readonly string[];
  setDisabledTools(names: readonly string[]): void;
  readonly onDidChangeDisabledTools: Event<readonly string[]>;
  /** The context for resolvePathAccess in this workspace. */
  pathContext(verb: PathAccessVerb, options?: Pick<PathAccessContext, 'checkSensitive' | 'outside'>): PathAccessContext;
  /** Whether a canonical absolute path lies inside one of the workspace roots. */
  isInside(path: string): boolean;
}
export const IAgentWorkspaceService = createServiceId<IAgentWorkspaceService>('AgentWorkspaceService');
