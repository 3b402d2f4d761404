import { IConfigService } from '../../src/services/config/config';
import { IAgentToolRegistryService, type ToolNameConflict } from '../../src/services/toolRegistry/toolRegistry';
import { IAgentUserToolService, UserToolError } from '../../src/services/userTools/userTools';
import type { AgentTool } from '../../src/di/toolContribution';
import { approve, FakeHost } from '../helpers/fakeHost';
import { useAgent } from '../helpers/agentHarness';

const fx = useAgent();

const DEPLOY = {
  name: 'deploy',
  description: 'Deploys the current branch to an environment.',
  parameters: { type: 'object', properties: { env: { type: 'string', enum: ['staging', 'prod'] } }, required: ['env'], additionalProperties: false },
};

function userTools() {
  return fx.agent.get(IAgentUserToolService);
}

describe('user tools', () => {
  test('a call goes to the host as a user_tool request and its answer is the result, without an approval prompt', async () => {
    const host = new FakeHost({ user_tool: (request) => ({ output: `deployed to ${(request.args as { env: string }).env}` }), approval: approve });
    fx.open({ builtins: true, interactions: host });
    userTools().register(DEPLOY);
    expect(fx.agent.registry.get('deploy')).toMatchObject({ source: 'user', disclosure: 'inline', owner: 'user' });
    expect(fx.agent.modelTools().map((t) => t.name)).toContain('deploy');
    const [result] = await fx.agent.executor.execute([{ id: 'c1', name: 'deploy', arguments: '{"env": "staging"}' }]);
    expect(result).toMatchObject({ output: 'deployed to staging', isError: false, outcome: 'executed' });
    expect(host.requests).toEqual([{ kind: 'user_tool', toolCallId: 'c1', name: 'deploy', args: { env: 'staging' } }]);
  });

  test('its arguments are validated like any tool', async () => {
    const host = new FakeHost({ user_tool: () => ({ output: 'never' }), approval: approve });
    fx.open({ interactions: host });
    userTools().register(DEPLOY);
    const [result] = await fx.agent.executor.execute([{ id: 'c1', name: 'deploy', arguments: { env: 'moon' } }]);
    expect(result!.output).toBe('Invalid args for tool "deploy": "env" must be one of "staging", "prod"');
    expect(host.requests).toEqual([]);
  });

  test('the host can answer with an error', async () => {
    fx.open({ interactions: new FakeHost({ user_tool: () => ({ output: 'quota exceeded', isError: true }), approval: approve }) });
    userTools().register(DEPLOY);
    const [result] = await fx.agent.executor.execute([{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }]);
    expect(result).toMatchObject({ output: 'quota exceeded', isError: true, outcome: 'executed' });
  });

  test('an abort cancels the pending host request and the call ends aborted', async () => {
    let hostSawAbort = false;
    const host = new FakeHost({
      user_tool: (_request, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            hostSawAbort = true;
            reject(new Error('cancelled by host'));
          });
        }),
      approval: approve,
    });
    fx.open({ interactions: host });
    userTools().register(DEPLOY);
    const controller = new AbortController();
    const pending = fx.agent.executor.execute([{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }], { signal: controller.signal });
    for (let i = 0; i < 50 && host.requests.length === 0; i++) await new Promise((r) => setImmediate(r));
    controller.abort();
    const [result] = await pending;
    expect(hostSawAbort).toBe(true);
    expect(result).toMatchObject({ outcome: 'aborted', output: 'Tool "deploy" was aborted', isError: true });
  });

  test('with no host, the call says so', async () => {
    fx.open();
    userTools().register(DEPLOY);
    const [result] = await fx.agent.executor.execute([{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }]);
    expect(result).toMatchObject({ output: 'Tool "deploy" is provided by the host, but no host is connected to run it.', isError: true });
  });

  test('requiresApproval asks before the host runs it', async () => {
    const host = new FakeHost({ user_tool: () => ({ output: 'done' }), approval: () => ({ decision: 'reject' }) });
    fx.open({ interactions: host });
    userTools().register({ ...DEPLOY, requiresApproval: true });
    const [result] = await fx.agent.executor.execute([{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }]);
    expect(result!.outcome).toBe('denied');
    expect(host.requests.map((r) => r.kind)).toEqual(['approval']);
  });

  test('a user tool cannot take a builtin name, even when the builtin is not active; the conflict is reported', async () => {
    fx.open({ builtins: true, config: { tools: { disabled: ['Write'] } } });
    const read = fx.agent.registry.get('Read')!.tool;
    for (const name of ['Read', 'Write']) {
      let error: unknown;
      try {
        userTools().register({ ...DEPLOY, name });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UserToolError);
      expect((error as UserToolError).message).toBe(`Cannot register user tool "${name}": the name belongs to the builtin tool "${name}". Choose another name.`);
      expect((error as UserToolError).conflict).toEqual({ name, existing: { source: 'builtin', owner: 'builtin:os' }, refused: { source: 'user', owner: 'user' } });
    }
    expect(fx.agent.registry.get('Read')!.tool).toBe(read);
    expect(fx.agent.registry.has('Write')).toBe(false);
    // Enabling Write later still gives the builtin.
    fx.app.get(IConfigService).update({ tools: { enabled: [], disabled: [] } });
    expect(fx.agent.registry.get('Write')!.source).toBe('builtin');
  });

  test('a name another source holds is refused with the conflict', async () => {
    fx.open();
    const registry = fx.agent.get(IAgentToolRegistryService);
    const conflicts: ToolNameConflict[] = [];
    registry.onDidConflict((c) => conflicts.push(c));
    registry.register({ name: 'deploy', description: 'x', parameters: { type: 'object' }, resolveExecution: () => ({ output: '', isError: true }) } as AgentTool, { source: 'mcp', owner: 'mcp:ops' });
    expect(() => userTools().register(DEPLOY)).toThrow('Cannot register user tool "deploy": the name is taken by mcp:ops. Choose another name.');
    expect(conflicts).toEqual([{ name: 'deploy', existing: { source: 'mcp', owner: 'mcp:ops' }, refused: { source: 'user', owner: 'user' } }]);
  });

  test.each<[Record<string, unknown>, string]>([
    [{ name: 'bad name', description: 'd' }, 'User tool name "bad name" is invalid: use letters, digits, "_" or "-", starting with a letter, at most 64 characters, not starting with "mcp__".'],
    [{ name: 'mcp__x__y', description: 'd' }, 'User tool name "mcp__x__y" is invalid: use letters, digits, "_" or "-", starting with a letter, at most 64 characters, not starting with "mcp__".'],
    [{ name: 'ok', description: ' ' }, 'User tool "ok" needs a description: the model reads it to decide when to call the tool.'],
    [{ name: 'ok', description: 'd', parameters: { type: 'string' } }, 'User tool "ok" parameters must be a JSON Schema with "type": "object".'],
    [{ name: 'ok', description: 'd', parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } }, 'User tool "ok": its input schema is invalid'],
  ])('bad registrations are refused: %j', (registration, message) => {
    fx.open();
    expect(() => userTools().register(registration as never)).toThrow(message);
    expect(fx.agent.registry.list()).toEqual([]);
  });

  test('re-registering replaces the host\'s own tool; unregister removes it', async () => {
    fx.open({ interactions: new FakeHost({ user_tool: () => ({ output: 'ok' }), approval: approve }) });
    userTools().register(DEPLOY);
    userTools().register({ ...DEPLOY, description: 'Deploys, version 2.' });
    expect(fx.agent.registry.get('deploy')!.tool.description).toBe('Deploys, version 2.');
    expect(userTools().names).toEqual(['deploy']);
    expect(userTools().unregister('deploy')).toBe(true);
    expect(userTools().unregister('deploy')).toBe(false);
    expect(fx.agent.registry.has('deploy')).toBe(false);
    const [result] = await fx.agent.executor.execute([{ id: 'c', name: 'deploy', arguments: { env: 'prod' } }]);
    expect(result!.output).toBe('Tool "deploy" not found');
  });

  test('the tool policy applies: a disabled user tool is not listed and its calls are refused', async () => {
    fx.open({ interactions: new FakeHost({ user_tool: () => ({ output: 'ok' }), approval: approve }), config: { tools: { disabled: ['deploy'] } } });
    userTools().register(DEPLOY);
    expect(fx.agent.modelTools().map((t) => t.name)).toEqual([]);
    const [result] = await fx.agent.executor.execute([{ id: 'c', name: 'deploy', arguments: { env: 'prod' } }]);
    expect(result!.output).toBe('Tool "deploy" is disabled by the active tool policy');
  });
});
