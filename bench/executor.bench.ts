import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
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
import { benchDir, buildCli, CLI, cliEnvFor, fmt, measureProcess, median, nowMs, table } from './util';

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

const TouchSchema = z.object({ read: z.array(z.string()).optional(), write: z.array(z.string()).optional(), search: z.string().optional() });
type TouchInput = z.infer<typeof TouchSchema>;

/** Declares the file accesses its arguments name and does nothing: the scheduler's work is what is left. */
@injectable()
class TouchTool implements ExecutableTool<TouchInput> {
  readonly name = 'Touch';
  readonly description = 'Declares file accesses, does nothing.';
  readonly parameters = toInputJsonSchema(TouchSchema);
  resolveExecution(input: TouchInput): ToolExecution {
    return {
      accesses: [
        ...(input.read ?? []).map(ToolAccesses.readFile),
        ...(input.write ?? []).map(ToolAccesses.writeFile),
        ...(input.search !== undefined ? [ToolAccesses.searchTree(input.search)] : []),
      ],
      approvalRule: 'Touch',
      execute: async () => ({ output: 'ok' }),
    };
  }
}

export function benchFeature(): Feature {
  return new Feature('bench')
    .contributeTool(registerAgentToolService(createServiceId<NoopTool>('bench.Noop'), NoopTool, { name: 'Noop', domain: 'bench', requiredRuntimeCapabilities: [], approval: 'auto' }))
    .contributeTool(registerAgentToolService(createServiceId<SleepTool>('bench.Sleep'), SleepTool, { name: 'Sleep', domain: 'bench', requiredRuntimeCapabilities: [] }))
    .contributeTool(registerAgentToolService(createServiceId<TouchTool>('bench.Touch'), TouchTool, { name: 'Touch', domain: 'bench', requiredRuntimeCapabilities: [], approval: 'auto' }));
}

/**
 * A batch whose calls conflict as real ones do: most read a file of their own, some write one,
 * a fifth read or write one of ten shared files (so writers wait for the readers before them and
 * the other way round), and one in fifty searches a folder that others write in.
 */
export function touchBatch(n: number): ToolCall[] {
  const root = '/bench-tree';
  return Array.from({ length: n }, (_, i) => {
    const own = `${root}/d${i % 50}/f${i}.txt`;
    const shared = `${root}/shared/s${i % 10}.txt`;
    const roll = i % 50;
    const args: TouchInput =
      roll === 0 ? { search: `${root}/d${(i / 50) % 50}` }
      : roll % 10 === 1 ? { write: [shared] }
      : roll % 10 === 2 ? { read: [shared, own] }
      : roll % 10 === 3 ? { write: [own] }
      : { read: [own] };
    return { id: `t${i}`, name: 'Touch', arguments: args };
  });
}

