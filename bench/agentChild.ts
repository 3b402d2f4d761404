// Creates and disposes agents in a fresh process: `subagent` runs N foreground Agent calls (each
// creates a child Agent scope, runs a scripted runner that answers at once, disposes it); `agent`
// is the baseline, N plain createAgent + dispose. Then N more, untimed, to see whether memory keeps
// growing once the heap has been sized. Prints {perCallMs, cpuPerCallMs, rssBeforeMb, rssAfterMb, rssAfter2xMb,
// heapBeforeMb, heapAfterMb, heapAfter2xMb} (all after a turn of the event loop and a GC).
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { ISubagentRunner } from '../src/tools/agent/contract';

/**
 * One turn of the event loop. A runner talks to a model, so every real child's run crosses the
 * event loop; without it the whole loop is one job, and V8 keeps every WeakRef target made or
 * dereferenced in a job until the job ends (inversify's plan nodes make them): all 1,000 children
 * would stay reachable from the KeepDuringJob set, growing the heap and the GC's work.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const memoryMb = async (): Promise<{ rss: number; heap: number }> => {
  await nextTurn();
  global.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: rss / 1024 / 1024, heap: heapUsed / 1024 / 1024 };
};

// Answers at once and keeps nothing (the scripted runner keeps every run for assertions).
const runner: ISubagentRunner = { run: () => Promise.resolve({ status: 'completed', text: 'done', turns: 1 }) };

async function main(): Promise<void> {
  const [mode, countText] = process.argv.slice(2) as ['subagent' | 'agent', string];
  const count = Number(countText);
  const cwd = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-bench-agent-'));
  const dataDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-bench-data-'));
  const app = createApp({ features: builtinFeatures(), overrides: (c) => c.bind(ISubagentRunner).toConstantValue(runner) });
  const parent = app.createAgent({ cwd, dataDir });
  const args = JSON.stringify({ description: 'Bench child', prompt: 'answer', subagent_type: 'explore' });
  const once = async (i: number): Promise<void> => {
    if (mode === 'subagent') {
      const [result] = await parent.executor.execute([{ id: `c${i}`, name: 'Agent', arguments: args }]);
      if (result!.isError) throw new Error(String(result!.output));
    } else {
      await app.createAgent({ cwd, dataDir: nodePath.join(dataDir, `a${i}`) }).dispose();
    }
    // Both cases alike (see nextTurn).
    await nextTurn();
  };
  // Warm up: module code, inversify plans, JIT.
  for (let i = 0; i < 50; i++) await once(-i - 1);
  const before = await memoryMb();
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < count; i++) await once(i);
  const perCallMs = (performance.now() - start) / count;
  const cpu = process.cpuUsage(cpuStart);
  // The process's CPU time (all threads): on a loaded machine wall time also counts waiting for a core.
  const cpuPerCallMs = (cpu.user + cpu.system) / 1000 / count;
  const after = await memoryMb();
  for (let i = count; i < 2 * count; i++) await once(i);
  const after2x = await memoryMb();
  process.stdout.write(
    JSON.stringify({ perCallMs, cpuPerCallMs, rssBeforeMb: before.rss, rssAfterMb: after.rss, rssAfter2xMb: after2x.rss, heapBeforeMb: before.heap, heapAfterMb: after.heap, heapAfter2xMb: after2x.heap }),
  );
  await app.dispose();
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

void main();
