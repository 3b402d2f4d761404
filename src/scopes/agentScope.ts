import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { Container, type ServiceIdentifier } from 'inversify';
import { DisposableStore } from '../base/lifecycle';
import { IInitialModelCapabilities } from '../services/model/model';
import { IInitialProfile } from '../services/profile/profile';
import { IConfigService } from '../services/config/config';
import { createBwrapRuntime } from '../services/runtime/bwrapRuntime';
import { createLocalRuntime } from '../services/runtime/localRuntime';
import { IInitialRuntime, type Runtime } from '../services/runtime/runtime';
import { IBuiltinToolAssemblyService } from '../services/toolAssembly/builtinToolAssembly';
import { IAgentToolExecutorService } from '../services/executor/toolExecutor';
import { IAgentServiceAccessor, IAgentToolActivationService } from '../services/toolActivation/toolActivation';
import { IAgentToolRegistryService } from '../services/toolRegistry/toolRegistry';
import { IAgentToolSelectService, type ModelToolInfo } from '../services/toolSelect/toolSelect';
import { type AgentOptions, IAgentOptions } from '../services/workspace/workspace';
import { IAgentStartup } from '../di/agentStartup';
import { ISessionInteractionService } from '../services/interaction/interaction';
import { CORE_AGENT_STARTUP, coreAgentModule } from './coreModules';
import type { Feature } from '../di/feature';
import type { AgentToolContribution, ServiceAccessor } from '../di/toolContribution';
import type { CreateAgentOptions, ScopedAgent } from '../services/agentFactory/agentFactory';

export type { CreateAgentOptions } from '../services/agentFactory/agentFactory';

export class AgentCreationError extends Error {
  override readonly name = 'AgentCreationError';
}

