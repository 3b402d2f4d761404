import type { Container, ServiceIdentifier } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import type { IAgentToolExecutorService } from '../executor/toolExecutor';
import type { ModelCapability } from '../model/model';
import type { ProfileSelection } from '../profile/profile';
import type { Runtime } from '../runtime/runtime';
import type { ModelToolInfo } from '../toolSelect/toolSelect';

export interface CreateAgentOptions {
  /** Unique within the App; default `agent-<n>`. */
  readonly id?: string;
  /** The working directory and workspace root; default process.cwd(). Must exist. */
  readonly cwd?: string;
  readonly additionalDirs?: readonly string[];
  /** A profile name from config `profiles` (default: config `profile`, else `default`), or an inline policy. */
  readonly profile?: ProfileSelection;
  /** Default: the local runtime with `fs` and `process`. */
  readonly runtime?: Runtime;
  readonly homeDir?: string;
  /**
   * Where the agent keeps its own files and durable state (plan mode, todos, goals, cron jobs).
   * Default: a fresh private folder under the OS temp directory, its own for this agent only (so
   * nothing carries over to a later agent): give a dataDir for state that survives a restart.
   */
  readonly dataDir?: string;
  /** Tools the workspace disables. */
  readonly disabledTools?: readonly string[];
  /** The id of the agent that starts this one (a subagent); absent: a main agent. Main-agent-only tools are absent in a subagent. */
  readonly parentAgentId?: string;
  /** What the model can do, e.g. `dynamically_loaded_tools` (changeable later through IAgentModelService). */
  readonly modelCapabilities?: readonly ModelCapability[];
  /** Rebinds services before anything is resolved (tests, hosts). */
  readonly overrides?: (container: Container) => void;
}

/** An Agent scope as code below the composition root sees it. */
export interface ScopedAgent {
  readonly id: string;
  readonly container: Container;
  get<T>(id: ServiceIdentifier<T>): T;
  readonly executor: IAgentToolExecutorService;
  modelTools(): ModelToolInfo[];
  readonly isDisposed: boolean;
  dispose(): Promise<void>;
}

/**
 * Creates Agent scopes in the App (App scope; the App binds itself). The Agent tool creates its
 * children with it, so a subagent is an ordinary agent of the same App.
 */
export interface IAgentFactory {
  createAgent(options?: CreateAgentOptions): ScopedAgent;
}
export const IAgentFactory = createServiceId<IAgentFactory>('AgentFactory');
