// One 100 MB command in a fresh process, so its peak RSS can be measured: prints {ms, chars}.
//   node bashChild.js tool <dir>   through the Bash tool (output captured, spilled to a file)
//   node bashChild.js file <dir>   the same command with its output redirected to a file
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';

export const BIG_OUTPUT_COMMAND = 'yes 0123456789abcdef | head -c 100000000';

async function main(): Promise<void> {
  const [mode, dir] = process.argv.slice(2) as ['tool' | 'file', string];
  if (mode === 'file') {
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-c', `${BIG_OUTPUT_COMMAND} > ${JSON.stringify(nodePath.join(dir, 'redirected.txt'))}`], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    process.stdout.write(JSON.stringify({ ms: performance.now() - start, chars: 0 }));
    return;
  }
  const app = createApp({ features: builtinFeatures() });
  const agent = app.createAgent({ cwd: dir, dataDir: nodePath.join(dir, 'data') });
  const tool = agent.registry.get('Bash')!.tool;
  const start = performance.now();
  const execution = await tool.resolveExecution({ command: BIG_OUTPUT_COMMAND } as never);
  if (execution.isError) throw new Error(String(execution.output));
  let updates = 0;
  const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => void updates++, metadata: {} });
  const ms = performance.now() - start;
  if (result.isError || !result.truncated) throw new Error(`unexpected result: ${String(result.output).slice(-500)}`);
  process.stdout.write(JSON.stringify({ ms, chars: String(result.output).length, updates }));
  await app.dispose();
}

if (require.main === module) void main();
