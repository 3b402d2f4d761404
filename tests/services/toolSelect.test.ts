import { IAgentModelService } from '../../src/services/model/model';
import { IAgentToolSelectService } from '../../src/services/toolSelect/toolSelect';
import { IAgentUserToolService } from '../../src/services/userTools/userTools';
import { useAgent } from '../helpers/agentHarness';
import { approve, FakeHost } from '../helpers/fakeHost';
import { ISessionInteractionService } from '../../src/services/interaction/interaction';
import type { AppConfigInput } from '../../src/scopes/appScope';

const fx = useAgent({ builtins: true });

const FLAG = { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '1' };
const CAPABLE = ['dynamically_loaded_tools'];

/** Opens an agent whose host runs three user tools: alpha and beta deferred, gamma inline. */
function open(options: { env?: Record<string, string>; capabilities?: string[]; config?: AppConfigInput } = {}): void {
  fx.open({
    env: options.env ?? {},
    config: options.config,
    modelCapabilities: options.capabilities ?? [],
    interactions: new FakeHost({ user_tool: (r) => ({ output: `${r.name} ran` }), approval: approve }),
  });
  const tools = fx.agent.get(IAgentUserToolService);
  for (const name of ['alpha', 'beta']) tools.register({ name, description: `The ${name} tool.`, disclosure: 'deferred' });
  tools.register({ name: 'gamma', description: 'An inline host tool.' });
}

const select = () => fx.agent.get(IAgentToolSelectService);
const listed = () => fx.agent.modelTools().map((t) => t.name);
async function call(name: string, args: unknown = {}) {
  const [result] = await fx.agent.executor.execute([{ id: `call-${name}`, name, arguments: args as Record<string, unknown> }]);
  return result!;
}

describe('deferred loading is off unless both the flag and the model capability are set', () => {
  test.each<[string, Record<string, string>, string[]]>([
    ['neither', {}, []],
    ['only the flag', FLAG, []],
    ['only the capability', {}, CAPABLE],
    ['the flag set to 0', { TOOLHOST_EXPERIMENTAL_TOOL_SELECT: '0' }, CAPABLE],
  ])('%s: deferred tools are inline and select_tools is not there', async (_name, env, capabilities) => {
    open({ env, capabilities });
    expect(select().enabled).toBe(false);
    expect(listed()).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma']));
    expect(listed()).not.toContain('select_tools');
    expect(fx.agent.registry.has('select_tools')).toBe(false);
    expect(select().takeAnnouncement()).toBeUndefined();
    expect((await call('alpha')).output).toBe('alpha ran');
  });
});

