// One Grep call in a fresh process, so its whole-process peak RSS can be measured: prints {ms, firstLine}.
// argv: <root> <engine> <output_mode> <pattern> [i | rest]  (rest: create the App and agent, search nothing)
// TOOLHOST_BENCH_HOLD_YOUNG_GENERATION=1: hold V8's young generation from the start (bench/holdYoungGenerationFirst.ts)
// First, so a hold (when asked for) starts before the library loads.
import './holdYoungGenerationFirst';
import 'reflect-metadata';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import type { GrepEngineSetting } from '../src/tools/os/osConfig';

async function main(): Promise<void> {
  const [root, engine, mode, pattern, ci] = process.argv.slice(2) as [string, GrepEngineSetting, string, string, string | undefined];
  const app = createApp({ features: builtinFeatures(), config: { grep: { engine } } });
  const agent = app.createAgent({ cwd: root });
  const tool = agent.registry.get('Grep')!.tool;
  if (process.argv[6] === 'rest') {
    // The floor: the same process with its App and agent, searching nothing.
    process.stdout.write(JSON.stringify({ ms: 0, firstLine: '' }));
    await app.dispose();
    return;
  }
  const start = performance.now();
  const execution = await tool.resolveExecution({ pattern, output_mode: mode, ...(ci === 'i' ? { '-i': true } : {}) } as never);
  if (execution.isError) throw new Error(String(execution.output));
  const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
  const ms = performance.now() - start;
  if (result.isError) throw new Error(String(result.output));
  process.stdout.write(JSON.stringify({ ms, firstLine: String(result.output).split('\n')[0]!.slice(0, 60) }));
  await app.dispose();
}

void main();
