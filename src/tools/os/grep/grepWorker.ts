/**
 * The builtin Grep engine's worker thread. Its body is the function below, started with
 * `new Worker(GREP_WORKER_SOURCE, {eval: true})`, so it works the same from compiled code and
 * from ts-jest: it must not reference anything outside itself (it loads node modules with
 * process.getBuiltinModule; PagePrefix comes in as an argument). Keep coverage instrumentation away from this file.
 *
 * Per file: open, read synchronously (much faster than fs.promises in a worker), and decide as
 * much as possible on the bytes:
 *  1. the prefilter: the literals every match must contain, found with Buffer.indexOf (or, when
 *     case-insensitive, a latin1 view and a byte-level regex), so most files are never decoded;
 *  2. a NUL byte anywhere makes the file binary: it is skipped, as ripgrep's results are;
 *  3. only then UTF-8 decoding (a UTF-8 BOM is dropped; UTF-16 with a BOM is transcoded).
 * Files bigger than the 1 MiB read buffer are searched in line-aligned windows of
 * spec.windowBytes (memory stays flat), except in multiline mode, where a match may span windows.
 */

/** What a worker searches for; sent once per job. */
export interface WorkerSpec {
  readonly source: string;
  readonly flags: string;
  readonly multiline: boolean;
  readonly mode: 'content' | 'files_with_matches' | 'count_matches';
  readonly before: number;
  readonly after: number;
  readonly maxLineChars: number;
  /**
   * Content and count_matches modes: only the files a PagePrefix of this end wants (Infinity:
   * all; a file weighs its matching lines in content mode, 1 in count_matches) are sent, the
   * others only counted (WorkerResponse.countedOnly); in content mode a file keeps the lines of
   * at most its first `pageEnd` matching lines (no page can show a later one), and still counts
   * them all.
   */
  readonly pageEnd: number;
  /**
   * Content mode: a file stops keeping lines once it holds about this many characters of them
   * (the collector's budget: more would only fill it); it still counts them all.
   */
  readonly maxKeptChars: number;
  readonly prefilter: { readonly sets: readonly (readonly string[])[]; readonly caseInsensitive: boolean };
  /** Files bigger than the worker's read buffer are searched in line-aligned windows of about this size, outside multiline mode. */
  readonly windowBytes: number;
  /** What invalid UTF-8 is decoded to (rustRegex.ts INVALID_UTF8_TEXT: the translated regex matches neither). */
  readonly invalidUtf8: { readonly continuation: string; readonly other: string };
}

/** [line number, text, is a match (1/0), was cut (1/0)] */
export type WorkerLine = [number, string, number, number];

/** LINE_MARKS flags of a line. */
export const LINE_MATCH = 1;
export const LINE_CUT = 2;

export interface WorkerFileResult {
  readonly path: string;
  readonly count: number;
  /**
   * Content mode: the lines packed, so a big result is two objects rather than one per line (as
   * messages and while collected): their texts joined by `\n` (a line never holds one), and per
   * line its number and LINE_MATCH | LINE_CUT flags.
   */
  readonly lines?: { readonly text: string; readonly marks: Int32Array };
  /** files_with_matches: the file's modification time. */
  readonly mtimeMs?: number;
}

export type WorkerRequest =
  | { readonly type: 'job'; readonly jobId: number; readonly spec: WorkerSpec; readonly cancel: SharedArrayBuffer }
  | { readonly type: 'batch'; readonly jobId: number; readonly batchId: number; readonly paths: readonly string[] };

export interface WorkerResponse {
  readonly type: 'result';
  readonly jobId: number;
  readonly batchId: number;
  readonly files: WorkerFileResult[];
  /**
   * The batch's matching files that no page can show (PagePrefix): only their number and their
   * matches, not one result each (a common pattern matches tens of thousands of files, and their
   * results were most of the messages and of the main thread's garbage).
   */
  readonly countedOnly: { readonly files: number; readonly count: number };
  readonly unreadable: string[];
}

/**
 * The files, in path order, that hold the first `pageEnd` matching lines among the files offered
 * so far: in content mode only their lines can be shown (the page, or what precedes it), so the
 * lines of any other file need not be kept, nor sent by a worker. A file not wanted now is never
 * wanted later: files that come later only add lines before it. Used by the collector and, given
 * to the worker's body as its source, by each worker for the files it searched.
 */
