import * as nodePath from 'node:path';
import { injectable } from 'inversify';
import { z } from 'zod';
import { createApp } from '../src/scopes/appScope';
import { Feature } from '../src/di/feature';
import { createServiceId } from '../src/di/serviceId';
import { registerAgentToolService } from '../src/di/toolContribution';
import type { ToolCall } from '../src/services/executor/toolExecutor';
import { ToolAccesses } from '../src/tool/accesses';
import type { ExecutableTool, ToolExecution } from '../src/tool/contract';
import { toInputJsonSchema } from '../src/tool/inputSchema';
import { fmt, measureProcess, median, nowMs, table } from './util';

const Schema = z.object({ n: z.number().int(), label: z.string().optional() });
type Input = z.infer<typeof Schema>;

@injectable()
class NoopTool implements ExecutableTool<Input> {
  readonly name = 'Noop';
  readonly description = 'Does nothing.';
  readonly parameters = toInputJsonSchema(Schema);
  resolveExecution(input: Input): ToolExecution {
    return { accesses: ToolAccesses.none(), approvalRule: 'Noop', execute: async () => ({ output: `ok ${input.n}` }) };
  }
}

@injectable()
class SleepTool implements ExecutableTool<Input> {
  readonly name = 'Sleep';
  readonly description = 'Waits n ms.';
  readonly parameters = toInputJsonSchema(Schema);
  resolveExecution(input: Input): ToolExecution {
    return {
      accesses: [ToolAccesses.readState(`sleep/${input.label ?? input.n}`)],
      approvalRule: 'Sleep',
      execute: () => new Promise((resolve) => setTimeout(() => resolve({ output: 'slept' }), input.n)),
    };
  }
}

export function benchFeature(): Feature {
  return new Feature('bench')
    .contributeTool(registerAgentToolService(createServiceId<NoopTool>('bench.Noop'), NoopTool, { name: 'Noop', domain: 'bench', requiredRuntimeCapabilities: [], approval: 'auto' }))
    .contributeTool(registerAgentToolService(createServiceId<SleepTool>('bench.Sleep'), SleepTool, { name: 'Sleep', domain: 'bench', requiredRuntimeCapabilities: [] }));
}

async function overhead(): Promise<string[][]> {
  const app = createApp({ features: [benchFeature()] });
  const agent = app.createAgent({ cwd: process.cwd() });
  const tool = agent.registry.get('Noop')!.tool;
  const executor = agent.executor;
  const batchSize = 1000;
  const calls: ToolCall[] = Array.from({ length: batchSize }, (_, i) => ({ id: `c${i}`, name: 'Noop', arguments: `{"n":${i}}` }));
  const signal = new AbortController().signal;
  const direct = async () => {
    for (let i = 0; i < batchSize; i++) {
      const execution = (await tool.resolveExecution({ n: i } as never)) as Extract<ToolExecution, { execute: unknown }>;
      await execution.execute({ toolCallId: `c${i}`, signal, onUpdate: () => undefined, metadata: {} });
    }
  };
  const viaExecutor = async () => {
    await executor.execute(calls, { signal });
  };
  const oneByOne = async () => {
    for (const call of calls.slice(0, 200)) await executor.execute([call], { signal });
  };
  // Warm up, then alternate A/B rounds.
  for (let i = 0; i < 5; i++) {
    await direct();
    await viaExecutor();
    await oneByOne();
  }
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  for (let round = 0; round < 15; round++) {
    let t = nowMs();
    await direct();
    a.push(((nowMs() - t) * 1000) / batchSize);
    t = nowMs();
    await viaExecutor();
    b.push(((nowMs() - t) * 1000) / batchSize);
    t = nowMs();
    await oneByOne();
    c.push(((nowMs() - t) * 1000) / 200);
  }
  await app.dispose();
  const directUs = median(a);
  return [
    ['direct resolveExecution + execute', fmt(directUs), '-', '1.00x'],
    [`executor, batches of ${batchSize}`, fmt(median(b)), fmt(median(b) - directUs), `${fmt(median(b) / directUs)}x`],
    ['executor, one call per batch', fmt(median(c)), fmt(median(c) - directUs), `${fmt(median(c) / directUs)}x`],
  ];
}

