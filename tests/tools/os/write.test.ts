import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isTempFileName } from '../../../src/base/fs/atomicWrite';
import { fsErrorMessage } from '../../../src/base/fs/fileText';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { executeAfter, hookedRuntime, releaseFifo, replaceWithFifo, replaceWithSymlink } from '../../helpers/pathSwap';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';

const fx = useAgent({ builtins: true });

const at = (rel: string) => nodePath.join(fx.dir, rel);
const contentOf = (rel: string) => fs.readFileSync(at(rel), 'utf8');
const modeOf = (rel: string) => fs.statSync(at(rel)).mode & 0o777;
/** Everything in the temp dir, to show no temporary file is left behind. */
const listing = () => (fs.readdirSync(fx.dir, { recursive: true }) as string[]).sort();

async function write(input: Record<string, unknown>): Promise<{ output: string; isError: boolean }> {
  const result = await callTool(fx.agent, 'Write', input);
  return { output: text(result), isError: result.isError === true };
}

async function readFirst(rel: string): Promise<void> {
  const result = await callTool(fx.agent, 'Read', { path: rel });
  if (result.isError) throw new Error(text(result));
}

describe('Write', () => {
  beforeEach(() => fx.open());

  test('creates a new file and its missing parent directories, and reports the bytes', async () => {
    expect(await write({ path: 'a/b/c.txt', content: 'hello\n' })).toEqual({
      output: 'Wrote 6 bytes to a/b/c.txt (new file; created the directory a).',
      isError: false,
    });
    expect(contentOf('a/b/c.txt')).toBe('hello\n');
    expect(listing()).toEqual(['a', 'a/b', 'a/b/c.txt']);
  });

  test('counts UTF-8 bytes, not characters; empty content makes an empty file', async () => {
    expect((await write({ path: 'u.txt', content: 'héllo 世界 🎉' })).output).toBe('Wrote 18 bytes to u.txt (new file).');
    expect(fs.readFileSync(at('u.txt'))).toEqual(Buffer.from('héllo 世界 🎉'));
    expect((await write({ path: 'e.txt', content: '' })).output).toBe('Wrote 0 bytes to e.txt (new file).');
    expect(fs.statSync(at('e.txt')).size).toBe(0);
    expect((await write({ path: 'one.txt', content: 'x' })).output).toBe('Wrote 1 byte to one.txt (new file).');
  });

  test('writes content exactly: no newline added, CRLF kept', async () => {
    await write({ path: 'w.txt', content: 'a\r\nb' });
    expect(fs.readFileSync(at('w.txt'))).toEqual(Buffer.from('a\r\nb'));
  });

  test('overwrites a file it has read, and says what it replaced', async () => {
    writeFiles(fx.dir, { 'a.txt': '0123456789' });
    await readFirst('a.txt');
    expect(await write({ path: 'a.txt', content: 'new' })).toEqual({ output: 'Wrote 3 bytes to a.txt (replaced the previous 10 bytes).', isError: false });
    expect(contentOf('a.txt')).toBe('new');
    expect(listing()).toEqual(['a.txt']);
  });

  test('append adds the content at the end with no separator', async () => {
    writeFiles(fx.dir, { 'log.txt': 'one\n' });
    await readFirst('log.txt');
    expect((await write({ path: 'log.txt', content: 'two', mode: 'append' })).output).toBe('Appended 3 bytes to log.txt (the file is now 7 bytes).');
    expect((await write({ path: 'log.txt', content: '\nthree\n', mode: 'append' })).output).toBe('Appended 7 bytes to log.txt (the file is now 14 bytes).');
    expect(contentOf('log.txt')).toBe('one\ntwo\nthree\n');
    expect(listing()).toEqual(['log.txt']);
  });

  test('append to a missing file creates it', async () => {
    expect((await write({ path: 'new.log', content: 'abc', mode: 'append' })).output).toBe('Appended 3 bytes to new.log (new file).');
    expect(contentOf('new.log')).toBe('abc');
  });

  test('append copies a large file in chunks and keeps it whole', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 17, 'abcdefgh\n');
    fs.writeFileSync(at('big.log'), big);
    await readFirst('big.log');
    expect((await write({ path: 'big.log', content: 'END', mode: 'append' })).output).toBe('Appended 3 bytes to big.log (the file is now 5,242,900 bytes).');
    expect(fs.readFileSync(at('big.log')).equals(Buffer.concat([big, Buffer.from('END')]))).toBe(true);
  });

  test('keeps the mode of an existing file (overwrite and append); a new file gets the default mode', async () => {
    writeFiles(fx.dir, { 'run.sh': '#!/bin/sh\n', 'secret.txt': 'x' });
    fs.chmodSync(at('run.sh'), 0o755);
    fs.chmodSync(at('secret.txt'), 0o600);
    await readFirst('run.sh');
    await readFirst('secret.txt');
    await write({ path: 'run.sh', content: '#!/bin/sh\necho hi\n' });
    await write({ path: 'secret.txt', content: 'y', mode: 'append' });
    expect(modeOf('run.sh')).toBe(0o755);
    expect(modeOf('secret.txt')).toBe(0o600);
    await write({ path: 'fresh.txt', content: 'z' });
    expect(modeOf('fresh.txt')).toBe(0o666 & ~process.umask());
  });

  test('writes through a symlink to its target and keeps the link', async () => {
    writeFiles(fx.dir, { 'real.txt': 'old' });
    fs.symlinkSync(at('real.txt'), at('link.txt'));
    await readFirst('link.txt');
    expect((await write({ path: 'link.txt', content: 'new' })).output).toBe('Wrote 3 bytes to link.txt (replaced the previous 3 bytes).');
    expect(fs.lstatSync(at('link.txt')).isSymbolicLink()).toBe(true);
    expect(contentOf('real.txt')).toBe('new');
  });

  test('a file with a very long name is written (the temporary name stays within limits)', async () => {
    const name = `${'n'.repeat(250)}.txt`;
    expect((await write({ path: name, content: 'ok' })).output).toBe(`Wrote 2 bytes to ${name} (new file).`);
    expect(listing()).toEqual([name]);
  });
});

