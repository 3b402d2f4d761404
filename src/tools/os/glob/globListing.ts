import type { Dirent } from 'node:fs';
import { sensitivePathsBelow } from '../../../tool/sensitivePaths';
import { FilteredListing } from '../search/filteredListing';
import { byteForm, isAscii } from '../search/globRegex';
import { IgnoreTree, type SearchFs } from '../search/ignoreTree';
import { NewestFirst } from '../search/newestFirst';
import { type GlobPattern, ruleMatchesPath } from '../search/searchGlob';

const STAT_BATCH = 2_000;
/** Folders listed at once: enough to keep the thread pool busy while the main thread filters. */
const WALK_CONCURRENCY = 8;

export interface GlobListing {
  /** Relative to the search root, newest first: the first `wanted` of them (all when fewer match). */
  readonly files: readonly string[];
  /** How many files match (secrets left out). */
  readonly total: number;
  readonly sensitive: number;
  readonly timedOut: boolean;
}

/** Whether a path relative to the search root (`asciiDir`: its folder part is ASCII) matches the pattern. */
export function globPatternMatches(pattern: GlobPattern, rel: string, nameAt: number, asciiDir: boolean): boolean {
  const { rule } = pattern;
  if (rule.basenameOnly) return rule.matcher.test(byteForm(rel.slice(nameAt)));
  return ruleMatchesPath(rule, asciiDir ? rel.slice(0, nameAt) + byteForm(rel.slice(nameAt)) : byteForm(rel));
}

/**
 * The files a walk found, whoever walked: secrets counted and left out, the others stamped with
 * their modification time for the newest-first order. On the local disk each file is stat-ed as
 * it is found (a synchronous stat costs less than a thread-pool round trip, and the walk goes on
 * meanwhile in the thread pool or in rg), unless `statAsFound` is false (a walk that may be
 * given up: it stats nothing in vain); other runtimes stat them in batches at the end. Only the
 * files that may still be on the page are kept (NewestFirst).
 */
export class GlobMatches {
  private readonly page: NewestFirst<string>;
  private readonly unstamped: string[] = [];
  private sensitive = 0;
  private readonly prefix: string;
  private readonly isSensitive: (rel: string) => boolean;

  constructor(
    private readonly fs: SearchFs,
    root: string,
    /** How many of the newest-first paths are needed (offset + limit). */
    wanted: number,
    private readonly statAsFound = true,
  ) {
    this.prefix = root.endsWith('/') ? root : `${root}/`;
    this.isSensitive = sensitivePathsBelow(this.prefix);
    this.page = new NewestFirst<string>(wanted);
  }

  /** A matching file, relative to the root. */
  add(rel: string): void {
    if (this.isSensitive(rel)) this.sensitive++;
    else if (!this.fs.local || !this.statAsFound) this.unstamped.push(rel);
    else this.stamp(this.fs.local, rel);
  }

  private stamp(local: NonNullable<SearchFs['local']>, rel: string): void {
    const mtime = local.mtimeMs(this.prefix + rel);
    if (mtime !== undefined) this.page.add(mtime, rel, rel);
  }

  /** The first `wanted` files, newest first; equal times in path order. A file gone before its stat is left out. */
  async finish(timedOut: boolean): Promise<GlobListing> {
    const { page, unstamped } = this;
    const local = this.fs.local;
    if (local) for (const rel of unstamped) this.stamp(local, rel);
    for (let i = 0; !local && i < unstamped.length; i += STAT_BATCH) {
      const batch = unstamped.slice(i, i + STAT_BATCH);
      const stats = await Promise.all(batch.map((rel) => this.fs.stat(this.prefix + rel).then((s) => s.mtimeMs, () => undefined)));
      batch.forEach((rel, j) => {
        const mtime = stats[j];
        if (mtime !== undefined) page.add(mtime, rel, rel);
      });
    }
    return { files: page.take(), total: page.count, sensitive: this.sensitive, timedOut };
  }
}

/** The first `wanted` paths of `stamped` in newest-first order. */
export function newestFirst(stamped: readonly (readonly [mtimeMs: number, rel: string])[], wanted: number): string[] {
  const page = new NewestFirst<string>(wanted);
  for (const [mtimeMs, rel] of stamped) page.add(mtimeMs, rel, rel);
  return page.take();
}

export interface GlobWalkOptions {
  readonly includeIgnored: boolean;
  readonly signal: AbortSignal;
  /** How many of the newest-first paths are needed (offset + limit); default all. */
  readonly wanted?: number;
}

