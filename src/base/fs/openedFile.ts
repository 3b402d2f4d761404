import * as nodeFs from 'node:fs';
import { constants, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { isErrnoException } from '../errors';
import type { PositionalReader } from './fileHash';
import { isLocalDisk, type RuntimeFs } from './runtimeFs';

/**
 * Using a path that was resolved (canonicalised, checked, approved) earlier: between the check and
 * the use, a file or folder can be swapped for a symlink (to `.env`, `~/.ssh`, anywhere) or a
 * FIFO. These helpers verify what is actually opened or entered, and say how it differs.
 */

/** What is at a path, as messages name it. */
export type FileKind = 'regular file' | 'directory' | 'FIFO (named pipe)' | 'socket' | 'character device' | 'block device' | 'symbolic link' | 'special file';

export function fileKindOf(stat: Stats): FileKind {
  if (stat.isFile()) return 'regular file';
  if (stat.isDirectory()) return 'directory';
  if (stat.isFIFO()) return 'FIFO (named pipe)';
  if (stat.isSocket()) return 'socket';
  if (stat.isCharacterDevice()) return 'character device';
  if (stat.isBlockDevice()) return 'block device';
  if (stat.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}

/** How a path now differs from the canonical path it was resolved to. */
export type PathChange =
  /** The path itself is now a symbolic link (to `target`, when it resolves). */
  | { readonly kind: 'link'; readonly target?: string }
  /** A folder on the path is now a link: the path leads to `actual`. */
  | { readonly kind: 'moved'; readonly actual: string }
  /** What was opened is not the file at the path (it was replaced or removed meanwhile). */
  | { readonly kind: 'replaced' };

/** A resolved path no longer leads where it did. Tools turn it into a message with `pathChangedMessage`. */
export class PathChangedError extends Error {
  override readonly name = 'PathChangedError';
  constructor(
    readonly path: string,
    readonly change: PathChange,
  ) {
    super(`${path} changed after it was resolved (${describeChange(change)})`);
  }
}

/** Something other than a regular file is at the path (found on the opened handle, without blocking). */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  constructor(
    readonly path: string,
    readonly kind: FileKind,
  ) {
    super(`${path} is a ${kind}, not a regular file`);
  }
}

function describeChange(change: PathChange): string {
  switch (change.kind) {
    case 'link':
      return change.target !== undefined ? `it is now a link to "${change.target}"` : 'it is now a symbolic link';
    case 'moved':
      return `a folder on its path is now a link, so it leads to "${change.actual}"`;
    case 'replaced':
      return 'it was replaced or removed while it was being opened';
  }
}

/**
 * The message for the model: `"a.txt" changed between the approval and the read (it is now a
 * link to "/home/u/.env"); nothing was read. Check the path and call again.`
 */
export function pathChangedMessage(shown: string, change: PathChange, use: { readonly action: string; readonly nothing: string }): string {
  return `"${shown}" changed between the approval and the ${use.action} (${describeChange(change)}); ${use.nothing}. Check the path and call again.`;
}

/** How `path` differs, given the real path it now leads to (`undefined`: it does not resolve). */
async function changeOf(fs: Pick<RuntimeFs, 'lstat'>, path: string, actual: string | undefined): Promise<PathChange> {
  const lstat = await fs.lstat(path).catch(() => undefined);
  if (lstat?.isSymbolicLink()) return actual !== undefined ? { kind: 'link', target: actual } : { kind: 'link' };
  if (actual === undefined || actual === path) return { kind: 'replaced' };
  return { kind: 'moved', actual };
}

/**
 * The path the kernel has for an open handle (`/proc/self/fd/N` on Linux), or undefined where
 * that cannot be known: another platform, or a runtime whose handles are not descriptors of this
 * process (the link is trusted only when it leads to the handle's own device and inode).
 * Synchronous: procfs answers from memory, and the file's attributes were just fetched by the
 * handle's fstat; two round trips through the thread pool cost more than the whole check (about
 * 70 µs of a small Read's few hundred).
 */
export function kernelPathOf(handle: FileHandle, stat: Stats): string | undefined {
  if (process.platform !== 'linux' || typeof handle.fd !== 'number' || handle.fd < 0) return undefined;
  const link = `/proc/self/fd/${handle.fd}`;
  try {
    const viaLink = nodeFs.statSync(link);
    if (viaLink.dev !== stat.dev || viaLink.ino !== stat.ino) return undefined;
    return nodeFs.readlinkSync(link);
  } catch {
    return undefined;
  }
}

/**
 * Verifies that `handle` (whose fstat is `stat`) is the file at the canonical `path`: by the
 * kernel's path of the handle where available, else by resolving the path again and comparing
 * device and inode. Throws PathChangedError.
 */
export async function verifyOpenedPath(fs: RuntimeFs, handle: FileHandle, stat: Stats, path: string): Promise<void> {
  const kernelPath = kernelPathOf(handle, stat);
  if (kernelPath !== undefined) {
    if (kernelPath === path) return;
    // A file unlinked after it was opened shows as "<path> (deleted)".
    throw new PathChangedError(path, kernelPath.endsWith(' (deleted)') ? { kind: 'replaced' } : await changeOf(fs, path, kernelPath));
  }
  const real = await fs.realpath(path).catch(() => undefined);
  if (real !== path) throw new PathChangedError(path, await changeOf(fs, path, real));
  const now = await fs.stat(path).catch(() => undefined);
  if (!now || now.dev !== stat.dev || now.ino !== stat.ino) throw new PathChangedError(path, { kind: 'replaced' });
}

// Flags absent on a platform are 0: O_NOFOLLOW and O_NONBLOCK do not exist on Windows.
const OPEN_EXISTING_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0) | (constants.O_NOCTTY ?? 0);

