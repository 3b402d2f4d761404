import type { SearchGlob } from '../search/searchGlob';
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
   * Content mode: the lines of only the first `pageEnd` matching lines in path order are kept
   * (the page and what precedes it); later files are kept as path and count. Infinity keeps all,
   * and is what the other modes, which keep no lines, must be given.
   */
  readonly pageEnd: number;
}

export interface GrepOutcome {
  /** In no particular order; the tool sorts them. */
  readonly files: readonly GrepFileResult[];
  /** Why the search stopped before the end, if it did. */
  readonly stopped?: 'timeout' | 'cap' | 'aborted';
  /** Files or folders that could not be read. */
  readonly unreadable: readonly string[];
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
 * Collects file results up to a memory budget (bytes of kept text, roughly). In content mode
 * with a finite page end, only the files a PagePrefix wants keep their lines; any other file is
 * kept as its path and count. So a common pattern costs the page plus a few dozen bytes per
 * file, and its totals are exact and its page is the first in path order, where collecting
 * every line would stop at the budget with a page from whichever files the walk reached first.
 */
export class GrepCollector {
  private readonly counted: GrepFileResult[] = [];
  /** Content mode with a page end: the files that keep their lines, by path. */
  private readonly page: { readonly prefix: PagePrefix; readonly files: Map<string, GrepFileResult> } | undefined;
  private bytes = 0;
  private fullFired = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onFull: () => void,
    pageEnd = Infinity,
  ) {
    this.page = pageEnd === Infinity ? undefined : { prefix: new PagePrefix(pageEnd), files: new Map() };
  }

  get full(): boolean {
    return this.fullFired;
  }

  /** In no particular order. */
  get files(): readonly GrepFileResult[] {
    return this.page ? [...this.page.files.values(), ...this.counted] : this.counted;
  }

  add(file: GrepFileResult): void {
    if (this.fullFired) return;
    const page = this.page;
    if (!page) this.count(file);
    else if (!page.prefix.wants(file.path)) this.count({ path: file.path, count: file.count });
    else {
      this.bytes += weightOf(file);
      page.files.set(file.path, file);
      for (const path of page.prefix.add(file.path, file.count)) {
        const dropped = page.files.get(path)!;
        page.files.delete(path);
        this.bytes -= weightOf(dropped);
        this.count({ path, count: dropped.count });
      }
    }
    if (this.bytes > this.maxBytes) {
      this.fullFired = true;
      this.onFull();
    }
  }

  private count(file: GrepFileResult): void {
    this.bytes += weightOf(file);
    this.counted.push(file);
  }
}
