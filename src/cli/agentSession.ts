import type { Container } from 'inversify';
import { type CommandHookProblem, IAgentCommandHooksService } from '../features/hooks/commandHooks';
import { IAgentMcpService } from '../features/mcp/client/agentMcp';
import { IMcpClientOptions } from '../features/mcp/client/mcpConnections';
import { IAgentStateStore } from '../services/agentState/agentState';
import { ProfileError } from '../services/profile/profile';
import { SandboxUnavailableError } from '../services/runtime/bwrapRuntime';
import { IBuiltinToolAssemblyService } from '../services/toolAssembly/builtinToolAssembly';
import { type Agent } from '../scopes/agentScope';
import { type App, type AppConfigInput, createApp, type CreateAppOptions } from '../scopes/appScope';
import { builtinFeatures } from '../scopes/builtinFeatures';
import { ConfigError } from '../services/config/configLoader';
import { errorMessage } from '../base/errors';
import { createCliFeature, type LoadedFeatureModule, loadConfiguredFeatures } from './configFeatures';
import { describeInactiveToolPattern, findInactiveToolPatterns } from '../toolPolicy/findInactiveToolPatterns';
import { type ResolvedWorkspace, type WorkspaceFlags, resolveWorkspace } from './commonOptions';
import { type CliIo, UsageError } from './io';

export interface AgentSession {
  readonly app: App;
  readonly agent: Agent;
  readonly workspace: ResolvedWorkspace;
  /** Waits until no MCP server is still starting (each is bounded by its startupTimeoutMs), or Ctrl-C. */
  whenMcpSettled(): Promise<void>;
  dispose(): Promise<void>;
}

export interface AgentSessionOptions {
  /** Rebinds services of the agent's container (interactions, prompt injection). */
  readonly overrides?: (agent: Container) => void;
  /** Warnings go to stderr as JSON lines (`{"event":"warning","message":…}`), as `run --json` prints its events. */
  readonly jsonWarnings?: boolean;
  /** `--agent-id` (checked); default the App's first id, `agent-1`. */
  readonly agentId?: string;
}

/** A warning on stderr: a `warning: …` line, or a JSON line beside `run --json`'s events. */
export function writeWarning(io: Pick<CliIo, 'stderr'>, message: string, json = false): void {
  io.stderr.write(json ? JSON.stringify({ event: 'warning', message }) + '\n' : `warning: ${message}\n`);
}

/** An App with every builtin feature and those of config `features`, for the flags' workspace; agents are created on demand. */
export interface AppSession {
  readonly app: App;
  readonly workspace: ResolvedWorkspace;
  /** An agent of the flags' profile in the workspace, its warnings on stderr; a bad profile is a usage error. */
  createAgent(options?: { readonly id?: string; readonly dataDir?: string; readonly overrides?: (agent: Container) => void }): Agent;
  dispose(): Promise<void>;
}

export function openAppSession(flags: WorkspaceFlags, io: CliIo, options: Pick<AgentSessionOptions, 'jsonWarnings'> = {}): AppSession {
  const warn = (message: string) => writeWarning(io, message, options.jsonWarnings);
  const workspace = resolveWorkspace(flags, io);
  const modules = loadConfiguredFeatures(workspace.configInput, workspace.configFile, workspace.configSource, io.library);
  const app = createAppWith(modules, workspace.configSource, {
    features: [...builtinFeatures(), createCliFeature(), ...modules.flatMap((m) => m.features)],
    config: workspace.configInput as AppConfigInput,
    configSource: workspace.configSource,
    // MCP stdio servers start in the workspace, and relative `cwd`s resolve there.
    overrides: (container) => {
      if (container.isBound(IMcpClientOptions)) container.rebind(IMcpClientOptions).toConstantValue({ workingDirectory: workspace.cwd });
    },
  });
  app.get(IAgentStateStore).onWarning((warning) => warn(warning.message));
  return {
    app,
    workspace,
    createAgent: (agentOptions = {}) => {
      let agent: Agent;
      try {
        agent = app.createAgent({
          cwd: workspace.cwd,
          profile: flags.profile,
          modelCapabilities: flags.modelCapability ?? [],
          ...(agentOptions.id !== undefined ? { id: agentOptions.id } : {}),
          ...(agentOptions.dataDir !== undefined ? { dataDir: agentOptions.dataDir } : {}),
          overrides: agentOptions.overrides,
        });
      } catch (error) {
        if (error instanceof ProfileError) throw new UsageError(`--profile: ${error.message}`);
        // Never run unsandboxed instead: say why and how to fix it (exit code 2).
        if (error instanceof SandboxUnavailableError) throw new UsageError(error.message);
        throw error;
      }
      const mcp = agent.container.isBound(IAgentMcpService) ? agent.get(IAgentMcpService) : undefined;
      mcp?.onWarning((warning) => warn(warning.message));
      // A hook that fails does not block its call; the person who configured it must still hear of it.
      if (agent.container.isBound(IAgentCommandHooksService)) agent.get(IAgentCommandHooksService).onDidReportProblem((problem) => warn(hookWarning(problem)));
      return agent;
    },
    dispose: () => app.dispose(),
  };
}