interface FirstBatchFigures {
  readonly calls: number;
  readonly callMs: number;
  readonly createAgentMs: number;
  readonly firstMs: number;
  readonly warmMs: readonly number[];
}

/**
 * The first batch of a fresh process (each sample its own child) against warm batches of the same
 * processes, as parallelism: calls x call time / wall time (8 would be perfect).
 */
async function firstBatch(): Promise<string[][]> {
  const child = nodePath.join(__dirname, 'executorFirstBatchChild.js');
  const samples: FirstBatchFigures[] = [];
  for (let i = 0; i < 7; i++) samples.push(JSON.parse((await measureProcess(process.execPath, [child])).stdout) as FirstBatchFigures);
  const parallelism = (s: FirstBatchFigures, wallMs: number) => (s.calls * s.callMs) / wallMs;
  const first = median(samples.map((s) => parallelism(s, s.firstMs)));
  const warm = median(samples.flatMap((s) => s.warmMs.map((ms) => parallelism(s, ms))));
  return [
    [`first batch of a fresh process (${samples.length} processes)`, fmt(median(samples.map((s) => s.firstMs)), 1), `${fmt(first)}x`],
    ['later batches of the same processes', fmt(median(samples.flatMap((s) => s.warmMs)), 1), `${fmt(warm)}x`],
    ['first / warm parallelism', '-', `${fmt(first / warm)} (aim: first at least 7x)`],
    ['createAgent in those processes', fmt(median(samples.map((s) => s.createAgentMs)), 1), '-'],
  ];
}

export async function executorBench(): Promise<void> {
  console.log('\n## Executor: per-call overhead (no-op tool, preflight to finalize), µs per call');
  console.log(table(['case', 'µs/call', 'overhead µs', 'ratio'], await overhead()));
  console.log('Aim: overhead under 10 µs per call.');

  console.log('\n## Executor: concurrency, 8 independent 100 ms calls in one batch (wall ms, parallelism = 8 x 100 ms / wall)');
  console.log(table(['case', 'ms', 'parallelism'], await firstBatch()));

  console.log('\n## Executor: memory (each in a fresh process)');
  const child = nodePath.join(__dirname, 'executorChild.js');
  const rows: string[][] = [];
  const idle = await measureProcess(process.execPath, ['-e', '0']);
  const loaded = await measureProcess(process.execPath, [child, 'idle']);
  const batch = await measureProcess(process.execPath, [child, 'batch', '10000']);
  const spill = await measureProcess(process.execPath, [child, 'spill', String(100 * 1024 * 1024)]);
  const spillInfo = JSON.parse(spill.stdout) as { ms: number; resultMb: number; baselineMb: number };
  rows.push(['idle Node', '-', fmt(idle.peakRssMb ?? NaN, 1)]);
  rows.push(['toolhost loaded, one agent', '-', fmt(loaded.peakRssMb ?? NaN, 1)]);
  rows.push(['a batch of 10,000 no-op calls', fmt((JSON.parse(batch.stdout) as { ms: number }).ms, 1), fmt(batch.peakRssMb ?? NaN, 1)]);
  rows.push([`spilling a ${spillInfo.resultMb} MB text result`, fmt(spillInfo.ms, 1), fmt(spill.peakRssMb ?? NaN, 1)]);
  console.log(table(['case', 'ms', 'peak RSS MB'], rows));
  const spillRatio = ((spill.peakRssMb ?? NaN) - spillInfo.baselineMb) / spillInfo.resultMb;
  console.log(`Spill: peak RSS above the process's RSS before the result existed = ${fmt(spillRatio)}x the result's size (aim: under 3x).`);
}
