import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { CLI } from '../helpers/cliProcess';
import { useTempDir } from '../helpers/tempDir';

const dir = useTempDir();

/** The CLI under `ulimit -n`, as a shell runs it. */
function runLimited(openFiles: number, args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('/bin/sh', ['-c', `ulimit -n ${openFiles} && exec ${quoted}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a batch of more Reads than the process may open files at once: every one reads its file', async () => {
  // Without a bound on how many calls run at once, all 600 open their file together and those
  // past the limit fail with EMFILE.
  const files = Array.from({ length: 600 }, (_, i) => nodePath.join(dir.path, `f${i}.txt`));
  files.forEach((file, i) => fs.writeFileSync(file, `file ${i}\n`));
  const batch = nodePath.join(dir.path, 'batch.json');
  fs.writeFileSync(batch, JSON.stringify(files.map((path) => ({ name: 'Read', arguments: { path } }))));
  const run = await runLimited(256, ['run', '--json', '--cwd', dir.path, batch], dir.path);
  expect(run.code).toBe(0);
  const { results } = JSON.parse(run.stdout) as { results: { isError: boolean; output: string }[] };
  expect(results.filter((r) => r.isError).map((r) => r.output)).toEqual([]);
  expect(results.map((r) => /file (\d+)/.exec(r.output)?.[1])).toEqual(files.map((_, i) => String(i)));
}, 60_000);
