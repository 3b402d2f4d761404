import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { benchDir, fmt, measureProcess, median, table } from './util';

const TARGET_BYTES = 200 * 1024 * 1024;

/** A 200 MB file of real source text (the installed node_modules, repeated), made once and reused. */
function bigFile(): string {
  const file = nodePath.join(benchDir(), 'big.txt');
  if (fs.existsSync(file) && fs.statSync(file).size >= TARGET_BYTES) return file;
  const sources: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = nodePath.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(js|ts|md)$/.test(entry.name) && fs.statSync(full).size < 2_000_000) sources.push(full);
    }
  };
  walk(nodePath.resolve(__dirname, '../../node_modules'));
  const out = fs.openSync(file + '.tmp', 'w');
  let written = 0;
  while (written < TARGET_BYTES) {
    for (const source of sources) {
      const data = fs.readFileSync(source);
      const clean = Buffer.from(data.filter((b) => b !== 0));
      fs.writeSync(out, clean);
      written += clean.length;
      if (written >= TARGET_BYTES) break;
    }
  }
  fs.writeSync(out, '\n');
  fs.closeSync(out);
  fs.renameSync(file + '.tmp', file);
  return file;
}

async function runs(times: number, command: string, args: readonly string[]) {
  const results = [];
  for (let i = 0; i < times; i++) results.push(await measureProcess(command, args));
  return results;
}

export async function readBench(): Promise<void> {
  const file = bigFile();
  const size = fs.statSync(file).size;
  console.log(`\n## Read on a ${(size / 1024 / 1024).toFixed(0)} MB file (${file})`);
  const child = nodePath.join(__dirname, 'readChild.js');
  const rows: string[][] = [];
  const ratios: string[] = [];
  for (const [mode, label, tool, toolArgs] of [
    ['head', 'first 2,000 lines', 'head', ['-n', '2000', file]],
    ['tail', 'last 100 lines', 'tail', ['-n', '100', file]],
  ] as const) {
    const baseline = await runs(7, tool, toolArgs);
    const baseMs = median(baseline.map((r) => r.wallMs));
    for (const warmth of ['cold', 'warm'] as const) {
      const read = await runs(7, process.execPath, [child, file, mode, warmth]);
      const inProcess = read.map((r) => JSON.parse(r.stdout) as { ms: number; chars: number });
      const readMs = median(inProcess.map((r) => r.ms));
      rows.push([
        `Read ${label} (${warmth === 'cold' ? 'first file I/O of the process' : 'fs/promises loaded'})`,
        fmt(readMs),
        fmt(median(read.map((r) => r.wallMs))),
        fmt(median(read.map((r) => r.peakRssMb ?? NaN)), 1),
        String(inProcess[0]!.chars),
      ]);
      ratios.push(`Read ${label}, ${warmth} (in-process) / ${tool} (whole process): ${fmt(readMs / baseMs)}x`);
    }
    rows.push([`${tool} ${toolArgs.slice(0, 2).join(' ')}`, '-', fmt(baseMs), fmt(median(baseline.map((r) => r.peakRssMb ?? NaN)), 1), String(baseline[0]!.stdout.length)]);
  }
  const idle = await runs(5, process.execPath, ['-e', '0']);
  rows.push(['node -e 0 (idle Node)', '-', fmt(median(idle.map((r) => r.wallMs))), fmt(median(idle.map((r) => r.peakRssMb ?? NaN)), 1), '0']);
  console.log(table(['case', 'in-process ms', 'process ms', 'peak RSS MB', 'chars out'], rows));
  for (const ratio of ratios) console.log(ratio);
  console.log('Aim: peak RSS under 100 MB and time within 3x of head/tail.');
}