/**
 * Lists the files under `root` that `pattern` matches, in process: one walk with the shared
 * search rules (FilteredListing), each file name matched once. Folders no match can lie in
 * (outside the pattern's literal prefix, deeper than its fixed depth) are not entered.
 */
export async function listGlob(fs: SearchFs, root: string, pattern: GlobPattern, options: GlobWalkOptions): Promise<GlobListing> {
  return (await walkGlob(fs, root, pattern, { ...options, entryBudget: Infinity }))!;
}

/**
 * Entries a folder found but not listed yet is expected to hold, at least, when a walk with a
 * budget decides to give up: a tree's first folders often show it is big (a node_modules of 700
 * packages) long before their entries are listed one folder at a time.
 */
const PENDING_FOLDER_ENTRIES = 4;

/**
 * listGlob, given up (undefined) once the folders listed hold more than `entryBudget` entries,
 * counting PENDING_FOLDER_ENTRIES for each folder found and not listed yet: a tree that big is
 * walked faster by rg, and a small one faster than rg starts.
 */
export async function walkGlob(fs: SearchFs, root: string, pattern: GlobPattern, options: GlobWalkOptions & { entryBudget: number }): Promise<GlobListing | undefined> {
  let budget = options.entryBudget;
  const tree = await IgnoreTree.open(root, fs, { enabled: !options.includeIgnored });
  const listing = new FilteredListing(fs, tree);
  const local = fs.local;
  const { dirPrefix, depth } = pattern;
  // A walk with a budget may be given up: its files are stat-ed once it has finished.
  const matches = new GlobMatches(fs, root, options.wanted ?? Infinity, options.entryBudget === Infinity);

  const take = (dir: string, relDir: string, dirDepth: number, entries: readonly Dirent[], pending: Array<[string, string, number]>): void => {
    budget -= entries.length;
    const base = dir.endsWith('/') ? dir : `${dir}/`;
    const asciiDir = isAscii(relDir);
    for (const entry of entries) {
      const name = entry.name;
      if (entry.isDirectory()) {
        // Folders no match can lie in are not entered.
        if (dirDepth < dirPrefix.length && name !== dirPrefix[dirDepth]) continue;
        if (depth !== undefined && dirDepth + 1 >= depth) continue;
        pending.push([base + name, relDir + name + '/', dirDepth + 1]);
        continue;
      }
      if (depth !== undefined && dirDepth + 1 !== depth) continue;
      const rel = relDir + name;
      if (globPatternMatches(pattern, rel, relDir.length, asciiDir)) matches.add(rel);
    }
  };

  const list = (dir: string): Promise<Dirent[]> => {
    if (!local) return listing.list(dir).then((listed) => listed.entries);
    return new Promise((resolve, reject) => {
      local.readdir(dir, (error, entries) => {
        if (error) {
          reject(error);
          return;
        }
        try {
          const listed = listing.filter(dir, entries);
          if (listed instanceof Promise) listed.then((l) => resolve(l.entries), reject);
          else resolve(listed.entries);
        } catch (filterError) {
          reject(filterError as Error);
        }
      });
    });
  };

  // Depth-first, a few folders at a time; a folder that cannot be listed is left out.
  const pending: Array<[string, string, number]> = [[root, '', 0]];
  let inFlight = 0;
  let gaveUp = false;
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      if (!options.signal.aborted && budget - pending.length * PENDING_FOLDER_ENTRIES < 0) gaveUp = true;
      while (!options.signal.aborted && !gaveUp && inFlight < WALK_CONCURRENCY && pending.length > 0) {
        const [dir, relDir, dirDepth] = pending.pop()!;
        inFlight++;
        list(dir).then(
          (entries) => {
            inFlight--;
            try {
              if (!options.signal.aborted && !gaveUp) take(dir, relDir, dirDepth, entries, pending);
            } catch {
              // A folder whose entries cannot be stat-ed (listable, not searchable): what was taken stays.
            }
            pump();
          },
          () => {
            inFlight--;
            pump();
          },
        );
      }
      // Over the budget the folders still being listed are not waited for: rg starts meanwhile.
      if (gaveUp || (inFlight === 0 && (pending.length === 0 || options.signal.aborted))) resolve();
    };
    pump();
  });
  if (gaveUp) return undefined;
  return matches.finish(options.signal.aborted);
}
