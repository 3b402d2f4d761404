import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { fsErrorMessage } from '../../../src/base/fs/fileText';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { writeFiles } from '../../helpers/tempDir';

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
