import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { z } from 'zod';
import { IAgentToolApprovalService } from '../../../src/services/approval/toolApproval';
import { ApprovalPendingError } from '../../../src/services/interaction/interaction';
import { evaluateApproval } from '../../../src/services/approval/approvalPolicy';
import { ConfigError, parseConfig } from '../../../src/services/config/configLoader';
import { ToolAccesses, type ToolAccesses as Accesses } from '../../../src/tool/accesses';
import { literalRule, matchCommandRule, matchPathRule } from '../../../src/tool/ruleMatch';
import { FakeHost } from '../../helpers/fakeHost';
import { makeTempDir, removeDir, useTempDir, writeFiles } from '../../helpers/tempDir';
import { testTool } from '../../helpers/testTools';
import { type Harness, openHarness } from '../../helpers/agentHarness';

const dir = useTempDir();
let h: Harness;
afterEach(() => h?.dispose());

const CommandSchema = z.object({ command: z.string() });

/** A shell-like tool: `all` accesses, a command rule. */
function shellTool() {
  return testTool<{ command: string }>('Shell', {
    schema: CommandSchema,
    accesses: () => ToolAccesses.all(),
    approvalRule: (i) => literalRule('Shell', i.command),
    resolve: (i) => ({
      accesses: ToolAccesses.all(),
      description: `Running ${i.command}`,
      display: { kind: 'command', command: i.command },
      approvalRule: literalRule('Shell', i.command),
      matchesRule: (args, mode) => matchCommandRule(args, i.command, mode),
      execute: async () => ({ output: `ran ${i.command}` }),
    }),
  });
}

describe('evaluateApproval()', () => {
  const inside = (p: string) => p.startsWith('/w/');
  const shell = (command: string) => ({ toolName: 'Shell', accesses: ToolAccesses.all(), matchesRule: (a: string, m?: 'allow' | 'deny') => matchCommandRule(a, command, m) });
  const reader = (path: string) => ({ toolName: 'Read', accesses: [ToolAccesses.readFile(path)] as Accesses, matchesRule: (a: string) => matchPathRule(a, path, { cwd: '/w' }) });
  const none = { allow: [], ask: [], deny: [] };
  test.each<[string, { allow?: string[]; ask?: string[]; deny?: string[] }, string[], Parameters<typeof evaluateApproval>[2], string]>([
    ['read-only inside the workspace is allowed', {}, [], reader('/w/a.ts'), 'allow:read-only'],
    ['read-only outside the workspace asks', {}, [], reader('/etc/hosts'), 'ask'],
    ['everything else asks', {}, [], shell('ls'), 'ask'],
    ['an allow rule allows', { allow: ['Shell(npm test)'] }, [], shell('npm test'), 'allow:allow-rule'],
    ['an allow rule must cover every part', { allow: ['Shell(npm test)'] }, [], shell('npm test && rm -rf /'), 'ask'],
    ['a bare tool rule allows everything of it', { allow: ['Shell'] }, [], shell('rm -rf /'), 'allow:allow-rule'],
    ['a session grant allows', {}, ['Shell(git status)'], shell('git status'), 'allow:session-grant'],
    ['deny beats allow', { allow: ['Shell'], deny: ['Shell(rm *)'] }, [], shell('rm -rf x'), 'deny'],
    ['deny fires on any part', { deny: ['Shell(rm *)'] }, [], shell('ls && rm -rf x'), 'deny'],
    ['deny beats the read-only default', { deny: ['Read(/w/secret/**)'] }, [], reader('/w/secret/a'), 'deny'],
    ['ask beats allow', { allow: ['Shell'], ask: ['Shell(git push*)'] }, [], shell('git push origin'), 'ask'],
    ['ask beats a session grant', { ask: ['Shell'] }, ['Shell(ls)'], shell('ls'), 'ask'],
    ['deny beats ask', { ask: ['Shell'], deny: ['Shell'] }, [], shell('ls'), 'deny'],
    ['an allow rule for outside reads', { allow: ['Read(/etc/**)'] }, [], reader('/etc/hosts'), 'allow:allow-rule'],
    ['a call that declares no accesses asks: "touches nothing" is not "read-only"', {}, [], { toolName: 'Sidefx', accesses: [] as Accesses, matchesRule: () => true }, 'ask'],
  ])('%s', (_name, rules, grants, subject, expected) => {
    const decision = evaluateApproval({ ...none, ...rules }, grants, subject, inside);
    expect(decision.kind === 'allow' ? `allow:${decision.reason}` : decision.kind).toBe(expected);
  });
});

