import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { ISubagentRunnerService } from '../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../src/tools/agent/scriptedRunner';
import { fmt, median, nowMs, table } from './util';

const ITEMS = 64;
const CONCURRENCY = 8;
const ITEM_MS = 50;
const ROUNDS = 7;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The baseline: the same 64 sleeps of 50 ms in a plain 8-wide promise pool (no agents). */
async function plainPool(): Promise<number> {
  const start = nowMs();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < ITEMS) {
      next++;
      await sleep(ITEM_MS);
    }
  }));
  return nowMs() - start;
}

/**
 * AgentSwarm of 64 scripted items, 8 at a time, each child taking 50 ms of "model time" (the
 * scripted runner's turn delay) through a real child agent: against the ideal (64 × 50 ms / 8 =
 * 400 ms) and against a plain promise pool of the same sleeps, alternating rounds.
 */
export async function swarmBench(): Promise<void> {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-swarm-bench-'));
  const app = createApp({ features: builtinFeatures() });
  app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ turnDelayMs: ITEM_MS, text: 'done' }));
  const agent = app.createAgent({ id: 'bench', cwd: dir, dataDir: nodePath.join(dir, 'data') });
  const args = JSON.stringify({
    description: 'Bench swarm',
    subagent_type: 'explore',
    prompt_template: 'Look at {{item}}.',
    items: Array.from({ length: ITEMS }, (_, i) => `item ${i + 1}`),
    max_concurrency: CONCURRENCY,
  });
  let call = 0;
  const swarm = async (): Promise<number> => {
    const start = nowMs();
    const [result] = await agent.executor.execute([{ id: `swarm_${call++}`, name: 'AgentSwarm', arguments: args }]);
    const elapsed = nowMs() - start;
    if (result?.outcome !== 'executed' || result.isError) throw new Error(`the swarm did not run: ${JSON.stringify(result?.output)}`);
    if (!String(result.output).startsWith(`swarm: ${ITEMS} items — ${ITEMS} completed`)) throw new Error(`not every item completed: ${String(result.output).slice(0, 200)}`);
    return elapsed;
  };
  await swarm();
  await plainPool();
  const swarmMs: number[] = [];
  const poolMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      swarmMs.push(await swarm());
      poolMs.push(await plainPool());
    } else {
      poolMs.push(await plainPool());
      swarmMs.push(await swarm());
    }
  }
  await app.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
  const ideal = (ITEMS * ITEM_MS) / CONCURRENCY;
  const [s, p] = [median(swarmMs), median(poolMs)];
  console.log(`\n## AgentSwarm: ${ITEMS} scripted items, max_concurrency ${CONCURRENCY}, ${ITEM_MS} ms each (median of ${ROUNDS} alternating rounds)`);
  console.log(
    table(
      ['case', 'ms', 'vs ideal', 'vs pool'],
      [
        [`ideal (${ITEMS} × ${ITEM_MS} ms / ${CONCURRENCY})`, fmt(ideal, 0), '1.00x', '-'],
        ['plain promise pool of the sleeps', fmt(p, 0), `${fmt(p / ideal)}x`, '1.00x'],
        ['AgentSwarm through the executor', fmt(s, 0), `${fmt(s / ideal)}x`, `${fmt(s / p)}x`],
      ],
    ),
  );
  console.log('Aim: AgentSwarm within 1.20x of the ideal.');
}