/** An App with every builtin feature, those of config `features`, and one agent for the flags' workspace and profile. */
export function openAgentSession(flags: WorkspaceFlags, io: CliIo, options: AgentSessionOptions = {}): AgentSession {
  const session = openAppSession(flags, io, options);
  let agent: Agent;
  try {
    agent = session.createAgent({ ...(options.agentId !== undefined ? { id: options.agentId } : {}), overrides: options.overrides });
  } catch (error) {
    void session.dispose();
    throw error;
  }
  warnAboutInactivePatterns(session.app, flags.profile, (message) => writeWarning(io, message, options.jsonWarnings));
  const mcp = agent.container.isBound(IAgentMcpService) ? agent.get(IAgentMcpService) : undefined;
  return {
    app: session.app,
    agent,
    workspace: session.workspace,
    whenMcpSettled: async () => mcp?.whenSettled(io.interrupt),
    dispose: () => session.dispose(),
  };
}

function hookWarning(problem: CommandHookProblem): string {
  return `${problem.event} hook ${JSON.stringify(problem.command)} (for ${problem.toolName}, call ${problem.toolCallId}): ${problem.message}; it did not block the call`;
}

/** createApp; a configured feature the App refuses (a taken id, a missing requirement) is a usage error naming its module. */
function createAppWith(modules: readonly LoadedFeatureModule[], configSource: string, options: CreateAppOptions): App {
  try {
    return createApp(options);
  } catch (error) {
    if (error instanceof ConfigError || modules.length === 0) throw error;
    const message = errorMessage(error);
    const culprit = modules.find((m) => m.features.some((f) => message.includes(`"${f.id}"`)));
    const from = culprit ? `module "${culprit.specifier}"` : `modules ${modules.map((m) => `"${m.specifier}"`).join(', ')}`;
    throw new UsageError(`${configSource}: features: ${from} was refused: ${message}`);
  }
}

/** Warns about tool patterns of the config and the profile that match no tool. */
export function warnAboutInactivePatterns(app: App, profileFlag: string | undefined, warn: (message: string) => void): void {
  const config = app.config.config;
  const builtin = new Set(app.get(IBuiltinToolAssemblyService).contributions.map((c) => c.name));
  const isKnown = (name: string) => builtin.has(name);
  const lists: Array<[string, readonly string[] | undefined]> = [
    ['tools.enabled', config.tools.enabled],
    ['tools.disabled', config.tools.disabled],
  ];
  const profileName = profileFlag ?? config.profile;
  const profile = profileName ? config.profiles[profileName] : undefined;
  if (profileName && profile) {
    lists.push([`profiles.${profileName}.tools`, profile.tools], [`profiles.${profileName}.disallowedTools`, profile.disallowedTools]);
  }
  for (const [where, patterns] of lists) {
    for (const inactive of findInactiveToolPatterns(patterns ?? [], isKnown)) {
      warn(`${where}: ${describeInactiveToolPattern(inactive)}`);
    }
  }
}
