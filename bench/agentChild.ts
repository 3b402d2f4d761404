// Creates and disposes agents in a fresh process: `subagent` runs N foreground Agent calls (each
// creates a child Agent scope, runs a scripted runner that answers at once, disposes it); `agent`
// is the baseline, N plain createAgent + dispose. Prints {perCallMs, rssBeforeMb, rssAfterMb}.
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { ISubagentRunner } from '../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../src/tools/agent/scriptedRunner';

const rssMb = (): number => {
  global.gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
};

async function main(): Promise<void> {
  const [mode, countText] = process.argv.slice(2) as ['subagent' | 'agent', string];
  const count = Number(countText);
  const cwd = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-bench-agent-'));
  const dataDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-bench-data-'));
  const app = createApp({ features: builtinFeatures(), overrides: (c) => c.bind(ISubagentRunner).toConstantValue(new ScriptedSubagentRunner({ text: 'done' })) });
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
  const rssBeforeMb = rssMb();
  const start = performance.now();
  for (let i = 0; i < count; i++) await once(i);
  const perCallMs = (performance.now() - start) / count;
  const rssAfterMb = rssMb();
  process.stdout.write(JSON.stringify({ perCallMs, rssBeforeMb, rssAfterMb }));
  await app.dispose();
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

void main();
