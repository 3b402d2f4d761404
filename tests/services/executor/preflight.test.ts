import { z } from 'zod';
import { IConfigService } from '../../../src/services/config/config';
import { IAgentToolRegistryService } from '../../../src/services/toolRegistry/toolRegistry';
import type { AgentTool } from '../../../src/di/toolContribution';
import { ToolAccesses } from '../../../src/tool/accesses';
import { PathSecurityError } from '../../../src/tool/pathAccess';
import { deferred, waitFor } from '../../helpers/async';
import { FakeHost } from '../../helpers/fakeHost';
import { useTempDir, writeFiles } from '../../helpers/tempDir';
import { testTool } from '../../helpers/testTools';
import { expectPairedEvents, type Harness, openHarness } from '../../helpers/agentHarness';

const dir = useTempDir();
let h: Harness;
afterEach(() => h?.dispose());

const NumberSchema = z.object({ count: z.number().int(), ratio: z.number().optional(), flag: z.boolean().optional(), label: z.string().optional(), list: z.array(z.number().int()).optional() });

describe('the messages the model sees', () => {
  beforeEach(() => {
    h = openHarness({
      cwd: dir.path,
      builtins: true,
      tools: [
        testTool('Counter', { schema: NumberSchema, accesses: () => ToolAccesses.none(), approval: 'auto', execute: (input) => ({ output: JSON.stringify(input) }) }),
        testTool('Thrower', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => Promise.reject(new Error('disk on fire')) }),
        testTool('BadResolve', { resolve: () => { throw new Error('cannot plan'); } }),
        testTool('Secretive', { resolve: () => { throw new PathSecurityError('PATH_SENSITIVE', '"id_rsa" is a secret.', 'id_rsa'); } }),
        testTool('Synthetic', { resolve: () => ({ output: 'nothing to do', isError: true }) }),
      ],
    });
  });

  test.each<[string, string, string | Record<string, unknown> | undefined, string, string]>([
    ['an unknown tool', 'Nope', '{}', 'Tool "Nope" not found', 'rejected'],
    ['an unknown tool close to a registered one', 'Raed', '{}', 'Tool "Raed" not found. Did you mean "Read"?', 'rejected'],
    ['a case slip', 'read', '{}', 'Tool "read" not found. Did you mean "Read"?', 'rejected'],
    ['invalid JSON', 'Read', '{"path": "a",}', 'Invalid JSON in arguments for tool "Read": Expected double-quoted property name in JSON at position 13', 'rejected'],
    ['truncated JSON', 'Read', '{"path": ', 'Invalid JSON in arguments for tool "Read": Unexpected end of JSON input', 'rejected'],
    ['arguments that are not an object', 'Read', '[1, 2]', 'Invalid args for tool "Read": the arguments must be a JSON object', 'rejected'],
    ['a missing property', 'Read', '{}', 'Invalid args for tool "Read": missing required property "path"', 'rejected'],
    ['an extra property', 'Read', '{"path": "a", "limit": 3}', 'Invalid args for tool "Read": unexpected property "limit"', 'rejected'],
    ['several problems at once', 'Read', { n_lines: 0, extra: true }, 'Invalid args for tool "Read": missing required property "path"; unexpected property "extra"; "n_lines" must be >= 1', 'rejected'],
    ['a wrong type', 'Counter', '{"count": "many"}', 'Invalid args for tool "Counter": "count" must be integer', 'rejected'],
    ['a PathSecurityError from Read, as it is', 'Read', '{"path": ".env"}', '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.', 'resolution-failed'],
    ['a PathSecurityError from any tool', 'Secretive', '{}', '"id_rsa" is a secret.', 'resolution-failed'],
    ['resolveExecution throws', 'BadResolve', '{}', 'Tool "BadResolve" failed to resolve execution: cannot plan', 'resolution-failed'],
    ['resolveExecution returns a result', 'Synthetic', '{}', 'nothing to do', 'synthetic'],
    ['execute throws', 'Thrower', '{}', 'Tool "Thrower" failed: disk on fire', 'executed'],
  ])('%s', async (_name, tool, args, message, outcome) => {
    const [result] = await h.agent.executor.execute([{ id: 'c1', name: tool, arguments: args }]);
    expect(result).toMatchObject({ toolCallId: 'c1', name: tool, output: message, isError: true, outcome, truncated: false });
    expectPairedEvents(h.events, ['c1']);
  });

  test('missing and empty arguments mean {}', async () => {
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Thrower' },
      { id: 'b', name: 'Thrower', arguments: '' },
      { id: 'c', name: 'Thrower', arguments: null },
    ]);
    expect(results.map((r) => r.output)).toEqual(Array(3).fill('Tool "Thrower" failed: disk on fire'));
  });

  test.each<[Record<string, unknown>, string]>([
    [{ count: '3' }, '{"count":3}'],
    [{ count: '-12', ratio: '0.5', flag: 'true' }, '{"count":-12,"ratio":0.5,"flag":true}'],
    [{ count: 1, flag: 'false', label: '42' }, '{"count":1,"flag":false,"label":"42"}'],
    [{ count: 1, list: ['1', 2, '3'] }, '{"count":1,"list":[1,2,3]}'],
  ])('strings that losslessly convert are converted before validation: %j', async (args, echoed) => {
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Counter', arguments: JSON.stringify(args) }]);
    expect(result).toMatchObject({ output: echoed, isError: false, outcome: 'executed' });
  });

  test.each<[Record<string, unknown>, string]>([
    [{ count: '3.5' }, '"count" must be integer'],
    [{ count: '03' }, '"count" must be integer'],
    [{ count: ' 3' }, '"count" must be integer'],
    [{ count: 'three' }, '"count" must be integer'],
    [{ count: 1, flag: 'yes' }, '"flag" must be boolean'],
    [{ count: '99999999999999999999' }, '"count" must be integer'],
  ])('strings that do not convert losslessly stay strings: %j', async (args, message) => {
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Counter', arguments: args }]);
    expect(result!.output).toBe(`Invalid args for tool "Counter": ${message}`);
  });

  test('a tool the policy disables is refused at call time, whoever registered it', async () => {
    const registry = h.agent.get(IAgentToolRegistryService);
    const hostTool = { ...registry.get('Counter')!.tool, name: 'deploy' } as AgentTool;
    registry.register(hostTool, { source: 'user' });
    h.app.get(IConfigService).update({ tools: { disabled: ['deploy'] } });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'deploy', arguments: '{"count": 1}' }]);
    expect(result).toMatchObject({ output: 'Tool "deploy" is disabled by the active tool policy', outcome: 'rejected', isError: true });
  });

  test('results come in call order, one per call, whatever each one did', async () => {
    const results = await h.agent.executor.execute([
      { id: 'a', name: 'Nope', arguments: '{}' },
      { id: 'b', name: 'Counter', arguments: '{"count": 1}' },
      { id: 'c', name: 'Read', arguments: '{"path": ".env"}' },
      { id: 'd', name: 'Thrower', arguments: '{}' },
      { id: 'e', name: 'Counter', arguments: '{"count": 2}' },
    ]);
    expect(results.map((r) => [r.toolCallId, r.outcome, r.isError])).toEqual([
      ['a', 'rejected', true],
      ['b', 'executed', false],
      ['c', 'resolution-failed', true],
      ['d', 'executed', true],
      ['e', 'executed', false],
    ]);
    expectPairedEvents(h.events, ['a', 'b', 'c', 'd', 'e']);
  });

  test('a path refused for security is never sent for approval', async () => {
    const interactions = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    await h.dispose();
    h = openHarness({ cwd: dir.path, builtins: true, interactions });
    writeFiles(dir.path, { '.env': 'X=1' });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Read', arguments: { path: `${dir.path}/.env` } }]);
    expect(result!.outcome).toBe('resolution-failed');
    expect(interactions.requests).toEqual([]);
  });

  test('started events carry the description and display', async () => {
    writeFiles(dir.path, { 'a.txt': 'x\n' });
    await h.agent.executor.execute([{ id: 'r', name: 'Read', arguments: { path: 'a.txt' } }]);
    expect(h.startedEvents).toEqual([
      { toolCallId: 'r', name: 'Read', args: { path: 'a.txt' }, description: 'Reading a.txt', display: { kind: 'file_io', operation: 'read', path: `${dir.path}/a.txt` } },
    ]);
    expect(h.finishedEvents[0]).toMatchObject({ toolCallId: 'r', name: 'Read', isError: false, outcome: 'executed', truncated: false });
  });
});