function canonicalDirectory(path: string, what: string): string {
  let real: string;
  try {
    real = fs.realpathSync.native(path);
  } catch {
    throw new AgentCreationError(`${what} "${path}" does not exist.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new AgentCreationError(`${what} "${path}" is not a directory.`);
  return real;
}

/** What an Agent needs from its App; keeps the two classes from importing each other. */
export interface AgentHost {
  readonly container: Container;
  readonly features: readonly Feature[];
  forget(agent: Agent): void;
}

/**
 * An Agent scope: a child container of the App's, with the agent's runtime, profile, tool
 * registry, activation and everything features bind per agent. Disposing it leaves the App intact.
 */
export class Agent implements ScopedAgent {
  readonly container: Container;
  readonly id: string;
  private readonly disposables = new DisposableStore();
  /**
   * Builtin tools whose classes are not bound yet: each is bound on its first resolution (which
   * activation performs), so an agent pays only for the tools it activates (a subagent, few).
   */
  private readonly unboundTools = new Map<ServiceIdentifier<unknown>, AgentToolContribution>();
  private disposed = false;
  private temporaryDataDir: string | undefined;
  /** The sandbox's private TMPDIR, removed with the agent. */
  private sandboxTempDir: string | undefined;

  constructor(
    private readonly host: AgentHost,
    id: string,
    options: CreateAgentOptions,
  ) {
    this.id = id;
    const cwd = canonicalDirectory(nodePath.resolve(options.cwd ?? process.cwd()), 'Working directory');
    const agentOptions: AgentOptions = {
      id,
      cwd,
      additionalDirs: (options.additionalDirs ?? []).map((d) => canonicalDirectory(nodePath.resolve(cwd, d), 'Additional directory')),
      homeDir: options.homeDir ?? os.homedir(),
      dataDir: options.dataDir !== undefined ? nodePath.resolve(options.dataDir) : this.createTemporaryDataDir(id),
      disabledTools: [...(options.disabledTools ?? [])],
      ...(options.parentAgentId !== undefined ? { parentAgentId: options.parentAgentId } : {}),
    };
    if (options.parentAgentId !== undefined && (typeof options.parentAgentId !== 'string' || options.parentAgentId === '' || options.parentAgentId === id)) {
      throw new AgentCreationError(`parentAgentId ${JSON.stringify(options.parentAgentId)} is invalid: give the id of the agent that starts this one (not its own id), or leave it out for a main agent.`);
    }

    if (host.container.isCurrentBound(ISessionInteractionService)) {
      throw new AgentCreationError(
        'ISessionInteractionService is bound in the App container, but every agent binds its own, so that binding would never be asked. ' +
          'Bind the host per agent instead: createAgent({ overrides: (c) => c.rebind(ISessionInteractionService).toConstantValue(host) }), ' +
          'or later agent.container.rebind(ISessionInteractionService).toConstantValue(host).',
      );
    }
    const container = new Container({ parent: host.container });
    this.container = container;
    container.bind(IAgentOptions).toConstantValue(agentOptions);
    container.bind(IInitialRuntime).toConstantValue(options.runtime ?? this.configuredRuntime(agentOptions));
    container.bind(IInitialProfile).toConstantValue(options.profile);
    container.bind(IInitialModelCapabilities).toConstantValue([...(options.modelCapabilities ?? [])]);
    const accessor: ServiceAccessor = { get: (serviceId) => this.get(serviceId) };
    container.bind(IAgentServiceAccessor).toConstantValue(accessor);
    container.load(coreAgentModule);
    for (const feature of host.features) this.loadFeature(feature);
    // An App service: resolved where its plan is cached, not planned again in every agent's container.
    const assembly = host.container.get(IBuiltinToolAssemblyService);
    for (const contribution of assembly.contributions) this.unboundTools.set(contribution.id, contribution);
    options.overrides?.(container);

    this.disposables.add(
      // Removed tools leave the active set here; their classes are unbound by unloadFeature
      // (asynchronously: a tool's disposer may be async).
      assembly.onDidChange(({ added }) => {
        for (const contribution of added) this.unboundTools.set(contribution.id, contribution);
        this.get(IAgentToolActivationService).recompute();
      }),
    );
    this.get(IAgentToolActivationService).recompute();
    // Services that wire hooks and guards exist from the start: the core's and the features' lists,
    // then what a host bound to IAgentStartup.
    for (const id of CORE_AGENT_STARTUP) this.get(id);
    for (const feature of host.features) for (const id of feature.agentStartup) this.get(id);
    if (container.isBound(IAgentStartup)) container.getAll(IAgentStartup);
  }

  get<T>(id: ServiceIdentifier<T>): T {
    const tool = this.unboundTools.get(id);
    if (tool) {
      this.unboundTools.delete(id);
      this.bindTool(tool);
    }
    return this.container.get(id);
  }

  get registry() {
    return this.get(IAgentToolRegistryService);
  }

  get activation() {
    return this.get(IAgentToolActivationService);
  }

  get executor() {
    return this.get(IAgentToolExecutorService);
  }

  /**
   * The tools to send to the model now: active ones, with deferred tools only once loaded when
   * deferred loading is on. Format them with toOpenAiTools / toAnthropicTools.
   */
  modelTools(): ModelToolInfo[] {
    return this.get(IAgentToolSelectService).modelTools();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** @internal Loads a feature's Agent-scope bindings (when a feature is added to the App). */
  loadFeature(feature: Feature): void {
    if (feature.agentModule) this.container.load(feature.agentModule);
  }

  /** @internal Unbinds a removed feature's tools and Agent-scope bindings, running their disposers. */
  async unloadFeature(feature: Feature): Promise<void> {
    for (const contribution of feature.tools) {
      this.unboundTools.delete(contribution.id);
      if (this.container.isCurrentBound(contribution.id)) await this.container.unbindAsync(contribution.id);
    }
    if (feature.agentModule) await this.container.unloadAsync(feature.agentModule);
  }

  private bindTool(contribution: AgentToolContribution): void {
    // An override may have bound the id already; that binding stands.
    if (!this.container.isCurrentBound(contribution.id)) {
      this.container.bind(contribution.id).to(contribution.toolClass).inSingletonScope();
    }
  }

  /**
   * The runtime config `sandbox` asks for: the local machine, or bubblewrap around every process
   * (workspace roots and `sandbox.writable` writable, a private TMPDIR). Throws
   * SandboxUnavailableError when bubblewrap cannot run here, never falling back to no sandbox.
   */
  private configuredRuntime(agent: AgentOptions): Runtime {
    const sandbox = this.host.container.get(IConfigService).config.sandbox;
    if (sandbox.mode === 'none') return createLocalRuntime();
    const writable = sandbox.writable.map((dir) => canonicalDirectory(nodePath.resolve(agent.cwd, dir), 'sandbox.writable: folder'));
    const tempDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), `toolhost-sandbox-${agent.id}-`));
    try {
      const runtime = createBwrapRuntime({
        writable: [agent.cwd, ...agent.additionalDirs, ...writable],
        tempDir,
        network: sandbox.network,
        ...(sandbox.bwrapPath !== undefined ? { bwrapPath: sandbox.bwrapPath } : {}),
      });
      this.sandboxTempDir = tempDir;
      return runtime;
    } catch (error) {
      fs.rmSync(tempDir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Without a dataDir the agent gets a fresh private folder of its own (0700, from mkdtemp): never
   * one another agent, App or a later process with the same pid would also use, so no state
   * (plan mode, cron jobs, todos) leaks between them. Durable state needs an explicit dataDir.
   */
  private createTemporaryDataDir(id: string): string {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), `toolhost-${id}-`));
    this.temporaryDataDir = dir;
    return dir;
  }

  /** Runs the agent's disposers (tools, tasks, registrations); the App stays intact. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.host.forget(this);
    this.disposables.dispose();
    await this.container.unbindAllAsync();
    // A temporary data folder nothing was written to goes; one holding spilled output or logs stays,
    // since results name those files.
    if (this.temporaryDataDir !== undefined) removeIfEmpty(this.temporaryDataDir);
    if (this.sandboxTempDir !== undefined) fs.rmSync(this.sandboxTempDir, { recursive: true, force: true });
  }
}

/** Removes a folder tree that holds only empty folders; leaves it as it is when it holds a file. */
function removeIfEmpty(dir: string): void {
  try {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) return;
      removeIfEmpty(nodePath.join(dir, entry.name));
    }
    fs.rmdirSync(dir);
  } catch {
    // Not empty (a file appeared), or already gone: leave it.
  }
}