describe('Write errors', () => {
  beforeEach(() => fx.open());

  test.each<[string, Record<string, string>, string, string]>([
    ['a directory', { 'src/a.ts': '' }, 'src', '"src" is a directory. Write writes files: give the path of a file.'],
    ['a parent that is a file', { 'f.txt': 'x' }, 'f.txt/x.txt', 'Cannot write "f.txt/x.txt": "f.txt" is a file, not a directory.'],
    ['a deeper parent that is a file', { 'f.txt': 'x' }, 'f.txt/sub/x.txt', 'Cannot write "f.txt/sub/x.txt": "f.txt" is a file, not a directory.'],
    ['a secret', {}, '.env', '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.'],
    ['a relative path that leaves the workspace', {}, '../x.txt', '"../x.txt" is not an absolute path. You must provide an absolute path to write or edit a file outside the working directory.'],
  ])('%s', async (_name, files, path, message) => {
    writeFiles(fx.dir, files);
    const before = listing();
    expect(await write({ path, content: 'data' })).toEqual({ output: message, isError: true });
    expect(listing()).toEqual(before);
  });
});

test.each<[string | undefined, string]>([
  ['EACCES', 'Cannot write "a.txt": permission denied.'],
  ['EPERM', 'Cannot write "a.txt": permission denied.'],
  ['ENOSPC', 'Cannot write "a.txt": no space left on the device.'],
  ['EDQUOT', 'Cannot write "a.txt": the disk quota is exceeded.'],
  ['EFBIG', 'Cannot write "a.txt": the file would exceed the maximum file size allowed.'],
  ['EROFS', 'Cannot write "a.txt": the file system is read-only.'],
  ['ENAMETOOLONG', 'Cannot write "a.txt": the file name is too long.'],
  ['EIO', 'Cannot write "a.txt": EIO: i/o error'],
  [undefined, 'Cannot write "a.txt": EIO: i/o error'],
])('file-system error %s reads as a sentence', (code, message) => {
  const error = Object.assign(new Error('EIO: i/o error'), code ? { code } : {});
  expect(fsErrorMessage('write "a.txt"', error)).toBe(message);
});

