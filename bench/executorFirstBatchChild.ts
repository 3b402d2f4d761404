// The first batch of a fresh process against later (warm) ones: 8 independent 100 ms calls each.
// Prints {calls, callMs, createAgentMs, firstMs, warmMs: [...]} as JSON.
import 'reflect-metadata';
import { createApp } from '../src/scopes/appScope';
import type { ToolCall } from '../src/services/executor/toolExecutor';
import { benchFeature } from './executor.bench';

const PARALLEL_CALLS = 8;
const CALL_MS = 100;
/**
 * A host awaits the model's reply between creating the agent and running its first batch; a real
 * reply takes longer. Validators are compiled in that time (ValidatorPrecompiler).
 */
const MODEL_REPLY_MS = 200;
const WARM_BATCHES = 3;

function batch(round: number): ToolCall[] {
  return Array.from({ length: PARALLEL_CALLS }, (_, i) => ({ id: `s${round}-${i}`, name: 'Sleep', arguments: `{"n":${CALL_MS},"label":"r${round}-${i}"}` }));
}

async function timed(calls: readonly ToolCall[], execute: (calls: readonly ToolCall[]) => Promise<unknown[]>): Promise<number> {
  const start = performance.now();
  const results = await execute(calls);
  if (results.length !== calls.length) throw new Error('missing results');
  return performance.now() - start;
}

async function main(): Promise<void> {
  const app = createApp({ features: [benchFeature()] });
  const start = performance.now();
  const agent = app.createAgent({ cwd: process.cwd() });
  const createAgentMs = performance.now() - start;
  const execute = (calls: readonly ToolCall[]) => agent.executor.execute(calls);
  try {
    await new Promise((resolve) => setTimeout(resolve, MODEL_REPLY_MS));
    const firstMs = await timed(batch(0), execute);
    const warmMs: number[] = [];
    for (let round = 1; round <= WARM_BATCHES; round++) warmMs.push(await timed(batch(round), execute));
    process.stdout.write(JSON.stringify({ calls: PARALLEL_CALLS, callMs: CALL_MS, createAgentMs, firstMs, warmMs }));
  } finally {
    await app.dispose();
  }
}

if (require.main === module) void main();
