import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createHooksFeature } from '../../../src/features/hooks/hooksFeature';
import { type CommandHookProblem, IAgentCommandHooksService } from '../../../src/features/hooks/commandHooks';
import type { HooksConfigInput } from '../../../src/features/hooks/hooksConfig';
import { outputText } from '../../../src/tool/contract';
import { ToolAccesses } from '../../../src/tool/accesses';
import type { AppConfigInput } from '../../../src/scopes/appScope';
import { useAgent } from '../../helpers/agentHarness';
import { FakeHost, approve } from '../../helpers/fakeHost';
import { isAlive } from '../../helpers/processes';
import { testTool } from '../../helpers/testTools';

const fx = useAgent();

/** Writes an executable shell script into the test's dir and returns the command that runs it. */
function script(name: string, body: string): string {
  const path = nodePath.join(fx.dir, name);
  fs.writeFileSync(path, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return JSON.stringify(path);
}

let ran: string[] = [];
/** A read-only tool (auto-approved) that records that it ran. */
const echo = (name = 'Echo') =>
  testTool(name, { accesses: () => ToolAccesses.none(), approval: 'auto', execute: (input) => (ran.push(name), { output: `${name} ran ${JSON.stringify(input)}` }) });

function open(hooks: HooksConfigInput, options: { config?: AppConfigInput; host?: FakeHost; tools?: string[] } = {}) {
  ran = [];
  const h = fx.open({
    features: [createHooksFeature()],
    tools: (options.tools ?? ['Echo']).map((n) => echo(n)),
    config: { ...options.config, hooks } as AppConfigInput,
    ...(options.host ? { interactions: options.host } : {}),
  });
  const problems: CommandHookProblem[] = [];
  h.agent.get(IAgentCommandHooksService).onDidReportProblem((p) => problems.push(p));
  return { h, problems };
}

const pre = (command: string, matcher?: string, timeout?: number): HooksConfigInput => ({
  PreToolUse: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, ...(timeout !== undefined ? { timeout } : {}) }] }],
});

