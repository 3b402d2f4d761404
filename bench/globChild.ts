// The first Glob call of a fresh process ("cold": nothing compiled by the JIT, no rg located
// yet; the page cache is not dropped, the machine is shared): prints {ms, lines}.
import 'reflect-metadata';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import type { GrepEngineSetting } from '../src/tools/os/osConfig';

async function main(): Promise<void> {
  const [cwd, engine, pattern] = process.argv.slice(2) as [string, GrepEngineSetting, string];
  const app = createApp({ features: builtinFeatures(), config: { grep: { engine } } });
  const agent = app.createAgent({ cwd });
  const tool = agent.registry.get('Glob')!.tool;
  const start = performance.now();
  const execution = await tool.resolveExecution({ pattern } as never);
  if (execution.isError) throw new Error(String(execution.output));
  const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
  const ms = performance.now() - start;
  if (result.isError) throw new Error(String(result.output));
  process.stdout.write(JSON.stringify({ ms, last: String(result.output).split('\n').pop() }));
  await app.dispose();
}

void main();
