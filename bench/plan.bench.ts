import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { IAgentPlanModeService } from '../src/features/plan/contract';
import { createPlanFeature } from '../src/features/plan/planFeature';
import { createApp } from '../src/scopes/appScope';
import type { ToolCall } from '../src/services/executor/toolExecutor';
import { benchFeature } from './executor.bench';
import { fmt, perCallMicros, table } from './util';

/**
 * Per-call cost of the plan guard on calls it lets through: no plan feature, the feature with plan
 * mode off (the guard returns at once) and on (it checks each call's accesses), batches of 10
 * read-only no-op calls.
 */
export async function planBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-plan-bench-'));
  const bare = createApp({ features: [benchFeature()] });
  const withPlan = createApp({ features: [benchFeature(), createPlanFeature()], config: { plan: { autoApprove: true } } });
  const agents = [
    bare.createAgent({ cwd: process.cwd() }),
    withPlan.createAgent({ id: 'off', cwd: process.cwd(), dataDir }),
    withPlan.createAgent({ id: 'on', cwd: process.cwd(), dataDir }),
  ] as const;
  await agents[2].container.get(IAgentPlanModeService).enter();
  const calls: ToolCall[] = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, name: 'Noop', arguments: `{"n":${i}}` }));
  const [base, off, on] = (await perCallMicros(agents, calls)) as [number, number, number];
  await bare.dispose();
  await withPlan.dispose();
  fs.rmSync(dataDir, { recursive: true, force: true });
  console.log('\n## Plan guard: calls it lets through, µs per call (batches of 10 no-op calls, 41 alternating rounds)');
  console.log(
    table(
      ['case', 'µs/call', 'added µs', 'ratio'],
      [
        ['executor, no plan feature', fmt(base), '-', '1.00x'],
        ['plan feature, plan mode off', fmt(off), fmt(off - base), `${fmt(off / base)}x`],
        ['plan mode on, read-only calls', fmt(on), fmt(on - base), `${fmt(on / base)}x`],
      ],
    ),
  );
  console.log('Aim: at most 5 µs added per call.');
}
