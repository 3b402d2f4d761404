import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import {
  InputTooLargeError,
  NotRegularFileError,
  openRegularFile,
  PathChangedError,
  readBounded,
  readRegularFileSync,
  verifyExistingPrefix,
} from '../../../src/base/fs/openedFile';
import type { RuntimeFs } from '../../../src/base/fs/runtimeFs';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import { makeTempDir, removeDir, useTempDir, writeFiles } from '../../helpers/tempDir';

const dir = useTempDir();
const at = (rel: string) => nodePath.join(dir.path, rel);
const localFs = createLocalRuntime().fs!;

/** What openRegularFile threw, as data. */
async function refusal(fs: RuntimeFs, path: string): Promise<unknown> {
  try {
    const { handle } = await openRegularFile(fs, path);
    await handle.close();
    return 'opened';
  } catch (error) {
    if (error instanceof PathChangedError) return { changed: error.change };
    if (error instanceof NotRegularFileError) return { notRegular: error.kind };
    throw error;
  }
}

describe('openRegularFile', () => {
  let outside = '';
  beforeEach(() => {
    outside = makeTempDir('toolhost-outside-');
    writeFiles(outside, { 'x.txt': 'outside' });
  });
  afterEach(() => removeDir(outside));

  test('opens a regular file and gives the stat of the handle', async () => {
    writeFiles(dir.path, { 'a.txt': 'abc' });
    const { handle, stat } = await openRegularFile(localFs, at('a.txt'));
    try {
      expect([stat.isFile(), stat.size, stat.ino]).toEqual([true, 3, fs.statSync(at('a.txt')).ino]);
    } finally {
      await handle.close();
    }
  });

  test('refuses what is not exactly a regular file at the path, without blocking', async () => {
    writeFiles(dir.path, { 'sub/x.txt': 'inside' });
    fs.symlinkSync(nodePath.join(outside, 'x.txt'), at('link.txt'));
    fs.symlinkSync(outside, at('linkdir'));
    execFileSync('mkfifo', [at('pipe')]);
    expect(await refusal(localFs, at('link.txt'))).toEqual({ changed: { kind: 'link', target: nodePath.join(outside, 'x.txt') } });
    expect(await refusal(localFs, at('linkdir/x.txt'))).toEqual({ changed: { kind: 'moved', actual: nodePath.join(outside, 'x.txt') } });
    expect(await refusal(localFs, at('pipe'))).toEqual({ notRegular: 'FIFO (named pipe)' });
    expect(await refusal(localFs, at('sub'))).toEqual({ notRegular: 'directory' });
    expect(await refusal(localFs, '/dev/null')).toEqual({ notRegular: 'character device' });
    await expect(openRegularFile(localFs, at('missing.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('where the handle is not a descriptor of this process, the path is resolved again and must lead to the same file', async () => {
    writeFiles(dir.path, { 'sub/x.txt': 'inside' });
    // A runtime whose handles carry no usable descriptor; a swap of the folder right after the open.
    let swapAfterOpen = false;
    const open = (async (...args: Parameters<RuntimeFs['open']>) => {
      const handle = await fsp.open(...args);
      if (swapAfterOpen) {
        fs.rmSync(at('sub'), { recursive: true });
        fs.symlinkSync(outside, at('sub'));
      }
      // No such descriptor in this process; the handle's own calls still reach the real file.
      return Object.create(handle, {
        fd: { value: 1_000_000 },
        stat: { value: () => handle.stat() },
        close: { value: () => handle.close() },
      }) as typeof handle;
    }) as RuntimeFs['open'];
    const remoteLike: RuntimeFs = { ...localFs, open };
    expect(await refusal(remoteLike, at('sub/x.txt'))).toBe('opened');
    swapAfterOpen = true;
    expect(await refusal(remoteLike, at('sub/x.txt'))).toEqual({ changed: { kind: 'moved', actual: nodePath.join(outside, 'x.txt') } });
  });
});

describe('verifyExistingPrefix', () => {
  test('the existing part of a path to be created must be reached without a link', async () => {
    const outside = makeTempDir('toolhost-outside-');
    try {
      fs.mkdirSync(at('real'));
      await expect(verifyExistingPrefix(localFs, at('real/new/a.txt'))).resolves.toBeUndefined();
      fs.symlinkSync(outside, at('link'));
      await expect(verifyExistingPrefix(localFs, at('link/new/a.txt'))).rejects.toMatchObject({
        change: { kind: 'moved', actual: nodePath.join(outside, 'new/a.txt') },
      });
      fs.symlinkSync(nodePath.join(outside, 'gone'), at('alias.txt'));
      fs.writeFileSync(nodePath.join(outside, 'gone'), '');
      await expect(verifyExistingPrefix(localFs, at('alias.txt'))).rejects.toMatchObject({ change: { kind: 'link', target: nodePath.join(outside, 'gone') } });
    } finally {
      removeDir(outside);
    }
  });
});

describe('bounded reads', () => {
  test('readBounded says when the file holds more than the limit', async () => {
    writeFiles(dir.path, { 'a.txt': 'abcdef' });
    const handle = await fsp.open(at('a.txt'), 'r');
    try {
      expect(await readBounded(handle, 6)).toEqual({ bytes: Buffer.from('abcdef'), more: false });
      expect(await readBounded(handle, 4)).toEqual({ bytes: Buffer.from('abcd'), more: true });
    } finally {
      await handle.close();
    }
  });

  test('readRegularFileSync reads a regular file up to the limit and refuses the rest', () => {
    writeFiles(dir.path, { 'a.json': '[1]' });
    execFileSync('mkfifo', [at('pipe')]);
    expect(readRegularFileSync(at('a.json'), 3).toString()).toBe('[1]');
    expect(() => readRegularFileSync(at('a.json'), 2)).toThrow(InputTooLargeError);
    expect(() => readRegularFileSync(at('pipe'), 100)).toThrow(new NotRegularFileError(at('pipe'), 'FIFO (named pipe)'));
    expect(() => readRegularFileSync('/dev/zero', 100)).toThrow(new NotRegularFileError('/dev/zero', 'character device'));
  });
});