describe('results tools return are checked', () => {
  test.each<[unknown, string, boolean]>([
    [undefined, 'Tool "Odd" returned no result.', true],
    [42, 'Tool "Odd" returned a number instead of a tool result.', true],
    [{ output: 7 }, 'Tool "Odd" returned a result with a missing or malformed "output" field.', true],
    [{ output: '' }, 'Tool output is empty.', false],
    [{ output: [] }, 'Tool output is empty.', false],
    [{ output: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, 'a\nb', false],
  ])('%j', async (returned, output, isError) => {
    h = openHarness({ cwd: dir.path, tools: [testTool('Odd', { accesses: () => [], approval: 'auto', execute: () => returned as never })] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Odd', arguments: '{}' }]);
    expect(result).toMatchObject({ output, isError, outcome: 'executed' });
  });

  test.each<[unknown, object | undefined]>([
    [{ untrusted: true }, { untrusted: true }],
    [['untrusted'], undefined],
    ['untrusted', undefined],
  ])('metadata %j is passed on to the call result only when it is an object', async (metadata, expected) => {
    h = openHarness({ cwd: dir.path, tools: [testTool('Meta', { accesses: () => [], approval: 'auto', execute: () => ({ output: 'x', metadata }) as never })] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Meta', arguments: '{}' }]);
    expect(result!.metadata).toEqual(expected);
  });

  test('media without text gets a line of text', async () => {
    h = openHarness({ cwd: dir.path, tools: [testTool('Pic', { accesses: () => [], approval: 'auto', execute: () => ({ output: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }) })] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Pic', arguments: '{}' }]);
    expect(result!.output).toEqual([{ type: 'text', text: 'Tool returned non-text content.' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }]);
  });
});

describe('resolveLaterCallsAfterThis', () => {
  test('the calls after it are resolved once it has finished; the calls before it run alongside it', async () => {
    const log: string[] = [];
    const release = deferred();
    const probe = testTool('Probe', {
      approval: 'auto',
      resolve: (input) => {
        log.push(`resolve ${input.id}`);
        return { accesses: ToolAccesses.none(), approvalRule: 'Probe', execute: async () => (log.push(`run ${input.id}`), { output: `probe ${input.id}` }) };
      },
    });
    const barrier = testTool('Barrier', {
      approval: 'auto',
      resolve: () => ({
        accesses: ToolAccesses.none(),
        resolveLaterCallsAfterThis: true,
        approvalRule: 'Barrier',
        execute: async () => (log.push('barrier runs'), await release.promise, log.push('barrier done'), { output: 'barrier' }),
      }),
    });
    h = openHarness({ cwd: dir.path, tools: [probe, barrier] });
    const pending = h.agent.executor.execute([
      { id: 'a', name: 'Probe', arguments: { id: 'before' } },
      { id: 'b', name: 'Barrier', arguments: {} },
      { id: 'c', name: 'Probe', arguments: { id: 'after' } },
    ]);
    await waitFor(() => log.includes('run before') && log.includes('barrier runs'), { what: 'the call before the barrier and the barrier to run' });
    expect(log).not.toContain('resolve after');
    release.resolve();
    const results = await pending;
    expect(results.map((r) => r.output)).toEqual(['probe before', 'barrier', 'probe after']);
    expect(log.indexOf('resolve after')).toBeGreaterThan(log.indexOf('barrier done'));
    expectPairedEvents(h.events, ['a', 'b', 'c']);
  });
});
