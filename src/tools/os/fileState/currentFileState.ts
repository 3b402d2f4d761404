import type { Stats } from 'node:fs';
import { sha256OfFile } from '../../../base/fs/fileHash';
import type { RuntimeFs } from '../../../base/fs/runtimeFs';
import type { CurrentFileState } from '../contract';

/** The state the stale-write guard compares, hashing the file only if it is asked to. */
export function currentStateOf(fs: RuntimeFs, path: string, stat: Stats, signal?: AbortSignal): CurrentFileState {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, sha256: () => sha256OfFile(fs, path, signal) };
}