describe('approval in the executor', () => {
  test('a read inside the workspace runs without asking; a write asks with description and display', async () => {
    writeFiles(dir.path, { 'a.txt': 'a\n' });
    const interactions = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    h = openHarness({ cwd: dir.path, builtins: true, tools: [shellTool()], interactions });
    const results = await h.agent.executor.execute([
      { id: '1', name: 'Read', arguments: { path: 'a.txt' } },
      { id: '2', name: 'Shell', arguments: { command: 'make' } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['executed', 'executed']);
    expect(interactions.approvals).toEqual([
      {
        kind: 'approval',
        toolCallId: '2',
        toolName: 'Shell',
        args: { command: 'make' },
        description: 'Running make',
        display: { kind: 'command', command: 'make' },
        approvalRule: 'Shell(make)',
        accesses: [{ kind: 'all' }],
      },
    ]);
  });

  test('a read outside the workspace asks', async () => {
    const outside = nodePath.join(dir.path, '..', `outside-${process.pid}.txt`);
    const interactions = new FakeHost({ approval: () => ({ decision: 'reject' }) });
    h = openHarness({ cwd: dir.path, builtins: true, interactions });
    const [result] = await h.agent.executor.execute([{ id: '1', name: 'Read', arguments: { path: outside } }]);
    expect(interactions.approvals.map((r) => r.toolName)).toEqual(['Read']);
    expect(result!.outcome).toBe('denied');
  });

  test('a host that throws ApprovalPendingError ends the call as needs_approval with its message; the request carries the accesses', async () => {
    const interactions = new FakeHost({
      approval: () => {
        throw new ApprovalPendingError('Repeat it with a signed token.');
      },
    });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions });
    const [result] = await h.agent.executor.execute([{ id: '1', name: 'Shell', arguments: { command: 'deploy prod' } }]);
    expect(result).toMatchObject({ outcome: 'needs_approval', isError: true, output: 'Tool "Shell" was not run: it needs approval. Repeat it with a signed token.' });
    expect(interactions.approvals[0]!.accesses).toEqual(ToolAccesses.all());
  });

  test('a rejection tells the model what happened and not to retry, with the feedback', async () => {
    const interactions = new FakeHost({ approval: () => ({ decision: 'reject', feedback: 'use the staging cluster' }) });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions });
    const [result] = await h.agent.executor.execute([{ id: '1', name: 'Shell', arguments: { command: 'deploy prod' } }]);
    expect(result).toMatchObject({
      outcome: 'denied',
      isError: true,
      output: 'Tool "Shell" was not run: the user rejected it. Reason: use the staging cluster Do not retry the same call; choose a different approach or ask the user how to proceed.',
    });
  });

  test('a deny rule refuses without asking', async () => {
    const interactions = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions, config: { approval: { deny: ['Shell(rm *)'] } } });
    const [result] = await h.agent.executor.execute([{ id: '1', name: 'Shell', arguments: { command: 'rm -rf build' } }]);
    expect(result).toMatchObject({
      outcome: 'denied',
      output: 'Tool "Shell" was denied by the approval rule "Shell(rm *)" (config approval.deny). Do not retry the same call; choose a different approach or ask the user how to proceed.',
    });
    expect(interactions.requests).toEqual([]);
  });

  test('config allow rules run without asking; ask rules ask anyway', async () => {
    const interactions = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions, config: { approval: { allow: ['Shell(git *)'], ask: ['Shell(git push*)'] } } });
    await h.agent.executor.execute([
      { id: '1', name: 'Shell', arguments: { command: 'git checkout feature/x' } },
      { id: '2', name: 'Shell', arguments: { command: 'git push origin main' } },
    ]);
    expect(interactions.approvals.map((r) => r.toolCallId)).toEqual(['2']);
  });

  test('"approve for this session" stores the approval rule; the same call later runs without asking', async () => {
    const interactions = new FakeHost({ approval: () => ({ decision: 'approve_session' }) });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions });
    await h.agent.executor.execute([{ id: '1', name: 'Shell', arguments: { command: 'npm test' } }]);
    expect(h.agent.get(IAgentToolApprovalService).sessionGrants).toEqual(['Shell(npm test)']);
    const [again] = await h.agent.executor.execute([{ id: '2', name: 'Shell', arguments: { command: 'npm test' } }]);
    const [other] = await h.agent.executor.execute([{ id: '3', name: 'Shell', arguments: { command: 'npm test --all' } }]);
    expect(again!.outcome).toBe('executed');
    expect(other!.outcome).toBe('executed');
    expect(interactions.approvals.map((r) => r.toolCallId)).toEqual(['1', '3']);
  });

  test('with no host to ask, the answer is a denial that says how to allow it', async () => {
    h = openHarness({ cwd: dir.path, tools: [shellTool()] });
    const [result] = await h.agent.executor.execute([{ id: '1', name: 'Shell', arguments: { command: 'make' } }]);
    expect(result).toMatchObject({
      outcome: 'denied',
      isError: true,
      output:
        'Tool "Shell" was not run: it needs approval and there is no one to approve it. To allow it, add a rule such as "Shell(make)" to approval.allow in toolhost.json. Do not retry the same call; choose a different approach or ask the user how to proceed.',
    });
  });

  test('host requests go one at a time, in call order', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const interactions = new FakeHost({
      approval: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return { decision: 'approve' };
      },
    });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions });
    await h.agent.executor.execute(['a', 'b', 'c', 'd'].map((c, i) => ({ id: String(i), name: 'Shell', arguments: { command: c } })));
    expect(maxInFlight).toBe(1);
    expect(interactions.approvals.map((r) => r.toolCallId)).toEqual(['0', '1', '2', '3']);
  });

  test('a host that fails is a denial for that call only', async () => {
    const interactions = new FakeHost({
      approval: (request) => {
        if (request.toolCallId === '1') throw new Error('socket closed');
        return { decision: 'approve' };
      },
    });
    h = openHarness({ cwd: dir.path, tools: [shellTool()], interactions });
    const results = await h.agent.executor.execute([
      { id: '1', name: 'Shell', arguments: { command: 'a' } },
      { id: '2', name: 'Shell', arguments: { command: 'b' } },
    ]);
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['denied', 'Tool "Shell" was not run: the approval request failed (socket closed). Do not retry the same call; choose a different approach or ask the user how to proceed.'],
      ['executed', 'ran b'],
    ]);
  });

  describe('a tool that declares no accesses (ToolAccesses.none())', () => {
    /** A third-party tool with a side effect that declares nothing: it writes a marker file. */
    const sideEffectTool = (options: { approval?: 'auto' | 'ask'; executionApproval?: 'auto' | 'ask' } = {}) =>
      testTool('Sidefx', {
        ...(options.approval ? { approval: options.approval } : {}),
        resolve: () => ({
          accesses: ToolAccesses.none(),
          ...(options.executionApproval ? { approval: options.executionApproval } : {}),
          approvalRule: 'Sidefx',
          execute: async () => (fs.writeFileSync(nodePath.join(dir.path, 'marker'), 'ran'), { output: 'side effect done' }),
        }),
      });
    const ran = () => fs.existsSync(nodePath.join(dir.path, 'marker'));

    test('is not auto-approved: with no host it is denied and its side effect never happens', async () => {
      h = openHarness({ cwd: dir.path, tools: [sideEffectTool()] });
      const [result] = await h.agent.executor.execute([{ id: '1', name: 'Sidefx', arguments: {} }]);
      expect(result).toMatchObject({
        outcome: 'denied',
        output:
          'Tool "Sidefx" was not run: it needs approval and there is no one to approve it. To allow it, add a rule such as "Sidefx" to approval.allow in toolhost.json. Do not retry the same call; choose a different approach or ask the user how to proceed.',
      });
      expect(ran()).toBe(false);
    });

    test('asks the host, and runs once approved', async () => {
      const interactions = new FakeHost({ approval: () => ({ decision: 'approve' }) });
      h = openHarness({ cwd: dir.path, tools: [sideEffectTool()], interactions });
      const [result] = await h.agent.executor.execute([{ id: '1', name: 'Sidefx', arguments: {} }]);
      expect(interactions.approvals.map((r) => [r.toolCallId, r.toolName])).toEqual([['1', 'Sidefx']]);
      expect(result).toMatchObject({ outcome: 'executed', output: 'side effect done' });
      expect(ran()).toBe(true);
    });

    test('runs unasked with approval: "auto" on its contribution; deny rules still apply', async () => {
      const interactions = new FakeHost({ approval: () => ({ decision: 'reject' }) });
      h = openHarness({ cwd: dir.path, tools: [sideEffectTool({ approval: 'auto' })], interactions });
      const [result] = await h.agent.executor.execute([{ id: '1', name: 'Sidefx', arguments: {} }]);
      expect(result).toMatchObject({ outcome: 'executed', output: 'side effect done' });
      expect(interactions.requests).toEqual([]);
      await h.dispose();
      fs.rmSync(nodePath.join(dir.path, 'marker'));

      h = openHarness({ cwd: dir.path, tools: [sideEffectTool({ approval: 'auto' })], interactions, config: { approval: { deny: ['Sidefx'] } } });
      const [denied] = await h.agent.executor.execute([{ id: '2', name: 'Sidefx', arguments: {} }]);
      expect(denied!.outcome).toBe('denied');
      expect(ran()).toBe(false);
    });

    test("the execution's own approval wins over its contribution's", async () => {
      const interactions = new FakeHost({ approval: () => ({ decision: 'reject' }) });
      h = openHarness({ cwd: dir.path, tools: [sideEffectTool({ approval: 'auto', executionApproval: 'ask' })], interactions });
      const [result] = await h.agent.executor.execute([{ id: '1', name: 'Sidefx', arguments: {} }]);
      expect(interactions.approvals.map((r) => r.toolCallId)).toEqual(['1']);
      expect(result!.outcome).toBe('denied');
      expect(ran()).toBe(false);
    });
  });

  test('a malformed approval rule is a config error that names the key', () => {
    expect(() => parseConfig({ approval: { allow: ['Read', 'Bash(npm test'] } })).toThrow(ConfigError);
    try {
      parseConfig({ approval: { allow: ['Read', 'Bash(npm test'] } });
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([{ path: 'approval.allow[1]', message: 'Rule "Bash(npm test" has no closing parenthesis.' }]);
    }
  });
});

