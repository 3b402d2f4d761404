import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { SequentialHash, sha256OfFile } from '../../../base/fs/fileHash';
import type { RuntimeFs } from '../../../base/fs/runtimeFs';
import type { CurrentFileState } from '../contract';

/** The state the stale-write guard compares, hashing the file only if it is asked to. */
export function currentStateOf(fs: RuntimeFs, path: string, stat: Stats, signal?: AbortSignal): CurrentFileState {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, sha256: () => sha256OfFile(fs, path, signal) };
}

/** The same, for a file already open: hashed through its handle, whatever its path leads to by now. */
export function currentStateOfHandle(handle: FileHandle, stat: Stats, signal?: AbortSignal): CurrentFileState {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, sha256: () => new SequentialHash().finish(handle, stat.size, signal) };
}
