// The first Glob call of a fresh process ("cold": nothing compiled by the JIT, no rg located
// yet; the page cache is not dropped, the machine is shared), through the agent's executor as a
// host makes it: prints {ms, last}.
import 'reflect-metadata';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import type { GrepEngineSetting } from '../src/tools/os/osConfig';

async function main(): Promise<void> {
  const [cwd, engine, pattern] = process.argv.slice(2) as [string, GrepEngineSetting, string];
  const app = createApp({ features: builtinFeatures(), config: { grep: { engine } } });
  const agent = app.createAgent({ cwd });
  const start = performance.now();
  // Through the executor, as a host's first call goes: its validators are compiled between batches.
  const [result] = await agent.executor.execute([{ id: 'bench', name: 'Glob', arguments: JSON.stringify({ pattern }) }]);
  const ms = performance.now() - start;
  if (!result || result.isError) throw new Error(String(result?.output));
  process.stdout.write(JSON.stringify({ ms, last: String(result.output).split('\n').pop() }));
  await app.dispose();
}

void main();
