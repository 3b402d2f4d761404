import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isTempFileName, STALE_TEMP_FILE_MS } from '../../../src/base/fs/atomicWrite';
import { IAgentTempFileSweep } from '../../../src/tools/os/write/tempFileSweep';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { killQuietly } from '../../helpers/processes';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';

/**
 * Temporary files of writes that were killed: a real process writes through writeFileAtomic (the
 * built package) and is killed half-way; its temporary file stays until a Write or Edit in that
 * folder, or the next agent start (workspace roots), removes it once it is stale.
 */
const ATOMIC_WRITE = nodePath.resolve(__dirname, '../../../dist/base/fs/atomicWrite.js');

const fx = useAgent({ builtins: true });
const writers: ChildProcess[] = [];
afterEach(() => {
  for (const child of writers.splice(0)) if (child.pid !== undefined) killQuietly(child.pid);
});

/** A process in the middle of an atomic write of `target`: 1 MiB is in its temporary file, the rest never comes. */
async function startWriter(target: string): Promise<ChildProcess> {
  const script = `
    const { writeFileAtomic } = require(${JSON.stringify(ATOMIC_WRITE)});
    setInterval(() => {}, 60_000);
    writeFileAtomic(require('node:fs/promises'), ${JSON.stringify(target)}, async (sink) => {
      await sink.write(Buffer.alloc(1024 * 1024, 120));
      process.stdout.write('writing\\n');
      await new Promise(() => {});
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  writers.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('writing') && resolve());
    child.on('exit', (code) => reject(new Error(`the writer exited (${code}) before it wrote`)));
  });
  return child;
}

/** The temporary file a writer of `target` has open (exactly one). */
function tempFileOf(target: string): string {
  const prefix = `.${nodePath.basename(target)}.toolhost-`;
  const names = fs.readdirSync(nodePath.dirname(target)).filter((name) => name.startsWith(prefix) && isTempFileName(name));
  expect(names).toHaveLength(1);
  return nodePath.join(nodePath.dirname(target), names[0]!);
}

/** A writer killed half-way; returns the temporary file it left, aged past the stale limit. */
async function killedWriterLeftover(target: string): Promise<string> {
  const child = await startWriter(target);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const temp = tempFileOf(target);
  expect(fs.statSync(temp).size).toBe(1024 * 1024);
  age(temp);
  return temp;
}

/** Sets the modification time past the stale limit (as if minutes had passed). */
function age(path: string, link = false): void {
  const then = (Date.now() - STALE_TEMP_FILE_MS - 60_000) / 1000;
  if (link) fs.lutimesSync(path, then, then);
  else fs.utimesSync(path, then, then);
}

/** Old things that are not stale temporary files: none of them may be removed. */
function decoys(dir: string, outside: string): string[] {
  writeFiles(outside, { 'target.txt': 'not ours' });
  writeFiles(dir, { 'notes.tmp': 'x', '.d.txt.toolhost-nothex000000.tmp': 'x', '.e.txt.toolhost-0123456789ab.tmp.bak': 'x' });
  fs.mkdirSync(nodePath.join(dir, '.f.toolhost-0123456789ab.tmp'));
  fs.symlinkSync(nodePath.join(outside, 'target.txt'), nodePath.join(dir, '.c.txt.toolhost-0123456789ab.tmp'));
  const paths = ['notes.tmp', '.d.txt.toolhost-nothex000000.tmp', '.e.txt.toolhost-0123456789ab.tmp.bak', '.f.toolhost-0123456789ab.tmp'].map((n) => nodePath.join(dir, n));
  for (const path of paths) age(path);
  age(nodePath.join(dir, '.c.txt.toolhost-0123456789ab.tmp'), true);
  return [...paths, nodePath.join(dir, '.c.txt.toolhost-0123456789ab.tmp')];
}

describe('stale temporary files of killed writes', () => {
  let outside = '';
  beforeEach(() => {
    outside = makeTempDir('toolhost-outside-');
  });
  afterEach(() => removeDir(outside));

  test('a Write removes the stale ones in its folder and keeps a running write\'s, links and everything else', async () => {
    fx.open();
    const sub = nodePath.join(fx.dir, 'sub');
    fs.mkdirSync(sub);
    const leftover = await killedWriterLeftover(nodePath.join(sub, 'a.txt'));
    await startWriter(nodePath.join(sub, 'b.txt'));
    const running = tempFileOf(nodePath.join(sub, 'b.txt'));
    const kept = decoys(sub, outside);

    expect(text(await callTool(fx.agent, 'Write', { path: 'sub/new.txt', content: 'x' }))).toBe('Wrote 1 byte to sub/new.txt (new file).');
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.statSync(running).size).toBe(1024 * 1024);
    for (const path of kept) expect([path, fs.lstatSync(path, { throwIfNoEntry: false }) !== undefined]).toEqual([path, true]);
    expect(fs.readFileSync(nodePath.join(outside, 'target.txt'), 'utf8')).toBe('not ours');
  });

  test('an Edit removes the stale ones in its folder', async () => {
    fx.open();
    writeFiles(fx.dir, { 'a.txt': 'alpha\n' });
    await callTool(fx.agent, 'Read', { path: 'a.txt' });
    const leftover = await killedWriterLeftover(nodePath.join(fx.dir, 'a.txt'));
    expect(text(await callTool(fx.agent, 'Edit', { path: 'a.txt', old_string: 'alpha', new_string: 'beta' }))).toBe('Replaced 1 occurrence in a.txt (line 1).');
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.readdirSync(fx.dir)).toEqual(['a.txt']);
  });

  test('an agent start removes the stale ones at the top level of the workspace roots, and nothing deeper', async () => {
    const extra = makeTempDir('toolhost-extra-');
    try {
      fs.mkdirSync(nodePath.join(fx.dir, 'deep'));
      const atRoot = await killedWriterLeftover(nodePath.join(fx.dir, 'a.txt'));
      const inExtra = await killedWriterLeftover(nodePath.join(extra, 'e.txt'));
      const deeper = await killedWriterLeftover(nodePath.join(fx.dir, 'deep', 'b.txt'));
      await startWriter(nodePath.join(fx.dir, 'c.txt'));
      const running = tempFileOf(nodePath.join(fx.dir, 'c.txt'));
      const kept = decoys(fx.dir, outside);

      fx.open({ additionalDirs: [extra] });
      await fx.agent.get(IAgentTempFileSweep).done;
      expect([fs.existsSync(atRoot), fs.existsSync(inExtra)]).toEqual([false, false]);
      expect([fs.existsSync(deeper), fs.existsSync(running)]).toEqual([true, true]);
      for (const path of kept) expect([path, fs.lstatSync(path, { throwIfNoEntry: false }) !== undefined]).toEqual([path, true]);
    } finally {
      removeDir(extra);
    }
  });
});
