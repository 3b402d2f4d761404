import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import type { RunnableToolExecution } from '../src/tool/contract';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { BIG_OUTPUT_COMMAND } from './bashChild';
import { benchDir, fmt, measureProcess, median, nowMs, table } from './util';

function bareSpawn(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** Per-call launch cost: the Bash tool against a bare spawn, alternating A/B in this process. */
async function launch(dir: string): Promise<void> {
  const app = createApp({ features: builtinFeatures() });
  const agent = app.createAgent({ cwd: dir, dataDir: nodePath.join(dir, 'data') });
  const tool = agent.registry.get('Bash')!.tool;
  const viaTool = async () => {
    const execution = (await tool.resolveExecution({ command: 'true' } as never)) as RunnableToolExecution;
    const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
    if (result.isError) throw new Error(String(result.output));
  };
  for (let i = 0; i < 10; i++) {
    await bareSpawn('true', dir);
    await viaTool();
  }
  const bare: number[] = [];
  const tooled: number[] = [];
  for (let i = 0; i < 60; i++) {
    let t = nowMs();
    await bareSpawn('true', dir);
    bare.push(nowMs() - t);
    t = nowMs();
    await viaTool();
    tooled.push(nowMs() - t);
  }
  await app.dispose();
  const b = median(bare);
  const m = median(tooled);
  console.log(`\n## Bash: launching \`true\` (60 alternating runs, medians)`);
  console.log(
    table(
      ['case', 'median ms', 'p90 ms'],
      [
        ["spawn('bash', ['-c', 'true']) → close", fmt(b), fmt(p90(bare))],
        ['Bash tool: resolve + execute `true`', fmt(m), fmt(p90(tooled))],
      ],
    ),
  );
  console.log(`Bash tool / bare spawn: ${fmt(m / b)}x (aim: within 1.5x)`);
}

function p90(values: readonly number[]): number {
  const sorted = [...values].sort((a, c) => a - c);
  return sorted[Math.floor(sorted.length * 0.9)]!;
}

/** 100 MB of output, in this process, alternating A/B after a warm-up: the tool against the command redirected to a file. */
async function bigOutputWarm(dir: string): Promise<void> {
  const app = createApp({ features: builtinFeatures() });
  const agent = app.createAgent({ cwd: dir, dataDir: nodePath.join(dir, 'data') });
  const tool = agent.registry.get('Bash')!.tool;
  const viaTool = async () => {
    const execution = (await tool.resolveExecution({ command: BIG_OUTPUT_COMMAND } as never)) as RunnableToolExecution;
    const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
    if (result.isError || !result.truncated) throw new Error(String(result.output).slice(-300));
    fs.rmSync(nodePath.join(dir, 'data'), { recursive: true, force: true });
  };
  const redirected = () => bareSpawn(`${BIG_OUTPUT_COMMAND} > redirected.txt`, dir);
  await viaTool();
  await redirected();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 7; i++) {
    let t = nowMs();
    await redirected();
    b.push(nowMs() - t);
    t = nowMs();
    await viaTool();
    a.push(nowMs() - t);
  }
  await app.dispose();
  console.log(`\n## Bash: a command printing 100 MB (\`${BIG_OUTPUT_COMMAND}\`), in this process, 7 alternating runs after a warm-up, medians`);
  console.log(
    table(
      ['case', 'median ms', 'p90 ms'],
      [
        ['Bash tool (head + tail in memory, full output spilled to a file)', fmt(median(a)), fmt(p90(a))],
        ['bash -c "… > file" spawned from Node', fmt(median(b)), fmt(p90(b))],
      ],
    ),
  );
  console.log(`Bash tool / redirect to a file (warm, same process): ${fmt(median(a) / median(b))}x (aim: within 1.5x)`);
}

