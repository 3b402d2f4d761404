import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import type { ToolCall } from '../src/services/executor/toolExecutor';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function fmt(n: number, digits = 2): string {
  return n.toFixed(digits);
}

export function nowMs(): number {
  return performance.now();
}

export interface ProcessMeasure {
  /** Wall time from spawn to exit, ms. */
  readonly wallMs: number;
  /** Peak resident set size, MB (from /usr/bin/time when available). */
  readonly peakRssMb?: number;
  /** User + system CPU time, ms (from /usr/bin/time when available). */
  readonly cpuMs?: number;
  readonly stdout: string;
}

/** The repository (the benches run from .bench-out/bench). */
const REPO_ROOT = nodePath.resolve(__dirname, '../..');
/** The CLI as users run it: dist/cli/main.js (buildCli). */
export const CLI = nodePath.join(REPO_ROOT, 'dist', 'cli', 'main.js');
let cliBuilt = false;

/**
 * Builds dist/ (the CLI's bundle among it) from this checkout, once per bench run: `npm run bench`
 * itself builds only .bench-out, and a dist/ left from another commit would give that commit's
 * figures.
 */
export function buildCli(): void {
  if (cliBuilt) return;
  execFileSync(process.execPath, [nodePath.join(REPO_ROOT, 'scripts', 'build.js')], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  cliBuilt = true;
}

/**
 * The environment for runs of the CLI under one set of node flags: a code cache of their own. V8
 * rejects a cache made under other flags, so variants alternating on one cache would each
 * recompile the bundle and rewrite it at every run, and time that instead of the command.
 */
export function cliEnvFor(flags: readonly string[]): NodeJS.ProcessEnv {
  const name = flags.length === 0 ? 'default' : flags.join('_').replace(/[^a-z0-9=_-]/gi, '');
  return { ...process.env, XDG_CACHE_HOME: nodePath.join(benchDir(), 'cli-caches', name) };
}

const GNU_TIME = '/usr/bin/time';

/** Runs a command (stdout captured) and measures wall time and, with GNU time, peak RSS. */
export function measureProcess(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<ProcessMeasure> {
  const useTime = fs.existsSync(GNU_TIME);
  const file = useTime ? GNU_TIME : command;
  const fullArgs = useTime ? ['-f', '__RSS__%M __CPU__%U %S', command, ...args] : [...args];
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const child = spawn(file, fullArgs, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = nowMs() - start;
      if (code !== 0) return reject(new Error(`${command} exited ${code}: ${stderr}`));
      const rss = /__RSS__(\d+)/.exec(stderr);
      const cpu = /__CPU__([\d.]+) ([\d.]+)/.exec(stderr);
      resolve({ wallMs, peakRssMb: rss ? Number(rss[1]) / 1024 : undefined, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined, stdout });
    });
  });
}

export function benchDir(): string {
  const dir = nodePath.join(os.tmpdir(), 'toolhost-bench');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** What perCallMicros runs batches on: an agent's executor. */
export interface BatchRunner {
  readonly executor: { execute(calls: readonly ToolCall[]): Promise<readonly { readonly outcome: string }[]> };
}

/**
 * Median µs per call of each runner over the same batch: 5 warm-up rounds, then 41 rounds of 100
 * batches, the runners' order reversed every other round so none always runs first.
 */
export async function perCallMicros(runners: readonly BatchRunner[], calls: readonly ToolCall[], batches = 100): Promise<number[]> {
  const round = async (runner: BatchRunner): Promise<number> => {
    const t = nowMs();
    for (let i = 0; i < batches; i++) {
      const results = await runner.executor.execute(calls);
      if (results.some((r) => r.outcome !== 'executed')) throw new Error('a call did not run');
    }
    return ((nowMs() - t) * 1000) / (batches * calls.length);
  };
  for (let i = 0; i < 5; i++) for (const runner of runners) await round(runner);
  const samples = runners.map(() => [] as number[]);
  for (let r = 0; r < 41; r++) {
    const order = runners.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) samples[i]!.push(await round(runners[i]!));
  }
  return samples.map(median);
}