describe('Write uses exactly the path it was resolved with', () => {
  let outside = '';
  beforeEach(() => {
    outside = makeTempDir('toolhost-outside-');
  });
  afterEach(() => {
    releaseFifo(at('a.txt'));
    removeDir(outside);
  });

  test('appending to a file swapped for a link to .env is refused: .env is neither copied into the file nor changed', async () => {
    fx.open({ config: { staleGuard: { enabled: false } } });
    writeFiles(fx.dir, { 'a.txt': 'mine\n', '.env': 'SECRET=hunter2\n' });
    const result = await executeAfter(fx.agent, 'Write', { path: 'a.txt', content: 'more\n', mode: 'append' }, () => replaceWithSymlink(at('a.txt'), at('.env')));
    expect(result).toEqual({
      isError: true,
      output: `"a.txt" changed between the approval and the write (it is now a link to "${fx.dir}/.env"); nothing was written. Check the path and call again.`,
    });
    expect(fs.readlinkSync(at('a.txt'))).toBe(at('.env'));
    expect(contentOf('.env')).toBe('SECRET=hunter2\n');
    expect(listing()).toEqual(['.env', 'a.txt']);
  });

  test('a new file whose folder was swapped for a link outside the workspace is refused, and nothing is created there', async () => {
    fx.open();
    writeFiles(fx.dir, { 'sub/keep.txt': 'x' });
    const result = await executeAfter(fx.agent, 'Write', { path: 'sub/new.txt', content: 'data' }, () => replaceWithSymlink(at('sub'), outside));
    expect(text(result)).toBe(
      `"sub/new.txt" changed between the approval and the write (a folder on its path is now a link, so it leads to "${outside}/new.txt"); nothing was written. Check the path and call again.`,
    );
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  test('the folder swapped right as the temporary file is created: it is checked where it landed, and removed from there', async () => {
    writeFiles(fx.dir, { 'sub/keep.txt': 'x' });
    let swapped = false;
    const swapOnTempOpen = (path: string) => {
      if (swapped || !isTempFileName(nodePath.basename(path))) return;
      swapped = true;
      replaceWithSymlink(at('sub'), outside);
    };
    fx.open({ runtime: hookedRuntime({ beforeOpen: swapOnTempOpen }) });
    expect(await write({ path: 'sub/new.txt', content: 'data' })).toEqual({
      isError: true,
      output: `"sub/new.txt" changed between the approval and the write (a folder on its path is now a link, so it leads to "${outside}/new.txt"); nothing was written. Check the path and call again.`,
    });
    expect(swapped).toBe(true);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  test('an existing file swapped for a FIFO right before it is opened is refused at once instead of blocking', async () => {
    let armed = false;
    const swapOnOpen = (path: string) => {
      if (!armed || path !== at('a.txt')) return;
      armed = false;
      replaceWithFifo(at('a.txt'));
    };
    fx.open({ runtime: hookedRuntime({ beforeOpen: swapOnOpen }) });
    writeFiles(fx.dir, { 'a.txt': 'old\n' });
    await readFirst('a.txt');
    armed = true;
    expect(await write({ path: 'a.txt', content: 'new\n' })).toEqual({
      isError: true,
      output: '"a.txt" is not a regular file (it is a FIFO (named pipe)). Write only writes regular files; nothing was written.',
    });
    expect(fs.statSync(at('a.txt')).isFIFO()).toBe(true);
  });
});

describe('Write never loses a change another program makes while it writes', () => {
  /** A runtime where `change` runs once the new content is in the temporary file, before the rename. */
  function changeDuringWrite(change: () => void) {
    const state = { armed: false };
    const runtime = hookedRuntime({
      beforeSync: (path) => {
        if (!state.armed || !isTempFileName(nodePath.basename(path))) return;
        state.armed = false;
        change();
      },
    });
    return { runtime, state };
  }

  test('the target changed meanwhile: the write is refused, the other change is kept, no temporary file is left', async () => {
    const { runtime, state } = changeDuringWrite(() => fs.writeFileSync(at('a.txt'), 'theirs, written meanwhile\n'));
    fx.open({ runtime });
    writeFiles(fx.dir, { 'a.txt': 'old\n' });
    await readFirst('a.txt');
    state.armed = true;
    expect(await write({ path: 'a.txt', content: 'mine\n'.repeat(100_000) })).toEqual({
      isError: true,
      output: '"a.txt" was changed by another program while this Write was in progress; it was left as that program left it, and nothing was written. Read it again, then call again.',
    });
    expect(contentOf('a.txt')).toBe('theirs, written meanwhile\n');
    expect(listing()).toEqual(['a.txt']);
  });

  test('the target replaced by another file meanwhile (same size): refused, the other file is kept', async () => {
    const { runtime, state } = changeDuringWrite(() => {
      fs.writeFileSync(at('other.txt'), 'OLD\n');
      fs.renameSync(at('other.txt'), at('a.txt'));
    });
    fx.open({ runtime });
    writeFiles(fx.dir, { 'a.txt': 'old\n' });
    await readFirst('a.txt');
    state.armed = true;
    expect((await write({ path: 'a.txt', content: 'mine\n' })).output).toBe(
      '"a.txt" was changed by another program while this Write was in progress; it was left as that program left it, and nothing was written. Read it again, then call again.',
    );
    expect(contentOf('a.txt')).toBe('OLD\n');
  });

  test('a new file created by another program meanwhile is kept, and this write refused', async () => {
    const { runtime, state } = changeDuringWrite(() => fs.writeFileSync(at('new.txt'), 'theirs\n'));
    fx.open({ runtime });
    state.armed = true;
    expect(await write({ path: 'new.txt', content: 'mine\n' })).toEqual({
      isError: true,
      output: '"new.txt" was created by another program while this Write was in progress; it was left as that program left it, and nothing was written. Read it, then call again.',
    });
    expect(contentOf('new.txt')).toBe('theirs\n');
    expect(listing()).toEqual(['new.txt']);
  });
});

describe('Write resolution', () => {
  beforeEach(() => fx.open());

  test('declares a write of the canonical path, a path rule, and a bounded file_io display', async () => {
    writeFiles(fx.dir, { 'src/a.ts': 'x' });
    fs.symlinkSync(at('src/a.ts'), at('alias.ts'));
    const tool = fx.agent.registry.get('Write')!.tool;
    const execution = await tool.resolveExecution({ path: 'alias.ts', content: 'abc' } as never);
    if (execution.isError) throw new Error('unexpected');
    const canonical = at('src/a.ts');
    expect(execution.accesses).toEqual([{ kind: 'file', op: 'write', path: canonical }]);
    expect(execution.approvalRule).toBe(`Write(${canonical})`);
    expect(execution.display).toEqual({ kind: 'file_io', operation: 'write', path: canonical, detail: 'overwrite, 3 characters', content: 'abc' });
    expect(execution.description).toBe('Writing src/a.ts');
    expect(execution.matchesRule!('src/**')).toBe(true);
    expect(execution.matchesRule!('lib/**')).toBe(false);

    const big = await tool.resolveExecution({ path: 'b.txt', content: 'z'.repeat(20_000), mode: 'append' } as never);
    if (big.isError) throw new Error('unexpected');
    expect(big.description).toBe('Appending to b.txt');
    expect(big.display).toEqual({
      kind: 'file_io',
      operation: 'write',
      path: at('b.txt'),
      detail: 'append, 20,000 characters',
      content: `${'z'.repeat(8000)}\n[… 12,000 more characters not shown]`,
    });
  });

  test('the description tells the model when to use Edit and about the read-first rule', () => {
    const description = fx.agent.registry.get('Write')!.tool.description;
    expect(description).toContain('To change part of an existing file, use Edit');
    expect(description).toContain('this agent must have read it with Read');
    expect(description).toContain('New files are never blocked');
  });
});