describe('deferred loading on', () => {
  beforeEach(() => open({ env: FLAG, capabilities: CAPABLE }));

  test('deferred tools leave the tool list; select_tools joins it', () => {
    expect(select().enabled).toBe(true);
    expect(listed()).toContain('select_tools');
    expect(listed()).toContain('gamma');
    expect(listed()).not.toContain('alpha');
    expect(listed()).not.toContain('beta');
  });

  test('their names are announced once, and removals are announced too', () => {
    expect(select().takeAnnouncement()).toBe(
      '<tools_added>\nalpha\nbeta\n</tools_added>\n\n' +
        'Use the select_tools tool with exact names to load full tool definitions before calling them. Names listed as removed are no longer loadable — do not select them.',
    );
    expect(select().takeAnnouncement()).toBeUndefined();
    fx.agent.get(IAgentUserToolService).unregister('beta');
    fx.agent.get(IAgentUserToolService).register({ name: 'delta', description: 'Another.', disclosure: 'deferred' });
    expect(select().takeAnnouncement()).toBe(
      '<tools_added>\ndelta\n</tools_added>\n\n<tools_removed>\nbeta\n</tools_removed>\n\n' +
        'Use the select_tools tool with exact names to load full tool definitions before calling them. Names listed as removed are no longer loadable — do not select them.',
    );
  });

  test('calling a deferred tool that is not loaded says what to do', async () => {
    expect(await call('alpha')).toMatchObject({
      outcome: 'rejected',
      isError: true,
      output: 'Tool "alpha" is available but not loaded. Call select_tools with ["alpha"] first, then call the tool.',
    });
  });

  test('select_tools loads them; then they are listed and callable', async () => {
    const result = await call('select_tools', { names: ['alpha', 'gamma', 'nope', 'alpha'] });
    expect(result).toMatchObject({
      isError: false,
      outcome: 'executed',
      output: 'Loaded: alpha\nAlready available: gamma\nUnknown tool: nope. Pick from the latest announced tools list.',
    });
    expect(listed()).toContain('alpha');
    expect(listed()).not.toContain('beta');
    expect((await call('alpha')).output).toBe('alpha ran');
    expect((await call('select_tools', { names: ['alpha'] })).output).toBe('Already available: alpha');
  });

  test('one batch [select_tools(alpha), alpha, beta]: alpha, loaded by the earlier call, gives its real result', async () => {
    const order: string[] = [];
    fx.agent.executor.onToolCallStarted((e) => void order.push(`started:${e.toolCallId}`));
    fx.agent.executor.onToolCallFinished((e) => void order.push(`finished:${e.toolCallId}`));
    const results = await fx.agent.executor.execute([
      { id: 'load', name: 'select_tools', arguments: { names: ['alpha'] } },
      { id: 'use', name: 'alpha', arguments: {} },
      { id: 'other', name: 'beta', arguments: {} },
    ]);
    expect(results.map((r) => [r.toolCallId, r.outcome, r.output])).toEqual([
      ['load', 'executed', 'Loaded: alpha'],
      ['use', 'executed', 'alpha ran'],
      // Not loaded by it: still refused, with what to do.
      ['other', 'rejected', 'Tool "beta" is available but not loaded. Call select_tools with ["beta"] first, then call the tool.'],
    ]);
    // The calls after select_tools were resolved once it had finished.
    expect(order.indexOf('finished:load')).toBeLessThan(order.indexOf('started:use'));
    expect(order.indexOf('finished:load')).toBeLessThan(order.indexOf('started:other'));
  });

  test('a call before select_tools in the same batch is resolved before it runs, as any call', async () => {
    const [early, load] = await fx.agent.executor.execute([
      { id: 'early', name: 'alpha', arguments: {} },
      { id: 'load', name: 'select_tools', arguments: { names: ['alpha'] } },
    ]);
    expect(early).toMatchObject({ outcome: 'rejected', output: 'Tool "alpha" is available but not loaded. Call select_tools with ["alpha"] first, then call the tool.' });
    expect(load).toMatchObject({ outcome: 'executed', output: 'Loaded: alpha' });
  });

  test('select_tools is an error only when nothing was loaded or available', async () => {
    expect(await call('select_tools', { names: ['ghost'] })).toMatchObject({ isError: true, output: 'Unknown tool: ghost. Pick from the latest announced tools list.' });
    expect((await call('select_tools', { names: [] })).output).toBe('Invalid args for tool "select_tools": "names" must NOT have fewer than 1 items');
  });

  test('it never asks for approval', async () => {
    const host = fx.agent.get(ISessionInteractionService) as FakeHost;
    await call('select_tools', { names: ['alpha'] });
    expect(host.requests.filter((r) => r.kind === 'approval')).toEqual([]);
  });

  test('a deferred tool the policy disables is neither loadable nor listed', async () => {
    await fx.app.dispose();
    open({ env: FLAG, capabilities: CAPABLE, config: { tools: { disabled: ['beta'] } } });
    expect(select().loadableTools()).toEqual(['alpha']);
    expect((await call('select_tools', { names: ['beta'] })).output).toBe('Unknown tool: beta. Pick from the latest announced tools list.');
  });
});

describe('the gate follows the model', () => {
  test('declaring the capability later activates select_tools; dropping it withdraws it', () => {
    open({ env: FLAG, capabilities: [] });
    const changes: boolean[] = [];
    select().onDidChangeEnabled((on) => changes.push(on));
    expect(fx.agent.registry.has('select_tools')).toBe(false);
    fx.agent.get(IAgentModelService).setCapabilities(CAPABLE);
    expect(fx.agent.registry.has('select_tools')).toBe(true);
    expect(listed()).not.toContain('alpha');
    fx.agent.get(IAgentModelService).setCapabilities(['image_in']);
    expect(fx.agent.registry.has('select_tools')).toBe(false);
    expect(listed()).toContain('alpha');
    expect(changes).toEqual([true, false]);
  });
});

describe('select_tools eligibility is one rule, exempt from allowlists', () => {
  test('a profile allowlist without select_tools still has it: activated, listed and callable', async () => {
    open({ env: FLAG, capabilities: CAPABLE, config: { profiles: { narrow: { tools: ['Read', 'alpha'] } }, profile: 'narrow' } });
    expect(fx.agent.registry.has('select_tools')).toBe(true);
    expect(listed()).toEqual(['Read', 'select_tools']);
    expect((await call('select_tools', { names: ['alpha'] })).output).toBe('Loaded: alpha');
    expect(listed()).toEqual(['Read', 'alpha', 'select_tools']);
  });

  test('config tools.enabled does not remove it either', () => {
    open({ env: FLAG, capabilities: CAPABLE, config: { tools: { enabled: ['Read'] } } });
    expect(listed()).toEqual(['Read', 'select_tools']);
  });

  test('a denylist does remove it, everywhere', async () => {
    open({ env: FLAG, capabilities: CAPABLE, config: { profiles: { p: { disallowedTools: ['select_tools'] } }, profile: 'p' } });
    expect(fx.agent.registry.has('select_tools')).toBe(false);
    expect(listed()).not.toContain('select_tools');
    expect((await call('select_tools', { names: ['alpha'] })).output).toBe(
      'Tool "select_tools" exists but is not active (excluded by the profile), so it cannot be called now; use another tool.',
    );
  });
});
