import type { Container } from 'inversify';
import { ProfileError } from '../services/profile/profile';
import { IBuiltinToolAssemblyService } from '../services/toolAssembly/builtinToolAssembly';
import { type Agent } from '../scopes/agentScope';
import { type App, createApp } from '../scopes/appScope';
import { describeInactiveToolPattern, findInactiveToolPatterns } from '../toolPolicy/findInactiveToolPatterns';
import { type ResolvedWorkspace, type WorkspaceFlags, resolveWorkspace } from './commonOptions';
import { type CliIo, UsageError } from './io';

export interface AgentSession {
  readonly app: App;
  readonly agent: Agent;
  readonly workspace: ResolvedWorkspace;
  dispose(): Promise<void>;
}

/** An App with every builtin feature and one agent for the flags' workspace and profile. */
export function openAgentSession(flags: WorkspaceFlags, io: CliIo, overrides?: (agent: Container) => void): AgentSession {
  const workspace = resolveWorkspace(flags, io);
  const app = createApp({ config: workspace.config });
  let agent: Agent;
  try {
    agent = app.createAgent({ cwd: workspace.cwd, profile: flags.profile, modelCapabilities: flags.modelCapability ?? [], overrides });
  } catch (error) {
    void app.dispose();
    if (error instanceof ProfileError) throw new UsageError(`--profile: ${error.message}`);
    throw error;
  }
  warnAboutInactivePatterns(app, workspace, flags.profile, io);
  return { app, agent, workspace, dispose: () => app.dispose() };
}

function warnAboutInactivePatterns(app: App, workspace: ResolvedWorkspace, profileFlag: string | undefined, io: CliIo): void {
  const builtin = new Set(app.get(IBuiltinToolAssemblyService).contributions.map((c) => c.name));
  const isKnown = (name: string) => builtin.has(name);
  const lists: Array<[string, readonly string[] | undefined]> = [
    ['tools.enabled', workspace.config.tools.enabled],
    ['tools.disabled', workspace.config.tools.disabled],
  ];
  const profileName = profileFlag ?? workspace.config.profile;
  const profile = profileName ? workspace.config.profiles[profileName] : undefined;
  if (profileName && profile) {
    lists.push([`profiles.${profileName}.tools`, profile.tools], [`profiles.${profileName}.disallowedTools`, profile.disallowedTools]);
  }
  for (const [where, patterns] of lists) {
    for (const inactive of findInactiveToolPatterns(patterns ?? [], isKnown)) {
      io.stderr.write(`warning: ${where}: ${describeInactiveToolPattern(inactive)}\n`);
    }
  }
}
