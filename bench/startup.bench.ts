import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { benchDir, buildCli, CLI, fmt, measureProcess, median, table } from './util';

const ROUNDS = 11;

/**
 * CLI start-up: `toolhost tools --json` (build the App with every builtin feature, one agent,
 * render every tool's description and schema) against `node -e 0` in the same run; without the
 * code cache (every parse and compile paid, as on a first run) and with it (every later run).
 */
export async function startupBench(): Promise<void> {
  buildCli();
  const cwd = benchDir();
  const args = [CLI, 'tools', '--json', '--cwd', cwd];
  const cacheHome = fs.mkdtempSync(nodePath.join(cwd, 'cache-'));
  const withCache = { ...process.env, XDG_CACHE_HOME: cacheHome };
  const noCache = { ...process.env, TOOLHOST_NO_COMPILE_CACHE: '1' };
  await measureProcess(process.execPath, args, withCache); // writes the cache
  const samples = { node: [] as number[], cold: [] as number[], warm: [] as number[] };
  // Interleaved, so a busy moment of the machine hits all three alike.
  for (let i = 0; i < ROUNDS; i++) {
    samples.node.push((await measureProcess(process.execPath, ['-e', '0'])).wallMs);
    samples.cold.push((await measureProcess(process.execPath, args, noCache)).wallMs);
    samples.warm.push((await measureProcess(process.execPath, args, withCache)).wallMs);
  }
  fs.rmSync(cacheHome, { recursive: true, force: true });
  const base = median(samples.node);
  console.log(`\n## CLI start-up (median of ${ROUNDS}, wall ms; ratio to node -e 0 in the same run)\n`);
  console.log(
    table(
      ['case', 'ms', 'ratio'],
      [
        ['node -e 0', fmt(base, 1), '1.00'],
        ['toolhost tools --json, no code cache', fmt(median(samples.cold), 1), fmt(median(samples.cold) / base)],
        ['toolhost tools --json, code cache', fmt(median(samples.warm), 1), fmt(median(samples.warm) / base)],
      ],
    ),
  );
}
