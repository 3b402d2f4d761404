import type { Dirent } from 'node:fs';
import * as nodePath from 'node:path';
import { type IgnoreLevel, type IgnoreTree, type SearchFs, VCS_DIR_NAMES } from './ignoreTree';

function stripTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
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
  async list(rawDir: string): Promise<{ entries: Dirent[]; level: IgnoreLevel }> {
    const dir = stripTrailingSlash(rawDir);
    const root = this.tree.root;
    const parent = nodePath.dirname(dir);
    if (dir !== root && !this.listed.has(parent) && !(await this.reachable(dir))) {
      return { entries: [], level: this.tree.rootLevel };
    }
    const entries = await this.fs.readdir(dir, { withFileTypes: true });
    this.listed.add(dir);
    const level =
      dir === root || !this.tree.enabled
        ? await this.tree.levelOf(dir)
        : await this.tree.childLevel(await this.tree.levelOf(parent), dir, new Set(entries.map((e) => e.name)));
    const kept: Dirent[] = [];
    for (const entry of entries) {
      if (entry.isSymbolicLink() || VCS_DIR_NAMES.has(entry.name)) continue;
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      if (this.tree.isIgnored(level, dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`, isDir)) continue;
      kept.push(entry);
    }
    return { entries: kept, level };
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