/** 100 MB of output: the tool in a fresh child process (for its peak RSS) against the command redirected to a file. */
async function bigOutput(dir: string): Promise<void> {
  const child = nodePath.join(__dirname, 'bashChild.js');
  const tool: { ms: number; rss: number; wall: number }[] = [];
  const file: { ms: number; rss: number; wall: number }[] = [];
  for (let i = 0; i < 5; i++) {
    for (const [mode, into] of [
      ['file', file],
      ['tool', tool],
    ] as const) {
      const run = await measureProcess(process.execPath, [child, mode, dir]);
      const { ms } = JSON.parse(run.stdout) as { ms: number };
      into.push({ ms, rss: run.peakRssMb ?? NaN, wall: run.wallMs });
      fs.rmSync(nodePath.join(dir, 'data'), { recursive: true, force: true });
      fs.rmSync(nodePath.join(dir, 'redirected.txt'), { force: true });
    }
  }
  const idle = [];
  for (let i = 0; i < 3; i++) idle.push(await measureProcess(process.execPath, ['-e', '0']));
  const toolMs = median(tool.map((r) => r.ms));
  const fileMs = median(file.map((r) => r.ms));
  const toolRss = median(tool.map((r) => r.rss));
  console.log(`\n## Bash: the same 100 MB command, each run in a fresh Node process (cold), 5 alternating runs, medians`);
  console.log(
    table(
      ['case', 'command ms', 'process ms', 'peak RSS MB'],
      [
        ['Bash tool (head + tail in memory, full output spilled to a file)', fmt(toolMs), fmt(median(tool.map((r) => r.wall))), fmt(toolRss, 1)],
        ['bash -c "… > file" spawned from Node', fmt(fileMs), fmt(median(file.map((r) => r.wall))), fmt(median(file.map((r) => r.rss)), 1)],
        ['node -e 0 (idle Node)', '-', fmt(median(idle.map((r) => r.wallMs))), fmt(median(idle.map((r) => r.peakRssMb ?? NaN)), 1)],
      ],
    ),
  );
  console.log(`Bash tool / redirect to a file (cold process): ${fmt(toolMs / fileMs)}x (aim: within 1.5x); peak RSS ${fmt(toolRss, 1)} MB (aim: under 100 MB)`);
}

/** A `true` through the Bash tool under bubblewrap (config sandbox "bwrap") against the same without it, alternating. */
async function sandboxed(dir: string): Promise<void> {
  const agentWith = (sandbox: 'none' | 'bwrap') => {
    const app = createApp({ features: builtinFeatures(), config: { sandbox } });
    const agent = app.createAgent({ cwd: dir, dataDir: nodePath.join(dir, `data-${sandbox}`) });
    const tool = agent.registry.get('Bash')!.tool;
    const run = async () => {
      const execution = (await tool.resolveExecution({ command: 'true' } as never)) as RunnableToolExecution;
      const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
      if (result.isError) throw new Error(String(result.output));
    };
    return { app, run };
  };
  const plain = agentWith('none');
  const boxed = agentWith('bwrap');
  for (let i = 0; i < 10; i++) {
    await plain.run();
    await boxed.run();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 60; i++) {
    let t = nowMs();
    await plain.run();
    a.push(nowMs() - t);
    t = nowMs();
    await boxed.run();
    b.push(nowMs() - t);
  }
  await plain.app.dispose();
  await boxed.app.dispose();
  console.log(`\n## Bash under the bubblewrap sandbox: \`true\` (60 alternating runs, medians)`);
  console.log(
    table(
      ['case', 'median ms', 'p90 ms'],
      [
        ['Bash `true`, sandbox "none"', fmt(median(a)), fmt(p90(a))],
        ['Bash `true`, sandbox "bwrap"', fmt(median(b)), fmt(p90(b))],
      ],
    ),
  );
  console.log(`sandboxed / unsandboxed: ${fmt(median(b) / median(a))}x (aim: at most 3x)`);
}

/** `npm run bench -- sandbox`: the sandbox's cost alone. */
export async function sandboxBench(): Promise<void> {
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(benchDir(), 'sandbox-')));
  try {
    await sandboxed(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function bashBench(): Promise<void> {
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(benchDir(), 'bash-')));
  try {
    await launch(dir);
    await sandboxed(dir);
    await bigOutputWarm(dir);
    await bigOutput(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
