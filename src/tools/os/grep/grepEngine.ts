import type { SearchGlob } from '../search/searchGlob';
import { NewestFirst } from '../search/newestFirst';
import type { ParsedRegex } from './rustRegex';
import { PagePrefix } from './grepWorker';

export type GrepOutputMode = 'content' | 'files_with_matches' | 'count_matches';
export type GrepEngineName = 'ripgrep' | 'builtin';

/** One line of a content result: a match, or context around one. */
export interface GrepLine {
  /** 1-based line number. */
  readonly n: number;
  /** Without the line terminator (nor a trailing `\r`); cut to the line limit when `cut`. */
  readonly text: string;
  readonly match: boolean;
  readonly cut: boolean;
}

export interface GrepFileResult {
  /** Canonical absolute path. */
  readonly path: string;
  /** Matches (count_matches), matching lines (content), or 1 (files_with_matches). */
  readonly count: number;
  /** Content mode: the matching lines and their context, by line number. */
  readonly lines?: readonly GrepLine[];
  /** Roughly the bytes this result keeps in memory, when known without looking at `lines`. */
  readonly weight?: number;
  /**
   * files_with_matches: the file's modification time, when the engine took it while searching
   * (the tool sorts newest first and stats the files that lack it).
   */
  readonly mtimeMs?: number;
}

/** One search, as both engines take it. */
export interface GrepSearch {
  /** The folder searched (for a single file: its folder). */
  readonly root: string;
  /** Set when the search is of one file (absolute). Glob, type and ignore files do not apply to it. */
  readonly file?: string;
  readonly regex: ParsedRegex;
  readonly mode: GrepOutputMode;
  readonly before: number;
  readonly after: number;
  readonly glob?: SearchGlob;
  /** File-name globs of the selected `type`. */
  readonly typeGlobs?: readonly string[];
  readonly includeIgnored: boolean;
  readonly maxLineChars: number;
}

export interface GrepLimits {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /**
   * `offset + head_limit`: only the results a page of this end can show are kept (the page and
   * what precedes it; GrepCollector), the others only counted. Infinity (head_limit 0) keeps all.
   */
  readonly pageEnd: number;
}

export interface GrepOutcome {
  /** In no particular order; the tool sorts them. At least the files a page of GrepLimits.pageEnd shows. */
  readonly files: readonly GrepFileResult[];
  /** Of every matching file found (`files` may hold fewer): how many, and their counts summed. */
  readonly totals: GrepTotals;
  /** Why the search stopped before the end, if it did. */
  readonly stopped?: 'timeout' | 'cap' | 'aborted';
  /** Files or folders that could not be read. */
  readonly unreadable: readonly string[];
}

export interface GrepTotals {
  readonly files: number;
  readonly count: number;
}

export interface GrepEngine {
  readonly name: GrepEngineName;
  run(search: GrepSearch, limits: GrepLimits): Promise<GrepOutcome>;
}

/** A configuration or environment problem the model should be told about (not a bug). */
export class GrepEngineError extends Error {
  override readonly name = 'GrepEngineError';
}

const CUT_SAFE = /[\uD800-\uDBFF]$/;

/**
 * A line as both engines report it: a trailing `\r` dropped, and cut to `maxLineChars` (never
 * splitting a surrogate pair) when longer or when ripgrep already shortened it.
 */
export function normalizeLine(n: number, raw: string, match: boolean, maxLineChars: number, alreadyCut = false): GrepLine {
  let text = raw.endsWith('\r') && !alreadyCut ? raw.slice(0, -1) : raw;
  let cut = alreadyCut;
  if (cut || text.length > maxLineChars) {
    text = text.slice(0, maxLineChars);
    if (CUT_SAFE.test(text)) text = text.slice(0, -1);
    cut = true;
  }
  return { n, text, match, cut };
}

/** Roughly the bytes a result keeps in memory. */
function weightOf(file: GrepFileResult): number {
  let size = file.path.length + 16;
  if (file.weight !== undefined) size += file.weight;
  else if (file.lines) for (const line of file.lines) size += line.text.length + 16;
  return size;
}

/**
 * Collects file results up to a memory budget (bytes of kept text, roughly), keeping only those a
 * page of `pageEnd` can show and counting the others into the totals:
 * - content: the files a PagePrefix wants, with their lines (the files that hold the first
 *   `pageEnd` matching lines in path order);
 * - count_matches: the first `pageEnd` files in path order (a PagePrefix of one line per file);
 * - files_with_matches: the first `pageEnd` newest first (NewestFirst), from each file's mtimeMs;
 *   a file an engine could not date is kept, for the tool to stat.
 * So a common pattern over a big tree costs the page, not every matching file: its totals are
 * exact and its page is the true first one, where keeping every file would stop at the budget
 * with a page of whichever files the walk reached first. With pageEnd Infinity everything is kept.
 */
export class GrepCollector {
  private readonly kept: GrepFileResult[] = [];
  /** content and count_matches with a page end: the files that may be on the page, by path. */
  private readonly prefix: { readonly prefix: PagePrefix; readonly files: Map<string, GrepFileResult> } | undefined;
  private readonly newest: NewestFirst<GrepFileResult> | undefined;
  private bytes = 0;
  private fullFired = false;
  private fileCount = 0;
  private matchCount = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onFull: () => void,
    private readonly mode: GrepOutputMode,
    pageEnd: number,
  ) {
    const bounded = pageEnd !== Infinity;
    this.prefix = bounded && mode !== 'files_with_matches' ? { prefix: new PagePrefix(pageEnd), files: new Map() } : undefined;
    this.newest = bounded && mode === 'files_with_matches' ? new NewestFirst(pageEnd) : undefined;
  }

  get full(): boolean {
    return this.fullFired;
  }

  /** In no particular order. */
  get files(): readonly GrepFileResult[] {
    if (this.prefix) return [...this.prefix.files.values()];
    if (this.newest) return [...this.newest.take(), ...this.kept];
    return this.kept;
  }

  get totals(): GrepTotals {
    return { files: this.fileCount, count: this.matchCount };
  }

  /** Matching files no page can show (the builtin engine's workers leave those out): counted only. */
  addCountedOnly(files: number, count: number): void {
    if (this.fullFired) return;
    this.fileCount += files;
    this.matchCount += count;
  }

  add(file: GrepFileResult): void {
    if (this.fullFired) return;
    this.fileCount++;
    this.matchCount += file.count;
    const prefix = this.prefix;
    if (prefix) {
      // A file counts as its matching lines in content mode, as one file in count_matches.
      const weight = this.mode === 'content' ? file.count : 1;
      if (!prefix.prefix.wants(file.path)) return;
      this.bytes += weightOf(file);
      prefix.files.set(file.path, file);
      for (const path of prefix.prefix.add(file.path, weight)) {
        this.bytes -= weightOf(prefix.files.get(path)!);
        prefix.files.delete(path);
      }
    } else if (this.newest && file.mtimeMs !== undefined) {
      // NewestFirst holds at most twice the page: its weight is bounded, and not counted.
      this.newest.add(file.mtimeMs, file.path, file);
    } else {
      this.bytes += weightOf(file);
      this.kept.push(file);
    }
    if (this.bytes > this.maxBytes) {
      this.fullFired = true;
      this.onFull();
    }
  }
}