describe('PreToolUse command hooks', () => {
  test('the hook gets one JSON object on stdin: ids, cwd, event, tool name and input', async () => {
    const out = nodePath.join(fx.dir, 'payload.json');
    const { h } = open(pre(script('log.sh', `cat > ${JSON.stringify(out)}; echo "CLAUDE_PROJECT_DIR=$CLAUDE_PROJECT_DIR" >> ${JSON.stringify(out)}.env`)));
    const result = await h.call('Echo', { id: 'x' }, { id: 'call_7' });
    expect(result.outcome).toBe('executed');
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual({
      session_id: h.agent.id,
      agent_id: h.agent.id,
      cwd: fx.dir,
      hook_event_name: 'PreToolUse',
      tool_name: 'Echo',
      tool_input: { id: 'x' },
      tool_use_id: 'call_7',
    });
    expect(fs.readFileSync(`${out}.env`, 'utf8')).toBe(`CLAUDE_PROJECT_DIR=${fx.dir}\n`);
  });

  test('exit code 2 blocks the call with stderr as the reason the model sees; the tool does not run', async () => {
    const { h } = open(pre(script('block.sh', 'echo "no rm -rf here" >&2; exit 2')));
    const result = await h.call('Echo', {});
    expect(result).toMatchObject({ outcome: 'vetoed', isError: true });
    expect(outputText(result.output)).toBe('Tool "Echo" was blocked by a PreToolUse hook: no rm -rf here');
    expect(ran).toEqual([]);
  });

  test('a hook denies what an allow rule would allow: it runs before approval', async () => {
    const deny = script('deny.sh', `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on Fridays"}}'`);
    const { h } = open(pre(deny), { config: { approval: { allow: ['Echo'] } } });
    const result = await h.call('Echo', {});
    expect(result.outcome).toBe('vetoed');
    expect(outputText(result.output)).toContain('not on Fridays');
    expect(ran).toEqual([]);
  });

  test('a blocking hook runs before approval: the host is never asked about a call it blocks', async () => {
    const host = new FakeHost({ approval: approve });
    const asking = testTool('Writer', { execute: () => (ran.push('Writer'), { output: 'wrote' }) });
    ran = [];
    const h = fx.open({ features: [createHooksFeature()], tools: [asking], config: { hooks: pre('exit 2') }, interactions: host });
    expect((await h.call('Writer', {})).outcome).toBe('vetoed');
    expect([host.approvals, ran]).toEqual([[], []]);
  });

  test('other exit codes are reported and do not block', async () => {
    const { h, problems } = open(pre(script('crash.sh', 'echo "jq: command not found" >&2; exit 1')));
    const result = await h.call('Echo', {}, { id: 'c1' });
    expect(result.outcome).toBe('executed');
    expect(problems).toEqual([
      { event: 'PreToolUse', command: expect.stringContaining('crash.sh'), toolName: 'Echo', toolCallId: 'c1', kind: 'exit-code', message: 'the hook exited with code 1: jq: command not found' },
    ]);
  });

  test('"ask" asks the host even when the tool would run without asking, with the reason', async () => {
    const ask = script('ask.sh', `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"touches prod"}}'`);
    const host = new FakeHost({ approval: approve });
    const { h } = open(pre(ask), { host });
    expect((await h.call('Echo', {})).outcome).toBe('executed');
    expect(host.approvals.map((a) => a.description)).toEqual(['Echo {} (a PreToolUse hook asks: touches prod)']);
    const rejecting = new FakeHost({ approval: () => ({ decision: 'reject' }) });
    const second = open(pre(ask), { host: rejecting });
    expect((await second.h.call('Echo', {})).outcome).toBe('denied');
    expect(ran).toEqual([]);
  });

  test('"allow" skips the prompt but never a deny rule', async () => {
    const allow = script('allow.sh', `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`);
    const host = new FakeHost({ approval: approve });
    const asking = testTool('Writer', { execute: () => (ran.push('Writer'), { output: 'wrote' }) });
    ran = [];
    const h = fx.open({ features: [createHooksFeature()], tools: [asking], config: { hooks: pre(allow) } as AppConfigInput, interactions: host });
    expect((await h.call('Writer', {})).outcome).toBe('executed');
    expect(host.approvals).toEqual([]);
    const denied = fx.open({ features: [createHooksFeature()], tools: [asking], config: { hooks: pre(allow), approval: { deny: ['Writer'] } } as AppConfigInput, interactions: host });
    expect((await denied.call('Writer', {})).outcome).toBe('denied');
    expect(ran).toEqual(['Writer']);
  });

  test('matchers through the executor: exact, |-alternatives, regex, all; a tool no hook matches spawns nothing', async () => {
    const marker = (name: string) => script(`${name}.sh`, `touch ${JSON.stringify(nodePath.join(fx.dir, `ran-${name}`))}`);
    const { h } = open(
      {
        PreToolUse: [
          { matcher: 'Echo', hooks: [{ type: 'command', command: marker('exact') }] },
          { matcher: 'Other|Grep', hooks: [{ type: 'command', command: marker('alt') }] },
          { matcher: '^Gr.p$', hooks: [{ type: 'command', command: marker('regex') }] },
          { matcher: '*', hooks: [{ type: 'command', command: marker('all') }] },
        ],
      },
      { tools: ['Echo', 'EchoTwo', 'Grep', 'Grip'] },
    );
    const ranHooks = () => fs.readdirSync(fx.dir).filter((f) => f.startsWith('ran-')).sort();
    const clear = () => ranHooks().forEach((f) => fs.rmSync(nodePath.join(fx.dir, f)));
    await h.call('Echo', {});
    expect(ranHooks()).toEqual(['ran-all', 'ran-exact']);
    clear();
    await h.call('EchoTwo', {});
    expect(ranHooks()).toEqual(['ran-all']);
    clear();
    await h.call('Grep', {});
    expect(ranHooks()).toEqual(['ran-all', 'ran-alt', 'ran-regex']);
    clear();
    await h.call('Grip', {});
    expect(ranHooks()).toEqual(['ran-all', 'ran-regex']);
  });

  test('several matching hooks run in parallel; deny wins and each reason is given', async () => {
    // Each hook marks that it started, then waits (at most 5 s) until all three have started: run
    // one after another, the first would give up alone and no hook would see the other two.
    const marks = ['a', 'b', 'c'].map((n) => JSON.stringify(nodePath.join(fx.dir, `started-${n}`)));
    const rendezvous = (name: string, body: string) => ({
      type: 'command' as const,
      command: script(
        `${name}.sh`,
        `touch ${marks[name.charCodeAt(0) - 97]}\nfor i in $(seq 100); do [ -e ${marks[0]} ] && [ -e ${marks[1]} ] && [ -e ${marks[2]} ] && break; sleep 0.05; done\n` +
          `[ -e ${marks[0]} ] && [ -e ${marks[1]} ] && [ -e ${marks[2]} ] && touch ${JSON.stringify(nodePath.join(fx.dir, `together-${name}`))}\n${body}`,
      ),
    });
    const { h } = open({
      PreToolUse: [{ hooks: [rendezvous('a', 'exit 0'), rendezvous('b', 'echo "reason b" >&2; exit 2')] }, { matcher: 'Echo', hooks: [rendezvous('c', 'echo "reason c" >&2; exit 2')] }],
    });
    const result = await h.call('Echo', {});
    expect(outputText(result.output)).toBe('Tool "Echo" was blocked by a PreToolUse hook: reason b\nreason c');
    expect(fs.readdirSync(fx.dir).filter((f) => f.startsWith('together-')).sort()).toEqual(['together-a', 'together-b', 'together-c']);
  });

  test('a hook that hangs is killed at its timeout, with its children, and does not block', async () => {
    const pidFile = nodePath.join(fx.dir, 'child.pid');
    const { h, problems } = open(pre(script('hang.sh', `sleep 1000 & echo $! > ${JSON.stringify(pidFile)}; wait`), undefined, 0.5));
    const result = await h.call('Echo', {});
    expect(result.outcome).toBe('executed');
    expect(problems.map((p) => [p.kind, p.message])).toEqual([['timeout', 'the hook did not finish within its timeout of 0.5 s and was killed']]);
    expect(isAlive(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  test('aborting the batch kills a running hook at once', async () => {
    const { h } = open(pre(script('slow.sh', 'sleep 30'), undefined, 60));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const result = await h.call('Echo', {}, { signal: controller.signal });
    expect(result.outcome).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test('a hook that cannot start, or answers bad JSON, is reported and does not block', async () => {
    const { h, problems } = open({
      PreToolUse: [{ hooks: [{ type: 'command', command: nodePath.join(fx.dir, 'missing.sh') }, { type: 'command', command: script('bad.sh', "echo '{not json'") }] }],
    });
    expect((await h.call('Echo', {})).outcome).toBe('executed');
    expect(problems.map((p) => p.kind).sort()).toEqual(['exit-code', 'invalid-output']);
    expect(problems.find((p) => p.kind === 'exit-code')!.message).toContain('code 127');
  });

  test('a hook that prints megabytes is bounded in memory and still passes', async () => {
    const { h, problems } = open(pre(script('loud.sh', 'head -c 20000000 /dev/zero | tr "\\0" x; head -c 20000000 /dev/zero | tr "\\0" y >&2; exit 0')));
    expect((await h.call('Echo', {})).outcome).toBe('executed');
    expect(problems).toEqual([]);
  });

  test('continue:false from a PreToolUse hook: the call does not run and the turn ends', async () => {
    const { h } = open(pre(script('stop.sh', `echo '{"continue":false,"stopReason":"budget exhausted"}'`)));
    const result = await h.call('Echo', {});
    expect(result).toMatchObject({ outcome: 'vetoed', stopTurn: true });
    expect(outputText(result.output)).toBe('Tool "Echo" was not run: a PreToolUse hook ended the turn: budget exhausted');
    expect(ran).toEqual([]);
  });

  test('PreToolUse additionalContext reaches the model with the result', async () => {
    const { h } = open(pre(script('ctx.sh', `echo '{"hookSpecificOutput":{"additionalContext":"remember the style guide"}}'`)));
    const result = await h.call('Echo', {});
    expect(outputText(result.output)).toBe('Echo ran {}\n\n<hook_context>\nremember the style guide\n</hook_context>');
  });
});

describe('PostToolUse command hooks', () => {
  const post = (command: string): HooksConfigInput => ({ PostToolUse: [{ matcher: 'Echo', hooks: [{ type: 'command', command }] }] });

  test('the hook gets the result as tool_response; exit 2 gives stderr to the model beside the result', async () => {
    const out = nodePath.join(fx.dir, 'payload.json');
    const { h } = open(post(script('post.sh', `cat > ${JSON.stringify(out)}; echo "lint failed: 3 errors" >&2; exit 2`)));
    const result = await h.call('Echo', { id: 'y' });
    expect(result.outcome).toBe('executed');
    expect(outputText(result.output)).toBe('Echo ran {"id":"y"}\n\n<hook_feedback event="PostToolUse">\nlint failed: 3 errors\n</hook_feedback>');
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Echo',
      tool_input: { id: 'y' },
      tool_response: { output: 'Echo ran {"id":"y"}', is_error: false },
    });
  });

  test('decision "block" with a reason and additionalContext reach the model; continue:false ends the turn', async () => {
    const answer = JSON.stringify({ decision: 'block', reason: 'format the file', continue: false, hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'uses tabs' } });
    const { h } = open(post(script('post.sh', `echo '${answer}'`)));
    const result = await h.call('Echo', {});
    expect(outputText(result.output)).toBe('Echo ran {}\n\n<hook_context>\nuses tabs\n</hook_context>\n\n<hook_feedback event="PostToolUse">\nformat the file\n</hook_feedback>');
    expect(result.stopTurn).toBe(true);
  });

  test('a crashing PostToolUse hook leaves the result as it was and is reported', async () => {
    const { h, problems } = open(post(script('post.sh', 'kill -SEGV $$')));
    const result = await h.call('Echo', {});
    expect(outputText(result.output)).toBe('Echo ran {}');
    expect(problems.map((p) => [p.event, p.kind, p.message])).toEqual([['PostToolUse', 'exit-code', 'the hook was ended by a signal']]);
  });

  test('does not run for a call that did not run', async () => {
    const marker = nodePath.join(fx.dir, 'post-ran');
    const { h } = open({
      PreToolUse: [{ hooks: [{ type: 'command', command: 'exit 2' }] }],
      PostToolUse: [{ hooks: [{ type: 'command', command: `touch ${JSON.stringify(marker)}` }] }],
    });
    expect((await h.call('Echo', {})).outcome).toBe('vetoed');
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('config hooks', () => {
  test('a config change takes effect in a running agent', async () => {
    const { h } = open({});
    expect((await h.call('Echo', {})).outcome).toBe('executed');
    h.app.config.update({ hooks: pre('exit 2') } as never);
    expect((await h.call('Echo', {})).outcome).toBe('vetoed');
  });
});
