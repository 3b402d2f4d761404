import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { sha256Hex } from '../../../src/base/fs/fileHash';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import {
  isTempFileName,
  removeStaleTempFiles,
  STALE_TEMP_FILE_MS,
  stringPieces,
  TargetChangedError,
  tempPathFor,
  writeFileAtomic,
} from '../../../src/base/fs/atomicWrite';
import { deferred } from '../../helpers/async';
import { useTempDir, writeFiles } from '../../helpers/tempDir';

const dir = useTempDir();
const at = (rel: string) => nodePath.join(dir.path, rel);
const listing = () => fs.readdirSync(dir.path).sort();
const localFs = createLocalRuntime().fs!;
const DIST = nodePath.resolve(__dirname, '../../../dist/index.js');
const TEMP_NAME = /^\.a\.txt\.toolhost-[0-9a-f]{12}\.tmp$/;

describe('writeFileAtomic', () => {
  test('writes strings and buffers, and reports the bytes and their SHA-256', async () => {
    const result = await writeFileAtomic(localFs, at('a.txt'), async (sink) => {
      await sink.write('héllo ');
      await sink.write(Buffer.from('wörld'));
    });
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('héllo wörld');
    expect(result).toEqual({ bytes: 13, sha256: sha256Hex('héllo wörld') });
    expect(listing()).toEqual(['a.txt']);
  });

  test('a producer that throws leaves the target untouched and no temporary file', async () => {
    writeFiles(dir.path, { 'a.txt': 'old' });
    await expect(
      writeFileAtomic(localFs, at('a.txt'), async (sink) => {
        await sink.write('new content that never lands');
        throw new Error('producer failed');
      }),
    ).rejects.toThrow('producer failed');
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('old');
    expect(listing()).toEqual(['a.txt']);
  });

  test('an abort half-way leaves the target untouched and no temporary file', async () => {
    writeFiles(dir.path, { 'a.txt': 'old' });
    const controller = new AbortController();
    await expect(
      writeFileAtomic(
        localFs,
        at('a.txt'),
        async (sink) => {
          await sink.write(Buffer.alloc(1024 * 1024, 'n'));
          controller.abort(new Error('stop'));
          await sink.write(Buffer.alloc(1024 * 1024, 'n'));
        },
        { signal: controller.signal },
      ),
    ).rejects.toThrow('stop');
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('old');
    expect(listing()).toEqual(['a.txt']);
  });

  test('a missing parent directory is an error, and nothing is left behind', async () => {
    await expect(writeFileAtomic(localFs, at('no/such/a.txt'), (sink) => sink.write('x'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(listing()).toEqual([]);
  });

  test('the mode given is applied exactly, whatever the umask', async () => {
    await writeFileAtomic(localFs, at('a.txt'), (sink) => sink.write('x'), { mode: 0o4751 });
    expect(fs.statSync(at('a.txt')).mode & 0o7777).toBe(0o4751);
  });

  test('concurrent writers of one file: the result is one of their contents, whole', async () => {
    const contents = ['A', 'B', 'C', 'D'].map((c) => c.repeat(3 * 1024 * 1024 + 11));
    await Promise.all(contents.map((content) => writeFileAtomic(localFs, at('a.txt'), (sink) => sink.write(content))));
    expect(contents).toContain(fs.readFileSync(at('a.txt'), 'utf8'));
    expect(listing()).toEqual(['a.txt']);
  });

  test('temporary names are hidden, unique, beside the target, and short enough for any file system', () => {
    const a = tempPathFor('/x/y/a.txt');
    expect(nodePath.dirname(a)).toBe('/x/y');
    expect(nodePath.basename(a)).toMatch(TEMP_NAME);
    expect(tempPathFor('/x/y/a.txt')).not.toBe(a);
    const long = tempPathFor(`/x/${'é'.repeat(127)}`);
    expect(Buffer.byteLength(nodePath.basename(long))).toBeLessThanOrEqual(255);
  });

  test('expectedTarget: a target removed, created or changed by someone else meanwhile is kept, and the write refused', async () => {
    writeFiles(dir.path, { 'a.txt': 'old' });
    const seen = fs.statSync(at('a.txt'));
    const writeWhile = (change: () => void, expectedTarget: fs.Stats | null) =>
      writeFileAtomic(localFs, at('a.txt'), async (sink) => {
        await sink.write('mine');
        change();
      }, { expectedTarget }).catch((error: unknown) => (error instanceof TargetChangedError ? error.how : error));
    expect(await writeWhile(() => fs.rmSync(at('a.txt')), seen)).toBe('removed');
    expect(listing()).toEqual([]);
    expect(await writeWhile(() => fs.writeFileSync(at('a.txt'), 'theirs'), null)).toBe('created');
    expect(await writeWhile(() => fs.appendFileSync(at('a.txt'), '!'), fs.statSync(at('a.txt')))).toBe('changed');
    expect(listing()).toEqual(['a.txt']);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('theirs!');
    // Unchanged: the write goes through.
    await writeWhile(() => undefined, fs.statSync(at('a.txt')));
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('mine');
  });

  test('string pieces never split a surrogate pair and join back to the input', () => {
    const text = 'a🎉b🎉🎉c'.repeat(7);
    for (const size of [1, 2, 3, 5, 8]) {
      const pieces = [...stringPieces(text, size)];
      expect(pieces.join('')).toBe(text);
      expect(Buffer.concat(pieces.map((p) => Buffer.from(p))).equals(Buffer.from(text))).toBe(true);
    }
    expect([...stringPieces('', 4)]).toEqual([]);
  });
});

/** Collects a child's stdout and resolves when a line starting with `prefix` arrives. */
describe('removeStaleTempFiles', () => {
  test('only toolhost temporary names count', () => {
    expect(isTempFileName(nodePath.basename(tempPathFor('/x/a.txt')))).toBe(true);
    for (const name of ['.a.txt.toolhost-0123456789ab.tmp', '.a b.toolhost-ffffffffffff.tmp', '..env.toolhost-ffffffffffff.tmp']) expect([name, isTempFileName(name)]).toEqual([name, true]);
    for (const name of ['a.txt.toolhost-0123456789ab.tmp', '.a.txt.toolhost-0123456789AB.tmp', '.a.txt.toolhost-0123456789a.tmp', '.a.txt.toolhost-0123456789ab.tmp~', '.toolhost-0123456789ab.tmp']) {
      expect([name, isTempFileName(name)]).toEqual([name, false]);
    }
  });

  test('the temporary file of a write still running in this process is kept, however old it looks', async () => {
    const release = deferred();
    const started = deferred();
    const writing = writeFileAtomic(localFs, at('a.txt'), async (sink) => {
      await sink.write(Buffer.alloc(128 * 1024));
      started.resolve();
      await release.promise;
    });
    await started.promise;
    const [temp] = listing();
    const then = (Date.now() - STALE_TEMP_FILE_MS - 60_000) / 1000;
    fs.utimesSync(at(temp!), then, then);
    expect(await removeStaleTempFiles(localFs, dir.path)).toEqual([]);
    release.resolve();
    await writing;
    expect(listing()).toEqual(['a.txt']);
  });
});

function waitForLine(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith(prefix));
      if (line !== undefined) resolve(line.slice(prefix.length));
    });
    child.on('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before "${prefix}": ${out}${err}`)));
  });
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode ?? child.exitCode);
    else child.on('exit', (code, signal) => resolve(signal ?? code));
  });
}

