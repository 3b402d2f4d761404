// One file-tool operation in a fresh process, so its peak RSS can be measured: prints JSON.
//   edit FILE FROM [TO]  Read one line (the stale-write guard), then Edit `const last = FROM;` near the end
//   write FILE BYTES     Write BYTES of text to FILE (a new file) with the Write tool
//   writeFile FILE BYTES the same content with a plain fs.promises.writeFile (not atomic, no fsync)
//   tail FILE guard|none Read the last 100 lines, with the stale-write guard (hashing) or without it
import 'reflect-metadata';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { Feature } from '../src/di/feature';
import type { Agent } from '../src/scopes/agentScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { readTool } from '../src/tools/os/read/readTool';

async function call(agent: Agent, name: string, input: object): Promise<string> {
  const execution = await agent.registry.get(name)!.tool.resolveExecution(input as never);
  if (execution.isError) throw new Error(String(execution.output));
  const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
  if (result.isError) throw new Error(String(result.output));
  return String(result.output);
}

function content(bytes: number): string {
  const line = 'const value = "some typical line of source text";\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

async function main(): Promise<void> {
  const [mode, file, arg, to] = process.argv.slice(2) as [string, string, string, string | undefined];
  const cwd = nodePath.dirname(file);
  if (mode === 'writeFile') {
    const text = content(Number(arg));
    const start = performance.now();
    await fsp.writeFile(file, text);
    process.stdout.write(JSON.stringify({ ms: performance.now() - start }));
    return;
  }
  const features = mode === 'tail' && arg === 'none' ? [new Feature('read-only').contributeTool(readTool)] : builtinFeatures();
  const app = createApp({ features });
  const agent = app.createAgent({ cwd });
  let ms: number;
  if (mode === 'edit') {
    await call(agent, 'Read', { path: file, n_lines: 1 });
    const start = performance.now();
    // Without TO, only the Read: the same process without the Edit, for comparing peak RSS.
    if (to !== undefined) await call(agent, 'Edit', { path: file, old_string: `const last = ${arg};`, new_string: `const last = ${to};` });
    ms = performance.now() - start;
  } else if (mode === 'write') {
    const text = content(Number(arg));
    const start = performance.now();
    await call(agent, 'Write', { path: file, content: text });
    ms = performance.now() - start;
  } else {
    const start = performance.now();
    await call(agent, 'Read', { path: file, line_offset: -100 });
    ms = performance.now() - start;
  }
  process.stdout.write(JSON.stringify({ ms }));
  await app.dispose();
}

void main();
