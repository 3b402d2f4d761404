import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { isErrnoException } from '../errors';
import { kernelPathOf, PathChangedError } from './openedFile';
import type { RuntimeFs } from './runtimeFs';

/** Where a producer writes the new content of a file. */
export interface AtomicWriteSink {
  /** Appends bytes, or a string encoded as UTF-8 (in bounded pieces, so no second copy is made). */
  write(data: Buffer | string): Promise<void>;
  /** Bytes written so far. */
  readonly bytes: number;
}

export interface AtomicWriteOptions {
  /** Permission bits of the result. Pass an existing file's mode to keep it; default 0o666 less the umask. */
  readonly mode?: number;
  /** Owner to keep when replacing a file owned by someone else (applied when permitted). */
  readonly owner?: { readonly uid: number; readonly gid: number };
  readonly signal?: AbortSignal;
  /**
   * The target as the caller saw it before producing the new content: its stat, or `null` when
   * it did not exist. Right before the rename the target is compared with it (device, inode,
   * size, mtime, ctime); if another writer changed, replaced, created or removed it meanwhile,
   * the write is refused with TargetChangedError, the target is left as that writer left it and
   * the temporary file is removed. Undefined: no check (the rename replaces whatever is there).
   */
  readonly expectedTarget?: Stats | null;
  /**
   * The target is canonical (no symlink on its path): refuse with PathChangedError when the
   * temporary file does not land in the target's folder itself, or that folder is reached
   * through a link by the time of the rename (a folder on the path was swapped for a symlink).
   */
  readonly verifyDirectory?: boolean;
}

/** The target of a write changed while the new content was being written; nothing was written. */
export class TargetChangedError extends Error {
  override readonly name = 'TargetChangedError';
  constructor(
    readonly target: string,
    /** `changed`: different content or metadata, `replaced`: another file, `created`/`removed`: it appeared or went away. */
    readonly how: 'changed' | 'replaced' | 'created' | 'removed',
  ) {
    super(`${target} was ${how} by someone else while it was being written`);
  }
}

export interface AtomicWriteResult {
  /** Bytes in the new file. */
  readonly bytes: number;
  /** SHA-256 (hex) of the new content. */
  readonly sha256: string;
}

/** UTF-16 code units encoded per piece when writing a string (at most 3 MB of UTF-8). */
const STRING_CHUNK_CHARS = 1024 * 1024;
const MAX_TEMP_BASE_BYTES = 200;
const GATHER_BYTES = 256 * 1024;
const SMALL_WRITE_BYTES = 64 * 1024;

/** Temporary files of writes still running in this process: never removed as stale. */
const activeTempFiles = new Set<string>();

/** `.<name>.toolhost-<random>.tmp` beside the target, short enough for any file system. */
export function tempPathFor(target: string): string {
  let base = nodePath.basename(target);
  while (Buffer.byteLength(base) > MAX_TEMP_BASE_BYTES) base = base.slice(0, -1);
  return nodePath.join(nodePath.dirname(target), `.${base}.toolhost-${randomBytes(6).toString('hex')}.tmp`);
}

/** `tempPathFor` names: the only files removeStaleTempFiles ever removes. */
const TEMP_FILE_NAME = /^\..+\.toolhost-[0-9a-f]{12}\.tmp$/s;
/**
 * A temporary file not modified for this long belongs to a write that was killed: a running write
 * moves its mtime with every piece it writes, and holds nothing back for minutes.
 */
export const STALE_TEMP_FILE_MS = 5 * 60_000;
/** Stale temporary files removed per folder and sweep at most, so a sweep is bounded work. */
const MAX_REMOVED_PER_SWEEP = 256;
const SWEEP_INTERVAL_MS = 60_000;
const MAX_REMEMBERED_SWEEPS = 1024;
const lastSweepAt = new Map<string, number>();

export function isTempFileName(name: string): boolean {
  return TEMP_FILE_NAME.test(name);
}

/**
 * Removes what killed writes left in `dir` (its top level only): regular files named like
 * `tempPathFor` names, unmodified for `olderThanMs`, and not of a write still running in this
 * process. Links are never followed nor removed, nor is anything else. Best effort: errors are
 * swallowed. Returns the paths removed.
 */