export interface OpenedFile {
  readonly handle: FileHandle;
  /** The fstat of the handle: the file that is read, whatever the path leads to by now. */
  readonly stat: Stats;
  /** The handle is a descriptor on the local disk (isLocalDisk): descriptorReader can read it. */
  readonly local: boolean;
}

export interface OpenRegularFileOptions {
  /**
   * fstat a local handle synchronously: cheaper than the thread pool's round trip when nothing
   * else waits on I/O meanwhile (a call that runs alone); with many calls in flight their round
   * trips overlap, and synchronous work would only add up on the event loop.
   */
  readonly synchronousStat?: boolean;
}

/**
 * Synchronous reads of a local handle's descriptor, for a small file read by a call that runs
 * alone (OpenRegularFileOptions.synchronousStat): each FileHandle.read is a round trip through
 * the thread pool, a sixth of a small Read's time. Never for a big file: a synchronous read holds
 * the event loop for as long as it takes.
 */
export function descriptorReader(opened: OpenedFile): PositionalReader {
  const fd = opened.handle.fd;
  return {
    read: async (buffer, offset, length, position) => ({ bytesRead: nodeFs.readSync(fd, buffer, offset, length, position) }),
  };
}

/**
 * Opens the existing regular file at the canonical `path` for reading, exactly that file: a
 * symlink at the path is not followed (O_NOFOLLOW), a FIFO or device does not block the open
 * (O_NONBLOCK) and is refused by the fstat of the handle, and the handle's real path must be
 * `path` (a folder on the path swapped for a link is caught there).
 *
 * Throws NotRegularFileError (a directory too), PathChangedError, or the open's error (ENOENT,
 * ENOTDIR, EACCES …). The caller closes the handle.
 */
