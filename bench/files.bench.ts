import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { benchDir, fmt, measureProcess, median, table } from './util';

const EDIT_BYTES = 50 * 1024 * 1024;
const TAIL_BYTES = 30 * 1024 * 1024;
const LINE = 'const value = "some typical line of source text";\n';

function makeFile(name: string, bytes: number, last: string): string {
  const file = nodePath.join(benchDir(), name);
  const body = LINE.repeat(Math.ceil(bytes / LINE.length)) + last;
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== body) fs.writeFileSync(file, body);
  return file;
}

async function runs(times: number, command: string, args: readonly string[]) {
  const results = [];
  for (let i = 0; i < times; i++) results.push(await measureProcess(command, args));
  return results;
}

const inProcessMs = (results: readonly { stdout: string }[]) => median(results.map((r) => (JSON.parse(r.stdout) as { ms: number }).ms));
const peakRss = (results: readonly { peakRssMb?: number }[]) => median(results.map((r) => r.peakRssMb ?? NaN));
const wall = (results: readonly { wallMs: number }[]) => median(results.map((r) => r.wallMs));

/** Edit and Write on large files: time against plain tools in the same run, and peak RSS. */
export async function filesBench(): Promise<void> {
  const child = nodePath.join(__dirname, 'filesChild.js');
  const node = process.execPath;
  const editFile = makeFile('edit-50mb.js', EDIT_BYTES, 'const last = 1;\n');
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  console.log(`\n## Write and Edit on large files (${benchDir()})`);

  const idle = await runs(5, node, ['-e', '0']);
  const edit: Awaited<ReturnType<typeof runs>> = [];
  // Each run flips the last line, so the file is the same size every time and ends as it began.
  for (let i = 0; i < 8; i++) edit.push(await measureProcess(node, [child, 'edit', editFile, String(1 + (i % 2)), String(2 - (i % 2))]));
  const readOnly = await runs(5, node, [child, 'edit', editFile, '1']);
  const sed = await runs(7, 'sed', ['-i', 's/^const last = 1;$/const last = 1;/', editFile]);
  const writeTarget = nodePath.join(benchDir(), 'write-50mb.txt');
  const write: Awaited<ReturnType<typeof runs>> = [];
  const plain: Awaited<ReturnType<typeof runs>> = [];
  for (let i = 0; i < 5; i++) {
    fs.rmSync(writeTarget, { force: true });
    write.push(await measureProcess(node, [child, 'write', writeTarget, String(EDIT_BYTES)]));
    fs.rmSync(writeTarget, { force: true });
    plain.push(await measureProcess(node, [child, 'writeFile', writeTarget, String(EDIT_BYTES)]));
  }
  fs.rmSync(writeTarget, { force: true });
  const tailFile = makeFile('tail-30mb.txt', TAIL_BYTES, 'end\n');
  const guarded: Awaited<ReturnType<typeof runs>> = [];
  const bare: Awaited<ReturnType<typeof runs>> = [];
  for (let i = 0; i < 7; i++) {
    guarded.push(await measureProcess(node, [child, 'tail', tailFile, 'guard']));
    bare.push(await measureProcess(node, [child, 'tail', tailFile, 'none']));
  }

  const idleRss = peakRss(idle);
  console.log(
    table(
      ['case', 'in-process ms', 'process ms', 'peak RSS MB'],
      [
        [`Edit one line of a ${mb(EDIT_BYTES)} MB file (after a 1-line Read)`, fmt(inProcessMs(edit)), fmt(wall(edit)), fmt(peakRss(edit), 1)],
        [`the same process without the Edit (RSS baseline)`, '-', fmt(wall(readOnly)), fmt(peakRss(readOnly), 1)],
        [`sed -i on the same file (baseline)`, '-', fmt(wall(sed)), fmt(peakRss(sed), 1)],
        [`Write ${mb(EDIT_BYTES)} MB, new file (atomic, fsync)`, fmt(inProcessMs(write)), fmt(wall(write)), fmt(peakRss(write), 1)],
        [`fs.promises.writeFile of the same string (baseline)`, fmt(inProcessMs(plain)), fmt(wall(plain)), fmt(peakRss(plain), 1)],
        [`Read last 100 lines of ${mb(TAIL_BYTES)} MB, guard on (hashes the file)`, fmt(inProcessMs(guarded)), fmt(wall(guarded)), fmt(peakRss(guarded), 1)],
        [`Read last 100 lines of ${mb(TAIL_BYTES)} MB, no guard (baseline)`, fmt(inProcessMs(bare)), fmt(wall(bare)), fmt(peakRss(bare), 1)],
        ['node -e 0 (idle Node)', '-', fmt(wall(idle)), fmt(idleRss, 1)],
      ],
    ),
  );
  console.log(`Edit (in-process) / sed -i (whole process): ${fmt(inProcessMs(edit) / wall(sed))}x`);
  console.log(`Edit peak RSS above the same process without it, in copies of the file: ${fmt((peakRss(edit) - peakRss(readOnly)) / (EDIT_BYTES / 1024 / 1024))}`);
  console.log(`Write / fs.promises.writeFile (in-process): ${fmt(inProcessMs(write) / inProcessMs(plain))}x`);
  console.log(`Read tail with the guard's hash / without (in-process): ${fmt(inProcessMs(guarded) / inProcessMs(bare))}x`);
  console.log('No set aim; Edit should hold about one copy of the file (the content string of Write is the caller\'s).');
}
