import { Feature } from '../../src/di/feature';
import { createServiceId } from '../../src/di/serviceId';
import { IConfigService } from '../../src/services/config/config';
import { IBuiltinToolAssemblyService } from '../../src/services/toolAssembly/builtinToolAssembly';
import { IAgentProfileService } from '../../src/services/profile/profile';
import { IAgentToolRegistryService, type ToolNameConflict } from '../../src/services/toolRegistry/toolRegistry';
import { IAgentWorkspaceService } from '../../src/services/workspace/workspace';
import type { AgentTool } from '../../src/di/toolContribution';
import { IAgentToolPolicyService } from '../../src/services/toolPolicy/toolPolicy';
import { useAgent } from '../helpers/agentHarness';
import { constructionCount, testTool } from '../helpers/testTools';

const fx = useAgent();

function names(agent: { registry: { list(): readonly { tool: { name: string } }[] } }): string[] {
  return agent.registry.list().map((r) => r.tool.name);
}

function toolsFeature(...toolNames: string[]): Feature {
  const feature = new Feature('tools');
  for (const name of toolNames) feature.contributeTool(testTool(name));
  return feature;
}

describe('AgentToolActivationService', () => {
  test('the profile allowlist and disallowedTools decide, and a profile switch adds and removes tools', async () => {
    const { agent } = fx.open({
      features: [toolsFeature('Alpha', 'Beta', 'Gamma')],
      config: { profiles: { narrow: { tools: ['Alpha', 'Beta'], disallowedTools: ['Beta'] } } },
      profile: 'narrow',
    });
    expect(names(agent)).toEqual(['Alpha']);
    expect(agent.activation.status()).toEqual([
      { name: 'Alpha', state: 'active' },
      { name: 'Beta', state: 'inactive', reason: 'excluded by the profile' },
      { name: 'Gamma', state: 'inactive', reason: 'excluded by the profile' },
    ]);
    agent.get(IAgentProfileService).set('default');
    expect(names(agent)).toEqual(['Alpha', 'Beta', 'Gamma']);
    agent.get(IAgentProfileService).set({ disallowedTools: ['Alpha'] });
    expect(names(agent)).toEqual(['Beta', 'Gamma']);
  });

  test('config tools.enabled / tools.disabled changes recompute the active set', async () => {
    const { app, agent } = fx.open({ features: [toolsFeature('Alpha', 'Beta', 'Gamma')] });
    const config = app.get(IConfigService);
    config.update({ tools: { enabled: ['Alpha', 'Gamma'] } });
    expect(names(agent)).toEqual(['Alpha', 'Gamma']);
    // update() merges: the allowlist stays until it is replaced.
    config.update({ tools: { disabled: ['Alpha'] } });
    expect(names(agent)).toEqual(['Gamma']);
    config.update({ tools: { enabled: [] } });
    expect(names(agent)).toEqual(['Beta', 'Gamma']);
    config.update({ tools: { disabled: [] } });
    expect(names(agent)).toEqual(['Alpha', 'Beta', 'Gamma']);
  });

  test('a call to a builtin that exists but is inactive says why, not "not found"', async () => {
    const { agent } = fx.open({ features: [toolsFeature('Alpha', 'Beta')], config: { tools: { disabled: ['Beta'] } } });
    const [beta, ghost] = await agent.executor.execute([
      { id: 'b', name: 'Beta', arguments: {} },
      { id: 'g', name: 'Ghost', arguments: {} },
    ]);
    expect([beta!.outcome, beta!.output]).toEqual([
      'rejected',
      'Tool "Beta" exists but is not active (excluded by config tools.enabled/tools.disabled), so it cannot be called now; use another tool.',
    ]);
    expect(ghost!.output).toBe('Tool "Ghost" not found');
  });

  test('a named profile follows config changes to its definition', async () => {
    const { app, agent } = fx.open({ features: [toolsFeature('Alpha', 'Beta')], config: { profile: 'p', profiles: { p: { tools: ['Alpha'] } } } });
    expect(names(agent)).toEqual(['Alpha']);
    app.get(IConfigService).update({ profiles: { p: { tools: ['Beta'] } } });
    expect(names(agent)).toEqual(['Beta']);
  });

  test('workspace and session disables are vetoes', async () => {
    const { agent } = fx.open({ features: [toolsFeature('Alpha', 'Beta', 'Gamma')], disabledTools: ['Gamma'] });
    expect(names(agent)).toEqual(['Alpha', 'Beta']);
    agent.get(IAgentToolPolicyService).setSessionDisabledTools(['Alpha']);
    expect(names(agent)).toEqual(['Beta']);
    expect(agent.activation.status().find((s) => s.name === 'Alpha')?.reason).toBe('disabled for this session');
    agent.get(IAgentWorkspaceService).setDisabledTools([]);
    agent.get(IAgentToolPolicyService).setSessionDisabledTools([]);
    expect(names(agent)).toEqual(['Alpha', 'Beta', 'Gamma']);
  });

  test('when(accessor) is evaluated before construction, with an accessor valid only during the call', async () => {
    let allow = false;
    let kept: { get: (id: symbol) => unknown } | undefined;
    const gated = testTool('Gated', {
      countConstructions: true,
      when: (accessor) => {
        kept = accessor as never;
        return allow && accessor.get(IAgentWorkspaceService).cwd === fx.dir;
      },
    });
    const { agent } = fx.open({ features: [new Feature('g').contributeTool(gated)] });
    expect(names(agent)).toEqual([]);
    expect(constructionCount('Gated')).toBe(0);
    allow = true;
    agent.activation.recompute();
    expect(names(agent)).toEqual(['Gated']);
    expect(() => kept!.get(IAgentWorkspaceService as symbol)).toThrow('A when() accessor is only valid while the predicate runs.');
    allow = false;
    agent.activation.recompute();
    expect(names(agent)).toEqual([]);
  });

  test('a tool whose constructor throws is reported and skipped; the others activate', async () => {
    const failures: string[] = [];
    const broken = testTool('Broken', { when: () => true });
    const { agent } = fx.open({
      features: [new Feature('b').contributeTool(broken).contributeTool(testTool('Fine'))],
      overrides: (c) => {
        c.rebind(broken.id).toDynamicValue(() => {
          throw new Error('no disk');
        });
      },
    });
    agent.activation.onDidFail((f) => failures.push(`${f.name}: ${f.reason}`));
    agent.activation.recompute();
    expect(names(agent)).toEqual(['Fine']);
    expect(agent.activation.status()[0]).toMatchObject({ name: 'Broken', state: 'failed' });
    expect(failures[0]).toMatch(/^Broken: construction failed: .*no disk/);
  });
});