export async function openRegularFile(fs: RuntimeFs, path: string, options: OpenRegularFileOptions = {}): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, OPEN_EXISTING_FLAGS);
  } catch (error) {
    const code = isErrnoException(error) ? error.code : undefined;
    // O_NOFOLLOW on a symlink: ELOOP (Linux, macOS), EMLINK (FreeBSD).
    if (code === 'ELOOP' || code === 'EMLINK') {
      const target = await fs.realpath(path).catch(() => undefined);
      throw new PathChangedError(path, target !== undefined ? { kind: 'link', target } : { kind: 'link' });
    }
    // A socket cannot be opened at all.
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') {
      const lstat = await fs.lstat(path).catch(() => undefined);
      throw new NotRegularFileError(path, lstat ? fileKindOf(lstat) : 'special file');
    }
    throw error;
  }
  const local = isLocalDisk(fs);
  try {
    const stat = local && options.synchronousStat ? nodeFs.fstatSync(handle.fd) : await handle.stat();
    if (!stat.isFile()) throw new NotRegularFileError(path, fileKindOf(stat));
    await verifyOpenedPath(fs, handle, stat, path);
    return { handle, stat, local };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Verifies that the existing canonical `path` (a folder to search or enter, a file to search) is
 * still reached without a link: its real path now must be `path` itself. Throws PathChangedError,
 * or the realpath's error (ENOENT, ENOTDIR …) when it is gone.
 */
export async function verifyRealPath(fs: Pick<RuntimeFs, 'realpath' | 'lstat'>, path: string): Promise<void> {
  const real = await fs.realpath(path);
  if (real !== path) throw new PathChangedError(path, await changeOf(fs, path, real));
}

/**
 * The synchronous check for a folder a process is about to be started in (local disk only):
 * how `path` (canonical) differs from its real path now, or undefined when it does not, or when
 * it cannot be resolved (the start then fails on its own).
 */
export function realPathChangeSync(path: string): PathChange | undefined {
  let real: string;
  try {
    real = nodeFs.realpathSync.native(path);
  } catch {
    return undefined;
  }
  if (real === path) return undefined;
  return nodeFs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? { kind: 'link', target: real } : { kind: 'moved', actual: real };
}

/**
 * For a path that may not exist yet (a file Write creates, with its folders): verifies that its
 * longest existing prefix is still reached without a link. Throws PathChangedError for `path`:
 * a link at `path` itself, or a folder above it that now leads elsewhere.
 */
export async function verifyExistingPrefix(fs: RuntimeFs, path: string): Promise<void> {
  for (let current = path; ; current = nodePath.dirname(current)) {
    let real: string;
    try {
      real = await fs.realpath(current);
    } catch (error) {
      const code = isErrnoException(error) ? error.code : undefined;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && nodePath.dirname(current) !== current) continue;
      throw error;
    }
    if (real === current) return;
    if (current === path) throw new PathChangedError(path, await changeOf(fs, path, real));
    throw new PathChangedError(path, { kind: 'moved', actual: nodePath.join(real, nodePath.relative(current, path)) });
  }
}

/**
 * Bytes read from a handle, at most `limit`; `more` says the file held more than that. `expected`
 * (the size by fstat) sizes the one buffer, so a file that does not grow is read without a copy.
 */
export async function readBounded(handle: FileHandle, limit: number, expected = 0, signal?: AbortSignal): Promise<{ bytes: Buffer; more: boolean }> {
  // One byte past the limit tells a file of exactly `limit` bytes from a larger one.
  let buffer = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(expected + 1, 64 * 1024)));
  let total = 0;
  for (;;) {
    signal?.throwIfAborted();
    if (total === buffer.length) {
      if (total > limit) return { bytes: buffer.subarray(0, limit), more: true };
      // It grew while it was read: a larger buffer, still bounded.
      const grown = Buffer.allocUnsafe(Math.min(limit + 1, buffer.length * 2));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, total, Math.min(buffer.length - total, 16 * 1024 * 1024), total);
    if (bytesRead === 0) return { bytes: buffer.subarray(0, total), more: false };
    total += bytesRead;
  }
}

/** A file or stream larger than a reader accepts. */
export class InputTooLargeError extends Error {
  override readonly name = 'InputTooLargeError';
  constructor(
    readonly source: string,
    readonly limit: number,
  ) {
    super(`${source} is larger than ${limit} bytes`);
  }
}

/**
 * A whole regular file, read synchronously and bounded (inputs of a command line: a batch, a
 * configuration file). A FIFO, device or socket is refused without blocking (NotRegularFileError),
 * a file over `maxBytes` with InputTooLargeError, also when it grows while being read.
 */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = nodeFs.openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    const code = isErrnoException(error) ? error.code : undefined;
    // A socket cannot be opened at all.
    if (code !== 'ENXIO' && code !== 'EOPNOTSUPP') throw error;
    const lstat = nodeFs.lstatSync(path, { throwIfNoEntry: false });
    throw new NotRegularFileError(path, lstat ? fileKindOf(lstat) : 'special file');
  }
  try {
    const stat = nodeFs.fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFileError(path, fileKindOf(stat));
    if (stat.size > maxBytes) throw new InputTooLargeError(path, maxBytes);
    // One byte past the limit tells a file that grew from one of exactly the limit.
    let buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(stat.size + 1, 64 * 1024)));
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > maxBytes) throw new InputTooLargeError(path, maxBytes);
        // It grew while it was read: a larger buffer, still bounded.
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const n = nodeFs.readSync(fd, buffer, total, buffer.length - total, total);
      if (n === 0) return buffer.subarray(0, total);
      total += n;
    }
  } finally {
    nodeFs.closeSync(fd);
  }
}

