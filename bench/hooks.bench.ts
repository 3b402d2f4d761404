import { spawn } from 'node:child_process';
import { createHooksFeature } from '../src/features/hooks/hooksFeature';
import type { HooksConfigInput } from '../src/features/hooks/hooksConfig';
import { createApp } from '../src/scopes/appScope';
import type { ToolCall } from '../src/services/executor/toolExecutor';
import { benchFeature } from './executor.bench';
import { fmt, median, nowMs, perCallMicros, table } from './util';

/** A hook command that reads its payload, as real hooks do. */
const HOOK_COMMAND = 'cat > /dev/null';

function bareSpawn(command: string, stdin: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

function agentWith(hooks: HooksConfigInput) {
  const app = createApp({ features: [benchFeature(), createHooksFeature()], config: { hooks } });
  return { app, agent: app.createAgent({ cwd: process.cwd() }) };
}

/**
 * Per-call cost of configured hooks that match no call: batches of 10 no-op calls (a model's batch
 * size), 41 rounds of 100 batches, A-B then B-A so neither side always runs second.
 */
async function noMatch(): Promise<string[][]> {
  const none = agentWith({});
  const unmatched = { type: 'command' as const, command: 'exit 2' };
  const configured = agentWith({ PreToolUse: [{ matcher: 'Bash|Write', hooks: [unmatched] }, { matcher: '^mcp__x__.*', hooks: [unmatched] }], PostToolUse: [{ matcher: 'Edit', hooks: [unmatched] }] });
  const calls: ToolCall[] = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, name: 'Noop', arguments: `{"n":${i}}` }));
  const [base, hooked] = (await perCallMicros([none.agent, configured.agent], calls)) as [number, number];
  await none.app.dispose();
  await configured.app.dispose();
  return [
    ['executor, no hooks configured', fmt(base), '-', '1.00x'],
    ['executor, 3 hook groups, none matching', fmt(hooked), fmt(hooked - base), `${fmt(hooked / base)}x`],
  ];
}

/** One call whose PreToolUse hook runs `cat > /dev/null`, against a bare spawn of it with the same payload. */
async function matching(): Promise<string[][]> {
  const { app, agent } = agentWith({ PreToolUse: [{ matcher: 'Noop', hooks: [{ type: 'command', command: HOOK_COMMAND }] }] });
  const payload = JSON.stringify({ session_id: agent.id, agent_id: agent.id, cwd: process.cwd(), hook_event_name: 'PreToolUse', tool_name: 'Noop', tool_input: { n: 1 }, tool_use_id: 'c1' });
  let n = 0;
  const viaHook = async () => {
    const [result] = await agent.executor.execute([{ id: `c${++n}`, name: 'Noop', arguments: '{"n":1}' }]);
    if (result!.outcome !== 'executed') throw new Error(String(result!.output));
  };
  const bare = () => bareSpawn(HOOK_COMMAND, payload);
  for (let i = 0; i < 10; i++) {
    await bare();
    await viaHook();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 60; i++) {
    let t = nowMs();
    await bare();
    a.push(nowMs() - t);
    t = nowMs();
    await viaHook();
    b.push(nowMs() - t);
  }
  await app.dispose();
  return [
    [`spawn('bash', ['-c', '${HOOK_COMMAND}']), payload on stdin → close`, fmt(median(a)), '1.00x'],
    ['a call with one matching PreToolUse hook (whole call)', fmt(median(b)), `${fmt(median(b) / median(a))}x`],
  ];
}

export async function hooksBench(): Promise<void> {
  console.log('\n## Command hooks: hooks configured that match no call, µs per call (batches of 10 no-op calls, 41 alternating rounds)');
  console.log(table(['case', 'µs/call', 'added µs', 'ratio'], await noMatch()));
  console.log('Aim: at most 5 µs added per call.');
  console.log('\n## Command hooks: a matching hook against a bare spawn of its command (60 alternating runs, medians)');
  console.log(table(['case', 'median ms', 'ratio'], await matching()));
  console.log('Aim: within 1.5x.');
}
