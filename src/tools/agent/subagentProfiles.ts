import type { IAgentToolRegistryService } from '../../services/toolRegistry/toolRegistry';
import { type AgentConfig, DEFAULT_SUBAGENT_PROFILES, type SubagentProfileConfig } from './agentConfig';
import type { ResolvedSubagentProfile } from './contract';

/** The profiles by name, builtin ones first, config ones over them; sorted by name. */
export function subagentProfiles(config: AgentConfig): ReadonlyMap<string, SubagentProfileConfig> {
  const merged = { ...DEFAULT_SUBAGENT_PROFILES, ...config.profiles };
  return new Map(Object.keys(merged).sort().map((name) => [name, merged[name]!]));
}

/**
 * A profile is read-only when it lists its tools and every one is a tool the parent has that
 * only reads (annotated `readOnlyHint`). A profile without a list may get any tool, so it writes.
 */
function isReadOnly(profile: SubagentProfileConfig, registry: IAgentToolRegistryService): boolean {
  if (profile.tools === undefined || profile.tools.length === 0) return false;
  return profile.tools.every((name) => registry.get(name)?.tool.annotations?.readOnlyHint === true);
}

export function resolveSubagentProfile(name: string, config: AgentConfig, registry: IAgentToolRegistryService): ResolvedSubagentProfile | undefined {
  const entry = subagentProfiles(config).get(name);
  if (!entry) return undefined;
  return {
    profile: {
      name,
      description: entry.description,
      readOnly: isReadOnly(entry, registry),
      ...(entry.instructions !== undefined ? { instructions: entry.instructions } : {}),
      ...(entry.model !== undefined ? { model: entry.model } : {}),
      maxTurns: entry.maxTurns ?? config.maxTurns,
    },
    policy: {
      ...(entry.tools !== undefined ? { tools: [...entry.tools] } : {}),
      ...(entry.disallowedTools !== undefined ? { disallowedTools: [...entry.disallowedTools] } : {}),
    },
  };
}
