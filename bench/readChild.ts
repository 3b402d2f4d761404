// One Read in a fresh process, so its peak RSS can be measured: prints {ms, chars}.
// With `warm`, Node's fs/promises internals are loaded first (a one-time ~9 ms per process that
// any agent has paid long before its first Read); without it, the figure includes that cost.
import 'reflect-metadata';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';

async function main(): Promise<void> {
  const [file, mode, warm] = process.argv.slice(2) as [string, 'head' | 'tail', string | undefined];
  if (warm === 'warm') {
    const handle = await fsp.open(__filename, 'r');
    await handle.read(Buffer.alloc(16), 0, 16, 0);
    await handle.stat();
    await handle.close();
  }
  const app = createApp({ features: builtinFeatures(), config: { read: { maxChars: 10_000_000 } } });
  const agent = app.createAgent({ cwd: nodePath.dirname(file) });
  const tool = agent.registry.get('Read')!.tool;
  const input = mode === 'head' ? { path: file, n_lines: 2000 } : { path: file, line_offset: -100 };
  const start = performance.now();
  const execution = await tool.resolveExecution(input as never);
  if (execution.isError) throw new Error(String(execution.output));
  const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
  const ms = performance.now() - start;
  if (result.isError) throw new Error(String(result.output));
  process.stdout.write(JSON.stringify({ ms, chars: String(result.output).length }));
  await app.dispose();
}

void main();
