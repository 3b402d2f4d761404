import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { type PathChange, PathChangedError, verifyRealPath } from '../../../base/fs/openedFile';
import { isLocalDisk } from '../../../base/fs/runtimeFs';
import type { RuntimeFs } from '../../../services/runtime/runtime';
import { isPathInside } from '../../../tool/pathAccess';
import { REPO_MARKERS, type SearchFs } from './ignoreTree';

/** A path as Glob and Grep show it: relative to the working directory when inside it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  if (!isPathInside(path, cwd)) return path;
  return nodePath.relative(cwd, path) || '.';
}

/**
 * The local disk. Small reads (ignore files, existence probes, stats) are synchronous: each
 * takes microseconds, less than a thread-pool round trip; folder listings go through the
 * thread pool, several at a time.
 */
export const localSearchFs: SearchFs = {
  readdir: (path, options) => fsp.readdir(path, options),
  readFile: async (path, encoding) => fs.readFileSync(path, encoding),
  stat: async (path) => fs.statSync(path),
  lstat: async (path) => fs.lstatSync(path),
  local: {
    readdir: (path, callback) => fs.readdir(path, { withFileTypes: true }, callback),
    mtimeMs: (path) => fs.statSync(path, { throwIfNoEntry: false })?.mtimeMs,
    exists: (path) => {
      try {
        return fs.lstatSync(path, { throwIfNoEntry: false }) !== undefined;
      } catch {
        // ENOTDIR (`.git/info/exclude` where `.git` is a worktree's or submodule's file), EACCES …
        return false;
      }
    },
  },
};

/** Whether a repository (a `.git` or `.jj` entry) encloses `dir` on the local disk (rg then needs no `--no-require-git`). */
export function repositoryEncloses(dir: string): boolean {
  for (let current = dir; ; current = nodePath.dirname(current)) {
    for (const marker of REPO_MARKERS) if (localSearchFs.local!.exists(nodePath.join(current, marker))) return true;
    if (nodePath.dirname(current) === current) return false;
  }
}

/** The search file operations of a runtime's fs (the local fast paths when it is the local disk). */
export function runtimeSearchFs(runtimeFs: RuntimeFs): SearchFs {
  if (isLocalDisk(runtimeFs)) return localSearchFs;
  return {
    readdir: (path, options) => runtimeFs.readdir(path, options),
    readFile: (path, encoding) => runtimeFs.readFile(path, encoding),
    stat: (path) => runtimeFs.stat(path),
    lstat: (path) => runtimeFs.lstat(path),
  };
}

/** A folder named in a sentence: "the working directory" rather than ".". */
export function describeFolder(path: string, cwd: string): string {
  const shown = displayPath(path, cwd);
  return shown === '.' ? 'the working directory' : shown;
}

/** `20`, `0.5`, `0.001`: seconds for messages. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(s < 1 ? 3 : 1).replace(/\.?0+$/, '');
}

/**
 * How a search root (canonical) no longer is the folder or file it was, checked again after a
 * search: undefined when it still is, or when it is gone (nothing was found there then).
 */
export async function searchRootChange(fs: Pick<RuntimeFs, 'realpath' | 'lstat'>, root: string): Promise<PathChange | undefined> {
  try {
    await verifyRealPath(fs, root);
    return undefined;
  } catch (error) {
    return error instanceof PathChangedError ? error.change : undefined;
  }
}