export class PagePrefix {
  /** Ascending (UTF-16 order, as the tool sorts paths). */
  private readonly paths: string[] = [];
  private readonly counts: number[] = [];
  private lines = 0;

  constructor(readonly pageEnd: number) {}

  /** Whether the lines of a file at `path` may be needed. */
  wants(path: string): boolean {
    return this.lines < this.pageEnd || path < this.paths[this.paths.length - 1]!;
  }

  /** Takes a wanted file and its count of matching lines: the paths that are no longer wanted. */
  add(path: string, count: number): string[] {
    let lo = 0;
    let hi = this.paths.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.paths[mid]! < path) lo = mid + 1;
      else hi = mid;
    }
    this.paths.splice(lo, 0, path);
    this.counts.splice(lo, 0, count);
    this.lines += count;
    const dropped: string[] = [];
    // The last file is not needed once the files before it hold pageEnd lines.
    while (this.paths.length > 1 && this.lines - this.counts[this.counts.length - 1]! >= this.pageEnd) {
      this.lines -= this.counts.pop()!;
      dropped.push(this.paths.pop()!);
    }
    return dropped;
  }
}

export function grepWorkerMain(Prefix: typeof PagePrefix = PagePrefix): void {
  const threads = process.getBuiltinModule('node:worker_threads');
  const fs = process.getBuiltinModule('node:fs');
  const { isUtf8 } = process.getBuiltinModule('node:buffer');
  const port = threads.parentPort;
  if (!port) return;

  /** A file's outcome: its result, only its count (no page can show it), or nothing (no match, unreadable, binary). */
  type FileOutcome = WorkerFileResult | number | undefined;

  interface Job {
    id: number;
    spec: WorkerSpec;
    cancel: Int32Array;
    candidate: RegExp;
    line: RegExp;
    counter: RegExp;
    csLiterals: Buffer[][] | undefined;
    ciRegexes: RegExp[] | undefined;
    /** Bytes the windows of the case-insensitive prefilter overlap: the longest literal, folded to 3-byte forms. */
    ciOverlap: number;
    /** Content mode: the files of this worker whose lines may be shown. */
    page: PagePrefix;
  }
  const CI_WINDOW_BYTES = 64 * 1024;
  let job: Job | undefined;

  const foldLatin1 = (literal: string): string => {
    let out = '';
    for (const ch of literal) {
      if (ch === 'k' || ch === 'K') out += '(?:[kK]|\u00e2\u0084\u00aa)';
      else if (ch === 's' || ch === 'S') out += '(?:[sS]|\u00c5\u00bf)';
      else if (/[A-Za-z]/.test(ch)) out += `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
      else out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    }
    return out;
  };

  const setup = (id: number, spec: WorkerSpec, cancel: SharedArrayBuffer): Job => {
    const sets = spec.prefilter.sets;
    return {
      id,
      spec,
      cancel: new Int32Array(cancel),
      candidate: new RegExp(spec.source, spec.flags + 'g'),
      line: new RegExp(spec.source, spec.flags),
      counter: new RegExp(spec.source, spec.flags + 'g'),
      csLiterals: spec.prefilter.caseInsensitive ? undefined : sets.map((set) => set.map((lit) => Buffer.from(lit, 'utf8'))),
      ciRegexes: spec.prefilter.caseInsensitive ? sets.map((set) => new RegExp(set.map(foldLatin1).join('|'))) : undefined,
      ciOverlap: 3 * Math.max(0, ...sets.flat().map((lit) => lit.length)),
      page: new Prefix(spec.pageEnd),
    };
  };

  /** Whether the bytes can contain a match (every required literal set is present). */
  const prefilter = (j: Job, buf: Buffer): boolean => {
    if (j.csLiterals) {
      for (const set of j.csLiterals) {
        let found = false;
        for (const lit of set) {
          if (buf.indexOf(lit) !== -1) {
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    }
    if (j.ciRegexes) {
      // In windows: a latin1 copy of a whole big file would land in the old generation.
      const overlap = j.ciOverlap;
      for (const re of j.ciRegexes) {
        let found = false;
        for (let start = 0; start < buf.length && !found; start += CI_WINDOW_BYTES) found = re.test(buf.toString('latin1', start, Math.min(buf.length, start + CI_WINDOW_BYTES + overlap)));
        if (!found) return false;
      }
    }
    return true;
  };

  /**
   * UTF-8 to text, with each invalid sequence (a maximal subpart, as the WHATWG decoder counts
   * them) as a lone surrogate instead of U+FFFD (spec.invalidUtf8), so that invalid bytes match
   * nothing, as in ripgrep (`caf.` does not match `caf\xe9`), while a real U+FFFD still does.
   */
  const decodeUtf8 = (j: Job, buf: Buffer, start: number, end: number): string => {
    const bytes = buf.subarray(start, end);
    if (isUtf8(bytes)) return bytes.toString('utf8');
    const { continuation, other } = j.spec.invalidUtf8;
    let out = '';
    let runStart = 0;
    let i = 0;
    const n = bytes.length;
    const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => k < n && bytes[k]! >= lo && bytes[k]! <= hi;
    while (i < n) {
      const b = bytes[i]!;
      if (b < 0x80) {
        i++;
        continue;
      }
      // The length of the valid sequence at i, else of its maximal invalid subpart.
      let valid = 0;
      let bad = 1;
      if (b >= 0xc2 && b <= 0xdf) {
        if (cont(i + 1)) valid = 2;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (cont(i + 1, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf)) {
          if (cont(i + 2)) valid = 3;
          else bad = 2;
        }
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (cont(i + 1, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf)) {
          if (!cont(i + 2)) bad = 2;
          else if (cont(i + 3)) valid = 4;
          else bad = 3;
        }
      }
      if (valid > 0) {
        i += valid;
        continue;
      }
      out += bytes.toString('utf8', runStart, i) + (bad === 1 && b <= 0xbf ? continuation : other);
      i += bad;
      runStart = i;
    }
    return out + bytes.toString('utf8', runStart, n);
  };

  /** Lone surrogates only come from decodeUtf8: shown as U+FFFD, as the ripgrep engine's decoder shows invalid UTF-8. */
  const SURROGATE = /\p{Cs}/u;
  const SURROGATES = /\p{Cs}/gu;

  const cutLine = (raw: string, max: number): [string, number] => {
    let text = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    if (SURROGATE.test(text)) text = text.replace(SURROGATES, '\uFFFD');
    if (text.length <= max) return [text, 0];
    text = text.slice(0, max);
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
    return [text, 1];
  };

  /** Line starts of a text: starts[k] is where line k+1 begins; the count of real lines is `lineCount`. */
  const lineIndex = (text: string): { starts: number[]; lineCount: number } => {
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    const endsWithNewline = text.length > 0 && text.charCodeAt(text.length - 1) === 10;
    return { starts, lineCount: text.length === 0 ? 0 : endsWithNewline ? starts.length - 1 : starts.length };
  };
  const lineAt = (text: string, starts: number[], k: number): string => {
    const s = starts[k - 1]!;
    const e = k < starts.length ? starts[k]! - 1 : text.length;
    return text.slice(s, e);
  };
  const lineOfOffset = (starts: number[], offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };

  interface TextMatches {
    count: number;
    /** Matching line numbers (relative to the text, 1-based), ascending, with their text when known. */
    lines: Array<[number, string | undefined]>;
  }

  /** Matching lines of a text in line mode (no match spans a line). Stops at the first in files mode. */
  const matchLines = (j: Job, text: string): TextMatches => {
    const { candidate, line: lineRe, counter } = j;
    const mode = j.spec.mode;
    const len = text.length;
    const endsWithNewline = len > 0 && text.charCodeAt(len - 1) === 10;
    const result: TextMatches = { count: 0, lines: [] };
    let lineNo = 1;
    let lineStart = 0;
    let from = 0;
    for (;;) {
      candidate.lastIndex = from;
      const m = candidate.exec(text);
      if (!m) break;
      const idx = m.index;
      if (idx >= len && (len === 0 || endsWithNewline)) break;
      let nl = text.indexOf('\n', lineStart);
      while (nl !== -1 && nl < idx) {
        lineNo++;
        lineStart = nl + 1;
        nl = text.indexOf('\n', lineStart);
      }
      const lineEnd = nl === -1 ? len : nl;
      const line = text.slice(lineStart, lineEnd);
      if (lineRe.test(line)) {
        if (mode === 'count_matches') {
          counter.lastIndex = 0;
          result.count += line.match(counter)?.length ?? 0;
        } else {
          result.count++;
          result.lines.push([lineNo, line]);
          if (mode === 'files_with_matches') return result;
        }
      }
      if (lineEnd >= len) break;
      from = lineEnd + 1;
      lineStart = from;
      lineNo++;
    }
    return result;
  };

  /** Matches over the whole text (multiline mode): every line a match touches is a matching line. */
  const matchMultiline = (j: Job, text: string): TextMatches => {
    const re = j.candidate;
    const len = text.length;
    const endsWithNewline = len > 0 && text.charCodeAt(len - 1) === 10;
    const result: TextMatches = { count: 0, lines: [] };
    let index: number[] | undefined;
    const seen = new Set<number>();
    re.lastIndex = 0;
    for (;;) {
      const m = re.exec(text);
      if (!m) break;
      const start = m.index;
      const end = start + m[0].length;
      if (m[0].length === 0) re.lastIndex = start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
      if (start >= len && (len === 0 || endsWithNewline)) break;
      result.count++;
      if (j.spec.mode === 'files_with_matches') return result;
      if (j.spec.mode === 'count_matches') continue;
      index ??= lineIndex(text).starts;
      const first = lineOfOffset(index, start);
      const last = end > start ? lineOfOffset(index, end - 1) : first;
      for (let n = first; n <= last; n++) {
        if (!seen.has(n)) {
          seen.add(n);
          result.lines.push([n, undefined]);
        }
      }
      if (start >= len) break;
    }
    result.lines.sort((a, b) => a[0] - b[0]);
    return result;
  };

  /**
   * Content lines (matches and context) of a whole text: around its first matches, as many as
   * mayKeep allows (the lines of later matches are never shown; they are counted by the caller).
   */
  const contentLines = (j: Job, text: string, found: TextMatches, lineBase: number): WorkerLine[] => {
    const { before, after, maxLineChars } = j.spec;
    const needIndex = before > 0 || after > 0 || found.lines.some(([, t]) => t === undefined);
    const index = needIndex ? lineIndex(text) : undefined;
    const known = new Map(found.lines.filter(([, t]) => t !== undefined) as Array<[number, string]>);
    const lengthOf = (k: number): number => {
      const line = known.get(k);
      if (line !== undefined) return line.length;
      const starts = index!.starts;
      return (k < starts.length ? starts[k]! - 1 : text.length) - starts[k - 1]!;
    };
    const wanted = new Set<number>();
    let keptMatches = 0;
    let chars = 0;
    for (const [n] of found.lines) {
      if (!mayKeep(j, keptMatches, chars)) break;
      keptMatches++;
      for (let k = Math.max(1, n - before); k <= n + after; k++) {
        if (index && k > index.lineCount) break;
        if (wanted.has(k)) continue;
        wanted.add(k);
        chars += Math.min(maxLineChars, lengthOf(k));
      }
    }
    // found.lines is ascending: one pass tells the matches among the wanted lines.
    let next = 0;
    return [...wanted]
      .sort((a, b) => a - b)
      .map((k) => {
        while (next < found.lines.length && found.lines[next]![0] < k) next++;
        const isMatch = next < found.lines.length && found.lines[next]![0] === k;
        const raw = known.get(k) ?? lineAt(text, index!.starts, k);
        const [cut, wasCut] = cutLine(raw, maxLineChars);
        return [k + lineBase, cut, isMatch ? 1 : 0, wasCut];
      });
  };

  const decodeWhole = (buf: Buffer, j: Job): string | undefined => {
    if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
      const text = new TextDecoder(buf[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(buf.subarray(2));
      return text.includes('\0') ? undefined : text;
    }
    if (!prefilter(j, buf)) return undefined;
    if (buf.indexOf(0) !== -1) return undefined;
    const start = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    return decodeUtf8(j, buf, start, buf.length);
  };

  /** Flags spelled as numbers: this body cannot reference LINE_MATCH (1) and LINE_CUT (2). */
  const packLines = (lines: WorkerLine[]): { text: string; marks: Int32Array } => {
    const marks = new Int32Array(lines.length * 2);
    lines.forEach(([n, , match, cut], i) => {
      marks[2 * i] = n;
      marks[2 * i + 1] = (match ? 1 : 0) | (cut ? 2 : 0);
    });
    return { text: lines.map((line) => line[1]).join('\n'), marks };
  };

  /**
   * A matching file's result: in content mode with its lines, in count_matches mode its count,
   * when the page may show it; else only its count (a number: the file is counted only).
   */
  const pageResult = (j: Job, path: string, count: number, pack: () => NonNullable<WorkerFileResult['lines']>): FileOutcome => {
    if (j.spec.mode === 'files_with_matches') return { path, count };
    if (!j.page.wants(path)) return count;
    j.page.add(path, j.spec.mode === 'content' ? count : 1);
    return j.spec.mode === 'content' ? { path, count, lines: pack() } : { path, count };
  };

  /** Content mode: whether a file holding `matches` matching lines and `chars` characters of lines may keep one more match. */
  const mayKeep = (j: Job, matches: number, chars: number): boolean => matches < j.spec.pageEnd && chars < j.spec.maxKeptChars;

  const searchText = (j: Job, path: string, text: string): FileOutcome => {
    const found = j.spec.multiline ? matchMultiline(j, text) : matchLines(j, text);
    if (found.count === 0) return undefined;
    // In content mode the count is of matching lines (a multiline match can span several).
    const count = j.spec.mode === 'content' ? found.lines.length : found.count;
    return pageResult(j, path, count, () => packLines(contentLines(j, text, found, 0)));
  };

  const countNewlines = (buf: Buffer): number => {
    let n = 0;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
    return n;
  };

  /** Where forEachPiece starts: the bytes from..end of the read buffer, then the file from `position` unless at its end. */
  interface PieceStart {
    readonly from: number;
    readonly end: number;
    readonly position: number;
    readonly eof: boolean;
  }

  /**
   * Calls `visit` with a file's bytes in line-aligned pieces of about `windowBytes` (more for a
   * longer line; the last piece may lack its newline), read through the worker's reused buffer.
   * A line longer than the buffer gets a bigger buffer for this file only. Stops early (false)
   * when visit returns false or the search is cancelled.
   */
  const forEachPiece = (j: Job, fd: number, start: PieceStart, visit: (piece: Buffer) => boolean): boolean => {
    // Below the buffer size, so a refill always leaves room for a window (a bigger one would grow the buffer forever).
    const windowBytes = Math.min(j.spec.windowBytes, readBuffer.length / 2);
    let buf = readBuffer;
    let { from, end, position, eof } = start;
    let needMore = false;
    for (;;) {
      if (Atomics.load(j.cancel, 0) !== 0) return false;
      if (!eof && (needMore || end - from < windowBytes)) {
        if (from > 0) {
          buf.copyWithin(0, from, end);
          end -= from;
          from = 0;
        }
        if (end === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, end);
          buf = bigger;
        }
        while (end < buf.length) {
          const n = fs.readSync(fd, buf, end, buf.length - end, position);
          if (n === 0) {
            eof = true;
            break;
          }
          end += n;
          position += n;
        }
        needMore = false;
      }
      if (from >= end) return true;
      let cut: number;
      if (eof && end - from <= windowBytes) cut = end;
      else {
        const valid = buf.subarray(0, end);
        const last = valid.lastIndexOf(10, Math.min(end, from + windowBytes) - 1);
        const next = last >= from ? last : valid.indexOf(10, from + windowBytes);
        if (next !== -1) cut = next + 1;
        else if (eof) cut = end;
        else {
          needMore = true;
          continue;
        }
      }
      if (!visit(buf.subarray(from, cut))) return false;
      from = cut;
    }
  };

  /**
   * A file bigger than the read buffer (its first bytes are in it), outside multiline mode: in
   * line-aligned windows, so what is decoded at a time stays small (a whole big file decoded
   * would be one string of megabytes, live across young collections and so promoted: the
   * worker's heap grew by the big files it searched). A first pass only looks for a NUL and for
   * the prefilter's literals, so a binary file or one without candidates costs no decoding nor
   * line counting; only then the search, with context lines across window borders.
   */
  const searchWindows = (j: Job, path: string, fd: number, filled: number): FileOutcome => {
    const { before, after, mode } = j.spec;
    const whole = filled < readBuffer.length;
    if ((readBuffer[0] === 0xff && readBuffer[1] === 0xfe) || (readBuffer[0] === 0xfe && readBuffer[1] === 0xff)) {
      // UTF-16 cannot be split on bytes; it is searched whole.
      const text = decodeWhole(whole ? readBuffer.subarray(0, filled) : fs.readFileSync(fd), j);
      return text === undefined ? undefined : searchText(j, path, text);
    }
    // Before the first pass, which refills the buffer when the file is bigger.
    const bom = readBuffer[0] === 0xef && readBuffer[1] === 0xbb && readBuffer[2] === 0xbf ? 3 : 0;
    let candidate = false;
    // To its end even after a candidate: a NUL anywhere makes the file binary, also after a match.
    const isText = forEachPiece(j, fd, { from: 0, end: filled, position: filled, eof: whole }, (piece) => {
      if (piece.indexOf(0) !== -1) return false;
      candidate ||= prefilter(j, piece);
      return true;
    });
    if (!isText || !candidate) return undefined;
    let lineBase = 0; // lines before the current chunk
    let count = 0;
    let matched = false;
    let stoppedEarly = false;
    const lines = new Map<number, WorkerLine>();
    let tail: Array<[number, string]> = []; // the last `before` lines before the current chunk
    let pendingAfter = 0; // context lines still owed from the start of the next chunk
    let keptMatches = 0;
    let keptChars = 0;
    // The second pass reads the file again unless it is all in the buffer (the first pass may have moved on).
    const finished = forEachPiece(j, fd, whole ? { from: bom, end: filled, position: filled, eof: true } : { from: 0, end: 0, position: bom, eof: false }, (data) => {
      // Again: a file read twice may have changed between the passes.
      if (data.indexOf(0) !== -1) return false;
      const newlines = countNewlines(data);
      const linesInChunk = newlines + (data[data.length - 1] === 10 ? 0 : 1);
      const isCandidate = prefilter(j, data);
      if (isCandidate || pendingAfter > 0) {
        const text = decodeUtf8(j, data, 0, data.length);
        const found: TextMatches = isCandidate ? matchLines(j, text) : { count: 0, lines: [] };
        if (found.count > 0) {
          matched = true;
          count += found.count;
          if (mode === 'files_with_matches') {
            stoppedEarly = true;
            return false;
          }
        }
        if (mode === 'content') {
          const { starts } = lineIndex(text);
          // A context line can be a match whose own lines are past what mayKeep allows: it still shows as one.
          const isMatch = new Set(found.lines.map(([k]) => k));
          const put = (k: number, match: number): void => {
            const n = lineBase + k;
            const existing = lines.get(n);
            if (existing && (existing[2] === 1 || match === 0)) return;
            const [t, c] = cutLine(lineAt(text, starts, k), j.spec.maxLineChars);
            if (!existing) keptChars += t.length;
            lines.set(n, [n, t, match, c]);
          };
          const context = (k: number): void => put(k, isMatch.has(k) ? 1 : 0);
          for (let k = 1; k <= Math.min(pendingAfter, linesInChunk); k++) context(k);
          pendingAfter = Math.max(0, pendingAfter - linesInChunk);
          for (const [k] of found.lines) {
            // Later matches are counted (count, above) but their lines are not kept: no page shows them.
            if (!mayKeep(j, keptMatches, keptChars)) break;
            for (const [n, raw] of tail) {
              if (n >= lineBase + k - before && !lines.has(n)) {
                const [t, c] = cutLine(raw, j.spec.maxLineChars);
                keptChars += t.length;
                lines.set(n, [n, t, 0, c]);
              }
            }
            for (let b = Math.max(1, k - before); b < k; b++) put(b, 0);
            put(k, 1);
            // A match counts once its context is kept; one shown as the context of another does not.
            keptMatches++;
            for (let a = k + 1; a <= Math.min(k + after, linesInChunk); a++) context(a);
            pendingAfter = Math.max(pendingAfter, k + after - linesInChunk);
          }
        }
      }
      if (mode === 'content' && before > 0) {
        // Keep the last `before` lines for the next chunk's before-context.
        let startOfTail = data.length;
        let taken = 0;
        const end = data[data.length - 1] === 10 ? data.length - 1 : data.length;
        let cursor = end;
        while (taken < before && cursor > 0) {
          const nl = data.lastIndexOf(10, cursor - 1);
          startOfTail = nl + 1;
          cursor = nl;
          taken++;
          if (nl === -1) break;
        }
        const tailText = decodeUtf8(j, data, startOfTail, end);
        const tailLines = tailText.split('\n');
        const fresh = tailLines.map((t, i) => [lineBase + linesInChunk - tailLines.length + 1 + i, t] as [number, string]);
        tail = [...tail, ...fresh].slice(-before);
      }
      lineBase += linesInChunk;
      return true;
    });
    if (!matched || (!finished && !stoppedEarly)) return undefined;
    // In content mode `count` is of matching lines (matchLines counts each line once).
    return pageResult(j, path, count, () => packLines([...lines.values()].sort((a, b) => a[0] - b[0])));
  };

  /**
   * One read buffer for the files of the worker up to REUSED_BUFFER_BYTES (nearly all of them): a
   * fresh buffer per file (readFileSync, which also stats the file again) leaves megabytes of
   * garbage outside the heap between GCs. A file is read into it up to its end without a stat
   * first (an fstat costs a syscall and a Stats object with four Dates per file, the worker's
   * main garbage on a big tree); only a file that fills it is stat-ed. Bigger files get their
   * own buffer, so a rare big file does not pin its size in every worker. The bytes returned
   * never outlive the file: they are decoded to a string first.
   */
  const REUSED_BUFFER_BYTES = 1024 * 1024;
  const readBuffer = Buffer.allocUnsafe(REUSED_BUFFER_BYTES);
  /** Reads from `fd` into `target` until it is full or the file ends: the bytes read. */
  const readInto = (fd: number, target: Buffer): number => {
    let filled = 0;
    while (filled < target.length) {
      const n = fs.readSync(fd, target, filled, target.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return filled;
  };

  const searchBytes = (j: Job, path: string, buf: Buffer): FileOutcome => {
    if (buf.length === 0) return undefined;
    const text = decodeWhole(buf, j);
    return text === undefined ? undefined : searchText(j, path, text);
  };

  /** The result of the file open as `fd`, dated in files_with_matches mode (the tool pages those newest first). */
  const searchFd = (j: Job, path: string, fd: number): FileOutcome => {
    const filled = readInto(fd, readBuffer);
    let result: FileOutcome;
    // A match may span windows in multiline mode: the file is searched whole.
    if (!j.spec.multiline && filled > j.spec.windowBytes) result = searchWindows(j, path, fd, filled);
    else if (filled < readBuffer.length) result = searchBytes(j, path, readBuffer.subarray(0, filled));
    else {
      const whole = Buffer.allocUnsafe(Math.max(fs.fstatSync(fd).size, readBuffer.length));
      result = searchBytes(j, path, whole.subarray(0, readInto(fd, whole)));
    }
    return typeof result === 'object' && j.spec.mode === 'files_with_matches' ? { ...result, mtimeMs: fs.fstatSync(fd).mtimeMs } : result;
  };

  const searchFile = (j: Job, path: string, unreadable: string[]): FileOutcome => {
    let fd: number;
    try {
      fd = fs.openSync(path, 'r');
    } catch {
      unreadable.push(path);
      return undefined;
    }
    try {
      return searchFd(j, path, fd);
    } catch {
      unreadable.push(path);
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  };

  port.on('message', (message: WorkerRequest) => {
    if (message.type === 'job') {
      job = setup(message.jobId, message.spec, message.cancel);
      return;
    }
    const j = job;
    const files: WorkerFileResult[] = [];
    const countedOnly = { files: 0, count: 0 };
    const unreadable: string[] = [];
    if (j && j.id === message.jobId) {
      for (const path of message.paths) {
        if (Atomics.load(j.cancel, 0) !== 0) break;
        const result = searchFile(j, path, unreadable);
        if (typeof result === 'number') {
          countedOnly.files++;
          countedOnly.count += result;
        } else if (result) files.push(result);
      }
    }
    const response: WorkerResponse = { type: 'result', jobId: message.jobId, batchId: message.batchId, files, countedOnly, unreadable };
    port.postMessage(response);
  });
}

/** The worker's source, for `new Worker(source, {eval: true})`. */
export const GREP_WORKER_SOURCE = `(${grepWorkerMain.toString()})(${PagePrefix.toString()});`;