/** Per-call cost of batches of growing size; each sample runs the same number of calls in all. */
async function scaling(): Promise<string[][]> {
  const app = createApp({ features: [benchFeature()] });
  const agent = app.createAgent({ cwd: process.cwd() });
  const sizes = [10, 100, 1000, 10_000];
  const callsPerSample = 10_000;
  const batches = new Map(sizes.map((n) => [n, touchBatch(n)]));
  const sample = async (n: number): Promise<number> => {
    const calls = batches.get(n)!;
    const t = nowMs();
    for (let done = 0; done < callsPerSample; done += n) await agent.executor.execute(calls);
    return ((nowMs() - t) * 1000) / callsPerSample;
  };
  for (const n of sizes) await sample(n);
  const samples = new Map(sizes.map((n) => [n, [] as number[]]));
  // Rounds alternate the sizes, so a busy moment of the machine hits them alike.
  for (let round = 0; round < 7; round++) for (const n of sizes) samples.get(n)!.push(await sample(n));
  await app.dispose();
  const base = median(samples.get(10)!);
  return sizes.map((n) => [`${n.toLocaleString('en-US')} calls`, fmt(median(samples.get(n)!)), `${fmt(median(samples.get(n)!) / base)}x`]);
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

/**
 * Tracing's cost: batches of 1,000 calls with no tracer provider registered (what every host that
 * does not trace runs) against the same with the trace SDK registered (spans recorded into memory),
 * alternating. The first is also the figure to compare with the overhead above on a build without
 * tracing.
 */
async function tracing(): Promise<string[][]> {
  const app = createApp({ features: [benchFeature()] });
  const agent = app.createAgent({ cwd: process.cwd() });
  const batchSize = 1000;
  const calls: ToolCall[] = Array.from({ length: batchSize }, (_, i) => ({ id: `c${i}`, name: 'Noop', arguments: `{"n":${i}}` }));
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const sample = async (traced: boolean): Promise<number> => {
    if (traced) trace.setGlobalTracerProvider(provider);
    const t = nowMs();
    await agent.executor.execute(calls);
    const us = ((nowMs() - t) * 1000) / batchSize;
    if (traced) {
      trace.disable();
      exporter.reset();
    }
    return us;
  };
  for (let i = 0; i < 5; i++) {
    await sample(false);
    await sample(true);
  }
  const off: number[] = [];
  const on: number[] = [];
  for (let round = 0; round < 15; round++) {
    off.push(await sample(false));
    on.push(await sample(true));
  }
  await app.dispose();
  await provider.shutdown();
  return [
    ['no tracer provider (no spans made)', fmt(median(off)), '1.00x'],
    ['trace SDK registered (3 spans a call, in memory)', fmt(median(on)), `${fmt(median(on) / median(off))}x`],
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

/** The repository root (bench runs from .bench-out/bench). */

/**
 * Whole-process peak RSS of `toolhost run` with a batch of N Reads of real small files (20 lines
 * each, one file per call), next to `node -e 0`; and paired against the same CLI with V8's own
 * young generation (the launcher holds it at its starting size unless the user chose a semi-space
 * setting; 16 MiB is V8's own bound on Node 20) and with V8's own settings altogether (the
 * launcher also sets --heap-growing-percent=75 unless the user chose a value), to show what those
 * settings save and cost in CPU. Each variant has its own code cache (cliEnvFor).
 */
async function cliReads(sizes: readonly number[]): Promise<string[][]> {
  buildCli();
  const dir = fs.mkdtempSync(nodePath.join(benchDir(), 'reads-'));
  try {
    const most = Math.max(...sizes);
    const files = Array.from({ length: most }, (_, i) => nodePath.join(dir, `d${i % 100}`, `f${i}.txt`));
    for (let d = 0; d < Math.min(100, most); d++) fs.mkdirSync(nodePath.join(dir, `d${d}`));
    files.forEach((file, i) => fs.writeFileSync(file, Array.from({ length: 20 }, (_, l) => `line ${l + 1} of file ${i}: lorem ipsum dolor`).join('\n') + '\n'));
    const idle = await measureProcess(process.execPath, ['-e', '0']);
    const rows: string[][] = [['node -e 0', '-', '-', fmt(idle.peakRssMb ?? NaN, 1), '1.00x', '-']];
    const variants = [
      { label: 'toolhost run', flags: [] as string[] },
      { label: "toolhost run, V8's own young generation", flags: ['--max-semi-space-size=16'] },
      { label: "toolhost run, V8's own young generation and heap growing", flags: ['--max-semi-space-size=16', '--heap-growing-percent=0'] },
    ];
    const baseline = variants.length - 1;
    for (const n of sizes) {
      const batch = nodePath.join(dir, `batch-${n}.json`);
      fs.writeFileSync(batch, JSON.stringify(files.slice(0, n).map((path) => ({ name: 'Read', arguments: { path } }))));
      const samples = variants.map(() => [] as { rss: number; cpu: number; wall: number; errors: number }[]);
      // Alternating, so a busy moment of the machine hits both alike; the first round warms the code cache.
      for (let round = 0; round < 4; round++) {
        for (const [v, variant] of variants.entries()) {
          const run = await measureProcess(process.execPath, [...variant.flags, CLI, 'run', '--json', '--cwd', dir, batch], cliEnvFor(variant.flags));
          const { results } = JSON.parse(run.stdout) as { results: { isError: boolean }[] };
          if (round > 0) samples[v]!.push({ rss: run.peakRssMb ?? NaN, cpu: run.cpuMs ?? NaN, wall: run.wallMs, errors: results.filter((r) => r.isError).length });
        }
      }
      variants.forEach((variant, v) => {
        const s = samples[v]!;
        const errors = Math.max(...s.map((x) => x.errors));
        const rss = median(s.map((x) => x.rss));
        rows.push([
          `${variant.label}, ${n.toLocaleString('en-US')} Reads${errors ? ` (${errors} errors)` : ''}`,
          fmt(median(s.map((x) => x.wall)), 0),
          fmt(median(s.map((x) => x.cpu)), 0),
          fmt(rss, 1),
          `${fmt(rss / (idle.peakRssMb ?? NaN))}x`,
          `${fmt(median(s.map((x, i) => x.cpu / samples[baseline]![i]!.cpu)))}x`,
        ]);
      });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function executorBench(): Promise<void> {
  console.log('\n## Executor: per-call overhead (no-op tool, preflight to finalize), µs per call');
  console.log(table(['case', 'µs/call', 'overhead µs', 'ratio'], await overhead()));
  console.log('\n## Executor: OpenTelemetry spans (batches of 1,000 Noop calls, 15 alternating rounds, medians)');
  console.log(table(['case', 'µs/call', 'ratio'], await tracing()));
  console.log('Aim: overhead under 10 µs per call.');

  console.log('\n## Executor: scheduling cost by batch size (calls with overlapping and distinct file accesses), µs per call');
  console.log(table(['batch', 'µs/call', 'ratio to 10 calls'], await scaling()));
  console.log('Aim: the ratio near 1 (the cost of a call does not grow with the batch).');

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

  console.log('\n## CLI: a batch of Reads of real small files (fresh process each, whole-process peak RSS)');
  console.log(table(['case', 'wall ms', 'CPU ms', 'peak RSS MiB', 'ratio to node -e 0', 'CPU ratio (paired)'], await cliReads([10_000, 30_000])));
  console.log("Aim: 10,000 Reads under 150 MiB. The CPU ratio is paired against V8's own settings: the launcher's heap growing costs under 1.10x, its young-generation hold about 1.25x more.");
}
