// Creates and disposes agents in a fresh process: `subagent` runs N foreground Agent calls (each
// creates a child Agent scope, runs a scripted runner that answers at once, disposes it); `agent`
// is the baseline, N plain createAgent + dispose. Then N more, untimed, to see whether memory keeps
// growing once the heap has been sized. Prints {perCallMs, rssBeforeMb, rssAfterMb, rssAfter2xMb,
// heapBeforeMb, heapAfterMb, heapAfter2xMb} (all after a GC).
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { ISubagentRunner } from '../src/tools/agent/contract';

const memoryMb = (): { rss: number; heap: number } => {
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
  };
  // Warm up: module code, inversify plans, JIT.
  for (let i = 0; i < 50; i++) await once(-i - 1);
  const before = memoryMb();
  const start = performance.now();
  for (let i = 0; i < count; i++) await once(i);
  const perCallMs = (performance.now() - start) / count;
  const after = memoryMb();
  for (let i = count; i < 2 * count; i++) await once(i);
  const after2x = memoryMb();
  process.stdout.write(
    JSON.stringify({ perCallMs, rssBeforeMb: before.rss, rssAfterMb: after.rss, rssAfter2xMb: after2x.rss, heapBeforeMb: before.heap, heapAfterMb: after.heap, heapAfter2xMb: after2x.heap }),
  );
  await app.dispose();
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

void main();
