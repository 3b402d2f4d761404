import type { Dirent } from 'node:fs';
import * as nodePath from 'node:path';
import { isAscii } from './globRegex';
import { IGNORE_LEVEL_NAMES, type IgnoreLevel, type IgnoreTree, type SearchFs, VCS_DIR_NAMES } from './ignoreTree';

function stripTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

export interface FilteredEntries {
  readonly entries: Dirent[];
  readonly level: IgnoreLevel;
}

/**
 * Directory listings with the search rules applied (DESIGN: the same rules for Glob and both Grep
 * engines): symbolic links, VCS folders, and entries ignored by the ignore files are left out, as
 * are sockets, pipes and devices. A folder reached without listing its parent (a walk that starts
 * below the root) is checked on the way down.
 */
export class FilteredListing {
  private readonly listed = new Set<string>();

  constructor(
    private readonly fs: SearchFs,
    readonly tree: IgnoreTree,
  ) {}

  get root(): string {
    return this.tree.root;
  }

  /** The entries of `dir` (absolute) that a search may visit, and the ignore level of `dir`. */
  async list(rawDir: string): Promise<FilteredEntries> {
    return this.filter(rawDir, await this.fs.readdir(stripTrailingSlash(rawDir), { withFileTypes: true }));
  }

  /** Like list(), given the listing of `dir`. Synchronous unless the folder holds ignore files. */
  filter(rawDir: string, entries: readonly Dirent[]): FilteredEntries | Promise<FilteredEntries> {
    const dir = stripTrailingSlash(rawDir);
    const root = this.tree.root;
    const parent = nodePath.dirname(dir);
    const parentLevel = dir === root ? undefined : this.listed.has(parent) ? this.tree.knownLevel(parent) : undefined;
    if (dir !== root && !parentLevel) {
      return this.reachable(dir).then(async (ok) => {
        if (!ok) return { entries: [], level: this.tree.rootLevel };
        this.listed.add(dir);
        const level = await this.tree.levelOf(dir);
        return { entries: this.keep(dir, entries, level), level };
      });
    }
    this.listed.add(dir);
    if (!parentLevel) {
      const rootLevel = this.tree.knownLevel(root) ?? this.tree.rootLevel;
      return { entries: this.keep(dir, entries, rootLevel), level: rootLevel };
    }
    const levelNames: string[] = [];
    for (const entry of entries) if (IGNORE_LEVEL_NAMES.has(entry.name)) levelNames.push(entry.name);
    const level = this.tree.childLevel(parentLevel, dir, levelNames);
    if (level instanceof Promise) return level.then((l) => ({ entries: this.keep(dir, entries, l), level: l }));
    return { entries: this.keep(dir, entries, level), level };
  }

  private keep(dir: string, entries: readonly Dirent[], level: IgnoreLevel): Dirent[] {
    const kept: Dirent[] = [];
    const base = dir === '/' ? '/' : `${dir}/`;
    const asciiDir = isAscii(dir);
    for (const entry of entries) {
      if (entry.isSymbolicLink() || VCS_DIR_NAMES.has(entry.name)) continue;
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      if (this.tree.isIgnored(level, base + entry.name, isDir, asciiDir && isAscii(entry.name))) continue;
      kept.push(entry);
    }
    return kept;
  }

  /** A folder below the root that was not reached by listing: no link, VCS folder or ignored folder on the way. */
  private async reachable(dir: string): Promise<boolean> {
    const root = this.tree.root;
    if (!dir.startsWith(root === '/' ? '/' : `${root}/`)) return false;
    const parts = dir.slice(root === '/' ? 1 : root.length + 1).split('/');
    let current = root;
    for (const part of parts) {
      current = current === '/' ? `/${part}` : `${current}/${part}`;
      if (VCS_DIR_NAMES.has(part)) return false;
      try {
        if ((await this.fs.lstat(current)).isSymbolicLink()) return false;
      } catch {
        return false;
      }
    }
    return !(await this.tree.isPathIgnored(dir, true));
  }
}
