import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { RuntimeFs } from '../../../services/runtime/runtime';
import { isPathInside } from '../../../tool/pathAccess';
import type { SearchFs } from './ignoreTree';

/** A path as Glob and Grep show it: relative to the working directory when inside it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  if (!isPathInside(path, cwd)) return path;
  return nodePath.relative(cwd, path) || '.';
}

/** The search file operations of a runtime's fs. */
export function runtimeSearchFs(fs: RuntimeFs): SearchFs {
  return {
    readdir: (path, options) => fs.readdir(path, options),
    readFile: (path, encoding) => fs.readFile(path, encoding),
    stat: (path) => fs.stat(path),
    lstat: (path) => fs.lstat(path),
  };
}

/** The local file system (Grep's engines search the local disk). */
export const localSearchFs: SearchFs = runtimeSearchFs(fsp);

/** A folder named in a sentence: "the working directory" rather than ".". */
export function describeFolder(path: string, cwd: string): string {
  const shown = displayPath(path, cwd);
  return shown === '.' ? 'the working directory' : shown;
}