export async function removeStaleTempFiles(
  fs: RuntimeFs,
  dir: string,
  options: { readonly olderThanMs?: number; readonly now?: number } = {},
): Promise<string[]> {
  const olderThan = (options.now ?? Date.now()) - (options.olderThanMs ?? STALE_TEMP_FILE_MS);
  const removed: string[] = [];
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return removed;
  }
  for (const entry of entries) {
    if (removed.length >= MAX_REMOVED_PER_SWEEP) break;
    // Dirent types come from the listing itself (lstat semantics): a link is not a file here.
    if (!entry.isFile() || !isTempFileName(entry.name)) continue;
    const path = nodePath.join(dir, entry.name);
    if (activeTempFiles.has(path)) continue;
    try {
      const stat = await fs.lstat(path);
      if (!stat.isFile() || stat.mtimeMs > olderThan) continue;
      await fs.unlink(path);
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

/** removeStaleTempFiles at most once a minute per folder: Write and Edit call it on every write. */
export async function sweepStaleTempFiles(fs: RuntimeFs, dir: string): Promise<void> {
  const now = Date.now();
  const last = lastSweepAt.get(dir);
  if (last !== undefined && now - last < SWEEP_INTERVAL_MS) return;
  if (lastSweepAt.size >= MAX_REMEMBERED_SWEEPS) lastSweepAt.clear();
  lastSweepAt.set(dir, now);
  await removeStaleTempFiles(fs, dir, { now });
}

/** Splits a string into pieces that never cut a surrogate pair. */
export function* stringPieces(text: string, size = STRING_CHUNK_CHARS): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    const last = text.charCodeAt(end - 1);
    // A high surrogate at the end goes with its low surrogate: into the next piece, or this one if it is alone.
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - start > 1 ? -1 : 1;
    yield text.slice(start, end);
    start = end;
  }
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/**
 * Replaces (or creates) `target` atomically: the producer writes the new content into a temporary
 * file in the same directory, which is flushed to disk (fsync) and then renamed over the target.
 * Readers see the old file or the new one, never a mix. On any failure (the producer throws, the
 * disk is full, the signal aborts) the temporary file is removed and the target is untouched; a
 * process killed half-way leaves at most the temporary file behind.
 *
 * The parent directory must exist. A symlink at `target` would be replaced by a file, so callers
 * pass canonical paths. Hard links to the old file keep the old content.
 */
export async function writeFileAtomic(
  fs: RuntimeFs,
  target: string,
  produce: (sink: AtomicWriteSink) => Promise<void>,
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteResult> {
  const temp = tempPathFor(target);
  const signal = options.signal;
  signal?.throwIfAborted();
  // 'wx': fails if the name exists (a symlink included), so two writers never share a temporary file.
  const handle = await fs.open(temp, 'wx', options.mode ?? 0o666);
  activeTempFiles.add(temp);
  let open = true;
  try {
    if (options.verifyDirectory) {
      // The temporary file must be where the target's folder was resolved, not behind a swapped link.
      const stat = await handle.stat();
      const kernelPath = kernelPathOf(handle, stat);
      if (kernelPath !== undefined && kernelPath !== temp) {
        // Removed where it really is: the path may lead elsewhere again by the time of the cleanup below.
        await fs.unlink(kernelPath).catch(() => undefined);
        throw new PathChangedError(target, { kind: 'moved', actual: nodePath.join(nodePath.dirname(kernelPath), nodePath.basename(target)) });
      }
      if (kernelPath === undefined) await verifyTargetFolder(fs, target);
    }
    // chmod is not subject to the umask, so an existing file's mode is kept exactly.
    if (options.mode !== undefined) await handle.chmod(options.mode & 0o7777);
    if (options.owner) {
      try {
        await handle.chown(options.owner.uid, options.owner.gid);
      } catch {
        // Only a privileged process may give a file away; the new file then belongs to us.
      }
    }
    const hash = createHash('sha256');
    let bytes = 0;
    // Small pieces (an Edit with many replacements) are gathered so each write call is large.
    const pending = Buffer.allocUnsafe(GATHER_BYTES);
    let pendingLength = 0;
    const flush = async () => {
      if (pendingLength === 0) return;
      await writeAll(handle, pending.subarray(0, pendingLength));
      pendingLength = 0;
    };
    const writeBuffer = async (data: Buffer) => {
      signal?.throwIfAborted();
      hash.update(data);
      bytes += data.length;
      if (data.length < SMALL_WRITE_BYTES) {
        if (pendingLength + data.length > pending.length) await flush();
        data.copy(pending, pendingLength);
        pendingLength += data.length;
        return;
      }
      await flush();
      await writeAll(handle, data);
    };
    const sink: AtomicWriteSink = {
      write: async (data) => {
        if (typeof data !== 'string') return writeBuffer(data);
        for (const piece of stringPieces(data)) await writeBuffer(Buffer.from(piece, 'utf8'));
      },
      get bytes() {
        return bytes;
      },
    };
    await produce(sink);
    await flush();
    signal?.throwIfAborted();
    await handle.sync();
    open = false;
    await handle.close();
    // As late as possible: what was checked here and the rename are two steps no API joins.
    if (options.verifyDirectory) await verifyTargetFolder(fs, target);
    if (options.expectedTarget !== undefined) await expectTarget(fs, target, options.expectedTarget);
    await fs.rename(temp, target);
    await syncDirectory(fs, nodePath.dirname(target));
    return { bytes, sha256: hash.digest('hex') };
  } catch (error) {
    if (open) await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    activeTempFiles.delete(temp);
  }
}

/** Throws PathChangedError (for the target) when the target's folder is now reached through a link. */
async function verifyTargetFolder(fs: RuntimeFs, target: string): Promise<void> {
  const dir = nodePath.dirname(target);
  const real = await fs.realpath(dir);
  if (real !== dir) throw new PathChangedError(target, { kind: 'moved', actual: nodePath.join(real, nodePath.basename(target)) });
}

/** Throws TargetChangedError unless the target is as `seen` (null: absent). */
async function expectTarget(fs: RuntimeFs, target: string, seen: Stats | null): Promise<void> {
  let now: Stats | undefined;
  try {
    now = await fs.lstat(target);
  } catch (error) {
    if (!isErrnoException(error) || error.code !== 'ENOENT') throw error;
  }
  if (!now) {
    if (seen) throw new TargetChangedError(target, 'removed');
    return;
  }
  if (!seen) throw new TargetChangedError(target, 'created');
  if (now.dev !== seen.dev || now.ino !== seen.ino || !now.isFile()) throw new TargetChangedError(target, 'replaced');
  if (now.size !== seen.size || now.mtimeMs !== seen.mtimeMs || now.ctimeMs !== seen.ctimeMs) throw new TargetChangedError(target, 'changed');
}

/** Makes the rename itself durable. Best effort: not every platform can open a directory. */
async function syncDirectory(fs: RuntimeFs, dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // The content is on disk already; only the directory entry may lag after a power loss.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
