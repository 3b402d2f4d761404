import picomatch from 'picomatch';
import { isMcpToolName, type ToolSource } from '../tool/contract';
import { rewriteGlobBackslashes } from '../tool/globBackslashes';

/**
 * A tool policy: `tools` is an allowlist (undefined admits everything), `disallowedTools` a
 * denylist. Builtin and user tool names match exactly; globs apply to MCP names only
 * (`mcp__github__*`), so `*` or `Re*` never admit or block a builtin.
 */
export interface ToolPolicy {
  readonly tools?: readonly string[];
  readonly disallowedTools?: readonly string[];
}

function globMatches(name: string, pattern: string): boolean {
  const glob = rewriteGlobBackslashes(pattern);
  return glob !== undefined && picomatch.isMatch(name, glob, { dot: true });
}

function matchesAny(patterns: readonly string[], name: string, source: ToolSource): boolean {
  if (source === 'mcp' || isMcpToolName(name)) {
    return patterns.some((pattern) => isMcpToolName(pattern) && (pattern === name || globMatches(name, pattern)));
  }
  return patterns.includes(name);
}

export function isToolActive(policy: ToolPolicy, name: string, source: ToolSource = 'builtin'): boolean {
  if (policy.tools !== undefined && !matchesAny(policy.tools, name, source)) return false;
  if (policy.disallowedTools !== undefined && matchesAny(policy.disallowedTools, name, source)) return false;
  return true;
}

/** The layers a tool must pass, all of them (DESIGN §5). */
export interface ToolPolicyLayers {
  /** Tools the workspace disables (a veto). */
  readonly workspaceDisabledTools?: readonly string[];
  /** The agent's profile. */
  readonly profile?: ToolPolicy;
  /** Config `tools.enabled` (an allowlist when non-empty) and `tools.disabled`. */
  readonly config?: { readonly enabled?: readonly string[]; readonly disabled?: readonly string[] };
  /** Tools disabled for this session. */
  readonly sessionDisabledTools?: readonly string[];
}

export type ToolPolicyLayerName = 'workspace' | 'profile' | 'config' | 'session';

export interface ToolPolicyOptions {
  /** Skip the profile allowlist (its denylist still applies). */
  readonly ignoreProfileAllowlist?: boolean;
  /** Skip the profile and config allowlists (denylists still apply); for meta-tools such as select_tools. */
  readonly ignoreAllowlists?: boolean;
}

/** The first layer that rejects the tool, or undefined when every layer admits it. */
export function findBlockingToolPolicyLayer(
  layers: ToolPolicyLayers,
  name: string,
  source: ToolSource = 'builtin',
  options: ToolPolicyOptions = {},
): ToolPolicyLayerName | undefined {
  if (layers.workspaceDisabledTools && !isToolActive({ disallowedTools: layers.workspaceDisabledTools }, name, source)) {
    return 'workspace';
  }
  if (layers.profile) {
    const skipAllowlist = options.ignoreProfileAllowlist || options.ignoreAllowlists;
    const profile = skipAllowlist ? { disallowedTools: layers.profile.disallowedTools } : layers.profile;
    if (!isToolActive(profile, name, source)) return 'profile';
  }
  if (layers.config) {
    const enabled = !options.ignoreAllowlists && layers.config.enabled && layers.config.enabled.length > 0 ? layers.config.enabled : undefined;
    if (!isToolActive({ tools: enabled, disallowedTools: layers.config.disabled }, name, source)) return 'config';
  }
  if (layers.sessionDisabledTools && !isToolActive({ disallowedTools: layers.sessionDisabledTools }, name, source)) {
    return 'session';
  }
  return undefined;
}

export function isToolActiveLayered(
  layers: ToolPolicyLayers,
  name: string,
  source: ToolSource = 'builtin',
  options: ToolPolicyOptions = {},
): boolean {
  return findBlockingToolPolicyLayer(layers, name, source, options) === undefined;
}
