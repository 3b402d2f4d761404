import type { ToolSource } from '../../src/tool/contract';
import { findBlockingToolPolicyLayer, isToolActive, type ToolPolicy, type ToolPolicyLayers } from '../../src/toolPolicy/evaluate';
import { findInactiveToolPatterns } from '../../src/toolPolicy/findInactiveToolPatterns';

describe('isToolActive()', () => {
  test.each<[string, ToolPolicy, string, ToolSource, boolean]>([
    ['no policy admits everything', {}, 'Read', 'builtin', true],
    ['allowlist admits a listed builtin', { tools: ['Read', 'Grep'] }, 'Read', 'builtin', true],
    ['allowlist blocks an unlisted builtin', { tools: ['Grep'] }, 'Read', 'builtin', false],
    ['an empty allowlist blocks everything', { tools: [] }, 'Read', 'builtin', false],
    ['builtin names match exactly, not case-insensitively', { tools: ['read'] }, 'Read', 'builtin', false],
    ['a glob never admits a builtin', { tools: ['Re*'] }, 'Read', 'builtin', false],
    ['* never admits a builtin', { tools: ['*'] }, 'Read', 'builtin', false],
    ['an MCP glob admits matching MCP tools', { tools: ['mcp__github__*'] }, 'mcp__github__create_issue', 'mcp', true],
    ['an MCP glob does not admit another server', { tools: ['mcp__github__*'] }, 'mcp__gitlab__x', 'mcp', false],
    ['an allowlist without MCP patterns blocks MCP tools', { tools: ['Read'] }, 'mcp__github__x', 'mcp', false],
    ['an exact MCP name admits it', { tools: ['mcp__github__x'] }, 'mcp__github__x', 'mcp', true],
    ['disallowedTools blocks an exact builtin', { disallowedTools: ['Bash'] }, 'Bash', 'builtin', false],
    ['disallowedTools * blocks nothing builtin', { disallowedTools: ['*'] }, 'Bash', 'builtin', true],
    ['disallowedTools MCP glob blocks', { disallowedTools: ['mcp__*'] }, 'mcp__a__b', 'mcp', false],
    ['deny wins over allow', { tools: ['Bash'], disallowedTools: ['Bash'] }, 'Bash', 'builtin', false],
    ['user tools match exactly too', { tools: ['deploy'] }, 'deploy', 'user', true],
  ])('%s', (_name, policy, name, source, expected) => {
    expect(isToolActive(policy, name, source)).toBe(expected);
  });
});

describe('findBlockingToolPolicyLayer()', () => {
  const layers: ToolPolicyLayers = {
    workspaceDisabledTools: ['Bash'],
    profile: { tools: ['Read', 'Grep', 'Bash', 'Write', 'select_tools'], disallowedTools: ['Write'] },
    config: { enabled: [], disabled: ['Grep'] },
    sessionDisabledTools: ['Read'],
  };
  test.each<[string, string | undefined]>([
    ['Bash', 'workspace'],
    ['Write', 'profile'],
    ['Edit', 'profile'],
    ['Grep', 'config'],
    ['Read', 'session'],
    ['select_tools', undefined],
  ])('%s → %s', (name, layer) => {
    expect(findBlockingToolPolicyLayer(layers, name)).toBe(layer);
  });

  test('a non-empty config.enabled is an allowlist; an empty one is not', () => {
    expect(findBlockingToolPolicyLayer({ config: { enabled: ['Read'] } }, 'Grep')).toBe('config');
    expect(findBlockingToolPolicyLayer({ config: { enabled: [] } }, 'Grep')).toBeUndefined();
  });

  test('ignoreProfileAllowlist keeps the profile denylist', () => {
    const profile = { profile: { tools: ['Read'], disallowedTools: ['select_tools'] } };
    expect(findBlockingToolPolicyLayer({ profile: { tools: ['Read'] } }, 'select_tools', 'builtin', { ignoreProfileAllowlist: true })).toBeUndefined();
    expect(findBlockingToolPolicyLayer(profile, 'select_tools', 'builtin', { ignoreProfileAllowlist: true })).toBe('profile');
  });
});

describe('findInactiveToolPatterns()', () => {
  const known = new Set(['Read', 'Grep', 'Bash']);
  test('classifies patterns that can never match', () => {
    expect(
      findInactiveToolPatterns(['Read', 'Re*', '*', 'mcp__github', 'mcp__github__*', 'mcp__github__x', 'mcp__*', 'Raed', 'Grep'], (n) => known.has(n)),
    ).toEqual([
      { pattern: 'Re*', reason: 'wildcard-not-mcp' },
      { pattern: '*', reason: 'wildcard-not-mcp' },
      { pattern: 'mcp__github', reason: 'incomplete-mcp-name' },
      { pattern: 'Raed', reason: 'unknown-tool' },
    ]);
  });

  test('without isKnown, unknown names are not reported', () => {
    expect(findInactiveToolPatterns(['Whatever', 'mcp__x'])).toEqual([{ pattern: 'mcp__x', reason: 'incomplete-mcp-name' }]);
  });
});