describe('hard links', () => {
  const noHostDenial = (path: string) =>
    `Tool "Read" was not run: it needs approval and there is no one to approve it. To allow it, add a rule such as "Read(${path})" to approval.allow in toolhost.json. Do not retry the same call; choose a different approach or ask the user how to proceed.`;

  test('a Read of a hard link to .env is not an inside read: with no host it is denied', async () => {
    writeFiles(dir.path, { '.env': 'API_KEY=hunter2\n' });
    fs.linkSync(nodePath.join(dir.path, '.env'), nodePath.join(dir.path, 'notes.txt'));
    h = openHarness({ cwd: dir.path, builtins: true });
    const [result] = await h.agent.executor.execute([{ id: '1', name: 'Read', arguments: { path: 'notes.txt' } }]);
    expect(result).toMatchObject({ outcome: 'denied', isError: true, output: noHostDenial(nodePath.join(dir.path, 'notes.txt')) });
  });

  test('a Read of a hard link to a file outside the workspace asks the host', async () => {
    const outside = makeTempDir('toolhost-outside-');
    try {
      writeFiles(outside, { 'secret.txt': 'outside\n' });
      fs.linkSync(nodePath.join(outside, 'secret.txt'), nodePath.join(dir.path, 'copy.txt'));
      const interactions = new FakeHost({ approval: () => ({ decision: 'reject' }) });
      h = openHarness({ cwd: dir.path, builtins: true, interactions });
      const [result] = await h.agent.executor.execute([{ id: '1', name: 'Read', arguments: { path: 'copy.txt' } }]);
      expect(result!.outcome).toBe('denied');
      expect(interactions.approvals.map((r) => r.approvalRule)).toEqual([`Read(${dir.path}/copy.txt)`]);
    } finally {
      removeDir(outside);
    }
  });

  test('a hard link an earlier call of the batch made is noticed right before the Read runs', async () => {
    writeFiles(dir.path, { '.env': 'API_KEY=hunter2\n', 'notes.txt': 'harmless\n' });
    const linker = testTool('Linker', {
      accesses: () => [ToolAccesses.writeTree(dir.path)],
      execute: () => {
        fs.rmSync(nodePath.join(dir.path, 'notes.txt'));
        fs.linkSync(nodePath.join(dir.path, '.env'), nodePath.join(dir.path, 'notes.txt'));
        return { output: 'linked' };
      },
    });
    const interactions = new FakeHost({ approval: (request) => ({ decision: request.toolName === 'Linker' ? 'approve' : 'reject' }) });
    h = openHarness({ cwd: dir.path, builtins: true, tools: [linker], interactions });
    const results = await h.agent.executor.execute([
      { id: '1', name: 'Linker', arguments: {} },
      { id: '2', name: 'Read', arguments: { path: 'notes.txt' } },
    ]);
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['executed', 'linked'],
      ['denied', 'Tool "Read" was not run: the user rejected it. Do not retry the same call; choose a different approach or ask the user how to proceed.'],
    ]);
    expect(interactions.approvals.map((r) => r.toolName)).toEqual(['Linker', 'Read']);
  });

  test('an allow rule still admits a hard-linked file, and a file with one link is still an inside read', async () => {
    writeFiles(dir.path, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    fs.linkSync(nodePath.join(dir.path, 'a.txt'), nodePath.join(dir.path, 'a-link.txt'));
    h = openHarness({ cwd: dir.path, builtins: true, config: { approval: { allow: [`Read(${dir.path}/a-link.txt)`] } } });
    const results = await h.agent.executor.execute([
      { id: '1', name: 'Read', arguments: { path: 'a-link.txt' } },
      { id: '2', name: 'Read', arguments: { path: 'b.txt' } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['executed', 'executed']);
  });
});