/** A script for `node -e` that runs tool calls through the built package (dist/). */
const CALL_TOOLS = `
const { createApp, builtinFeatures, createLocalRuntime } = require(${JSON.stringify(DIST)});
const call = async (agent, name, input) => {
  const execution = await agent.registry.get(name).tool.resolveExecution(input);
  if (execution.isError) return execution;
  return execution.execute({ toolCallId: 'c', signal: new AbortController().signal, onUpdate() {}, metadata: {} });
};
`;

describe('a Write interrupted by the process dying', () => {
  test('a writer killed half-way leaves the target whole, with its old content', async () => {
    const old = 'the old content, which must survive whole\n'.repeat(1000);
    writeFiles(dir.path, { 'a.txt': old });
    // The local file system, except that the writer announces its second write to the temporary
    // file and then stalls there, so the test can kill it at a known point half-way through.
    const script = `${CALL_TOOLS}
const fsp = require('node:fs/promises');
const [cwd, size] = process.argv.slice(1);
setInterval(() => {}, 1000);
const base = createLocalRuntime();
let writes = 0;
const open = async (...args) => {
  const handle = await fsp.open(...args);
  const realWrite = handle.write.bind(handle);
  handle.write = async (...a) => {
    const result = await realWrite(...a);
    if (++writes === 2) {
      process.stdout.write('HALF\\n');
      await new Promise(() => {});
    }
    return result;
  };
  return handle;
};
const app = createApp({ features: builtinFeatures() });
const agent = app.createAgent({ cwd, runtime: { ...base, name: 'stalling', fs: { ...base.fs, open } } });
(async () => {
  await call(agent, 'Read', { path: 'a.txt' });
  const result = await call(agent, 'Write', { path: 'a.txt', content: 'N'.repeat(Number(size)) });
  process.stdout.write('DONE ' + JSON.stringify(result) + '\\n');
})();
`;
    const child = spawn(process.execPath, ['-e', script, dir.path, String(8 * 1024 * 1024)], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await waitForLine(child, 'HALF');
      // Half-way: the new content is in a temporary file beside the target, which is intact.
      const temp = listing().filter((name) => name !== 'a.txt');
      expect(temp).toEqual([expect.stringMatching(TEMP_NAME)]);
      expect(fs.statSync(at(temp[0]!)).size).toBe(2 * 1024 * 1024);
      expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe(old);
      child.kill('SIGKILL');
      expect(await exited(child)).toBe('SIGKILL');
      expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe(old);
      // Only the temporary file can be left behind by a kill; it never replaced the target.
      expect(listing()).toEqual([temp[0]!, 'a.txt'].sort());
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('the same Write, not interrupted, replaces the file (the script works)', async () => {
    writeFiles(dir.path, { 'a.txt': 'old\n' });
    const script = `${CALL_TOOLS}
const [cwd] = process.argv.slice(1);
const app = createApp({ features: builtinFeatures() });
const agent = app.createAgent({ cwd });
(async () => {
  await call(agent, 'Read', { path: 'a.txt' });
  const result = await call(agent, 'Write', { path: 'a.txt', content: 'N'.repeat(3 * 1024 * 1024) });
  process.stdout.write('DONE ' + JSON.stringify(result) + '\\n');
  await app.dispose();
})();
`;
    const child = spawn(process.execPath, ['-e', script, dir.path], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(JSON.parse(await waitForLine(child, 'DONE '))).toEqual({ output: 'Wrote 3,145,728 bytes to a.txt (replaced the previous 4 bytes).' });
    expect(await exited(child)).toBe(0);
    expect(fs.statSync(at('a.txt')).size).toBe(3 * 1024 * 1024);
    expect(listing()).toEqual(['a.txt']);
  });
});

describe('a Write or Edit that hits the file-size limit (as with a full disk)', () => {
  test('fails cleanly: the target is untouched, a new file is not created, no temporary file is left', async () => {
    const old = 'small and intact\n';
    const edited = `${'c'.repeat(150 * 1024)}MARK\n`;
    writeFiles(dir.path, { 'a.txt': old, 'c.txt': edited });
    // ulimit -f caps the size of any file the process writes; with SIGXFSZ handled, write() fails with EFBIG.
    const script = `${CALL_TOOLS}
process.on('SIGXFSZ', () => {});
const [cwd] = process.argv.slice(1);
const app = createApp({ features: builtinFeatures() });
const agent = app.createAgent({ cwd });
(async () => {
  await call(agent, 'Read', { path: 'a.txt' });
  const overwrite = await call(agent, 'Write', { path: 'a.txt', content: 'x'.repeat(1024 * 1024) });
  const create = await call(agent, 'Write', { path: 'b.txt', content: 'y'.repeat(1024 * 1024) });
  await call(agent, 'Read', { path: 'c.txt' });
  const edit = await call(agent, 'Edit', { path: 'c.txt', old_string: 'MARK', new_string: 'z'.repeat(100 * 1024) });
  process.stdout.write('DONE ' + JSON.stringify([overwrite, create, edit]) + '\\n');
  await app.dispose();
})();
`;
    const child = spawn('bash', ['-c', 'ulimit -f 200 && exec "$0" -e "$1" "$2"', process.execPath, script, dir.path], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(JSON.parse(await waitForLine(child, 'DONE '))).toEqual([
      { output: 'Cannot write "a.txt": the file would exceed the maximum file size allowed. The file was left unchanged.', isError: true },
      { output: 'Cannot write "b.txt": the file would exceed the maximum file size allowed. Nothing was written.', isError: true },
      { output: 'Cannot write "c.txt": the file would exceed the maximum file size allowed. The file was left unchanged.', isError: true },
    ]);
    expect(await exited(child)).toBe(0);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe(old);
    expect(fs.readFileSync(at('c.txt'), 'utf8')).toBe(edited);
    expect(listing()).toEqual(['a.txt', 'c.txt']);
  });
});