describe('AgentToolRegistryService', () => {
  test('a taken name is refused and reported, never replaced; the owner can release it', async () => {
    const { agent } = fx.open({ features: [toolsFeature('Alpha')] });
    const registry = agent.get(IAgentToolRegistryService);
    const builtin = registry.get('Alpha')!.tool;
    const conflicts: ToolNameConflict[] = [];
    registry.onDidConflict((c) => conflicts.push(c));
    const impostor = { ...builtin, description: 'impostor' } as AgentTool;
    const result = registry.register(impostor, { source: 'user' });
    expect(result.ok).toBe(false);
    expect(conflicts).toEqual([{ name: 'Alpha', existing: { source: 'builtin', owner: 'builtin:test' }, refused: { source: 'user', owner: 'user' } }]);
    expect(registry.get('Alpha')!.tool).toBe(builtin);
  });

  test('a builtin that lost its name to another source activates once the name is released', async () => {
    const { app, agent } = fx.open({ features: [toolsFeature('Alpha')], config: { tools: { disabled: ['Alpha'] } } });
    const registry = agent.get(IAgentToolRegistryService);
    const userTool = { name: 'Alpha', description: 'user tool', parameters: {}, resolveExecution: () => ({ approvalRule: 'Alpha', execute: async () => ({ output: '' }) }) } as AgentTool;
    const held = registry.register(userTool, { source: 'user' });
    app.get(IConfigService).update({ tools: { enabled: [], disabled: [] } });
    expect(agent.activation.status()).toEqual([{ name: 'Alpha', state: 'conflict', reason: 'the name is taken by user' }]);
    expect(registry.get('Alpha')!.source).toBe('user');
    if (held.ok) held.registration.dispose();
    expect(registry.get('Alpha')!.source).toBe('builtin');
  });

  test('list() is sorted by name and carries source and disclosure', async () => {
    const feature = new Feature('x').contributeTool(testTool('Zeta')).contributeTool(testTool('Beta', { disclosure: 'deferred' }));
    const { agent } = fx.open({ features: [feature] });
    expect(agent.registry.list().map((r) => [r.tool.name, r.source, r.disclosure])).toEqual([
      ['Beta', 'builtin', 'deferred'],
      ['Zeta', 'builtin', 'inline'],
    ]);
  });

  test('two contributions with one name: the second is refused and reported', async () => {
    const first = testTool('Same');
    const second = testTool('Same');
    const { app, agent } = fx.open({ features: [new Feature('a').contributeTool(first), new Feature('b').contributeTool(second)] });
    expect(names(agent)).toEqual(['Same']);
    expect(app.get(IBuiltinToolAssemblyService).duplicates.map((d) => [d.name, d.kept === first, d.refused === second])).toEqual([['Same', true, true]]);
  });
});

test('createServiceId keeps identity across calls', () => {
  expect(createServiceId('X')).toBe(createServiceId('X'));
});
