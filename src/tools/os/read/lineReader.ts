import { isUtf8 } from 'node:buffer';
import type { PositionalReader } from '../../../base/fs/fileHash';
/**
 * Streaming line windows over a file: the first N lines from a start line, or the last N lines,
 * without reading the whole file into memory. Lines are capped before decoding, so a file with
 * an 800 KB line costs no more than one with short lines.
 */

/** What the line reader reads from: a FileHandle, or any positional reader. */
export type ReadableHandle = PositionalReader;

export interface LineWindowOptions {
  /** Maximum lines to return. */
  readonly maxLines: number;
  /** Character budget of the rendered output (`N<TAB>text` lines joined by newlines). */
  readonly maxChars: number;
  /** Longer lines are cut to this many characters. */
  readonly maxLineChars: number;
  readonly signal?: AbortSignal;
}

export interface WindowLine {
  /** 1-based line number, or a negative position from the end when the total is not known. */
  readonly n: number;
  readonly text: string;
  /** The byte length of the whole line when it was cut, else undefined. */
  readonly cutFromBytes?: number;
  /** The line has bytes that are not valid UTF-8 (shown as U+FFFD). */
  readonly invalidUtf8?: boolean;
}

export interface LineWindow {
  readonly lines: readonly WindowLine[];
  /** Why collection stopped: the line limit, the character budget, or the end of the file. */
  readonly stoppedBy: 'lines' | 'chars' | 'eof';
  /** Total lines in the file, when counted. */
  readonly totalLines?: number;
  /** Lines that ended in CRLF (the `\r` is not shown). */
  readonly crlfLines: number;
  /** A NUL byte appeared in a returned line. */
  readonly sawNul: boolean;
}

/** The reads of a window are this size: a file up to it is read in one. */
export const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;


export function renderedLength(line: WindowLine): number {
  return String(line.n).length + 1 + line.text.length;
}

/** Collects decoded lines under the line limit and the character budget. */
class Collector {
  readonly lines: WindowLine[] = [];
  chars = 0;
  crlfLines = 0;
  sawNul = false;
  full: 'lines' | 'chars' | undefined;

  constructor(private readonly options: LineWindowOptions) {}

  /** Decodes a line from its kept bytes (at most the cap) and adds it. Returns false once full. */
  offerBytes(n: number, kept: Buffer, totalBytes: number): boolean {
    let bytes = kept;
    const cut = totalBytes > kept.length;
    if (!cut && bytes.length > 0 && bytes[bytes.length - 1] === CR) {
      bytes = bytes.subarray(0, bytes.length - 1);
      this.crlfLines++;
    }
    // toString never throws; a U+FFFD in the result is the only sign the bytes may be invalid.
    const text = bytes.toString('utf8');
    // A cut can split the last character; only the rest of a cut line is judged.
    const invalidUtf8 = text.includes('\uFFFD') && !isUtf8(cut ? bytes.subarray(0, Math.max(0, bytes.length - 4)) : bytes);
    return this.offerText(n, text, cut ? totalBytes : undefined, invalidUtf8);
  }

  offerText(n: number, fullText: string, cutFromBytes: number | undefined, invalidUtf8 = false): boolean {
    if (this.full) return false;
    const limit = Math.max(1, Math.min(this.options.maxLineChars, this.options.maxChars - 32));
    let text = fullText;
    let cutFrom = cutFromBytes;
    if (text.length > limit) {
      cutFrom ??= Buffer.byteLength(fullText, 'utf8');
      text = text.slice(0, limit);
    }
    if (text.includes('\0')) this.sawNul = true;
    // The common line has neither mark: a plain literal, not the spreads (each an object of its own).
    const line: WindowLine =
      cutFrom === undefined && !invalidUtf8
        ? { n, text }
        : { n, text, ...(cutFrom !== undefined ? { cutFromBytes: cutFrom } : {}), ...(invalidUtf8 ? { invalidUtf8: true } : {}) };
    const cost = renderedLength(line) + (this.lines.length > 0 ? 1 : 0);
    if (this.lines.length > 0 && this.chars + cost > this.options.maxChars) {
      this.full = 'chars';
      return false;
    }
    this.lines.push(line);
    this.chars += cost;
    if (this.lines.length >= this.options.maxLines) this.full = 'lines';
    return this.full === undefined;
  }
}

function byteCap(options: LineWindowOptions): number {
  // Enough bytes for maxLineChars characters of up to 4 bytes each, plus a CR.
  return Math.min(options.maxLineChars, options.maxChars) * 4 + 4;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('Aborted');
}

function countNewlinesIn(chunk: Buffer, from: number, to: number): number {
  let count = 0;
  let at = chunk.indexOf(NEWLINE, from);
  while (at >= 0 && at < to) {
    count++;
    at = chunk.indexOf(NEWLINE, at + 1);
  }
  return count;
}

/**
 * Lines from `startLine` (1-based) of the byte range [from, size). When `countAll` is set, it
 * keeps scanning after the window is full to count every line.
 *
 * Complete lines that lie inside one chunk are decoded together, one string per run of lines,
 * so the per-line work is a newline search and a split; only lines that cross a chunk boundary
 * or exceed the byte cap are handled one by one.
 */
export async function readForward(
  handle: ReadableHandle,
  size: number,
  options: LineWindowOptions & { readonly startLine: number; readonly countAll: boolean; readonly from?: number },
): Promise<LineWindow> {
  const collector = new Collector(options);
  const cap = byteCap(options);
  let position = options.from ?? 0;
  // No bigger than the file: a batch of many small reads must not hold a whole chunk each.
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, size - position)));
  let lineNo = 1; // the number of the line that starts at the scan point
  let newlines = 0;
  let done = false;
  let lastByteWasNewline = false;
  // A line that began in an earlier chunk: its first `cap` bytes (copied) and its total length.
  let carry: Buffer[] = [];
  let carryKept = 0;
  let carryTotal = -1; // -1: no line is carried

  const wants = () => !done && lineNo >= options.startLine;
  const offerOne = (bytes: Buffer, total: number) => {
    if (!collector.offerBytes(lineNo, bytes, total)) done = true;
  };

  while (position < size && !(done && !options.countAll)) {
    throwIfAborted(options.signal);
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    lastByteWasNewline = chunk[bytesRead - 1] === NEWLINE;
    if (done) {
      newlines += countNewlinesIn(chunk, 0, bytesRead);
      continue;
    }
    let start = 0;
    if (carryTotal >= 0) {
      const end = chunk.indexOf(NEWLINE);
      const segmentEnd = end < 0 ? bytesRead : end;
      if (wants() && carryKept < cap) {
        const piece = Buffer.from(chunk.subarray(0, Math.min(segmentEnd, cap - carryKept)));
        carry.push(piece);
        carryKept += piece.length;
      }
      carryTotal += segmentEnd;
      if (end < 0) continue;
      newlines++;
      if (wants()) offerOne(Buffer.concat(carry, carryKept), carryTotal);
      lineNo++;
      carry = [];
      carryKept = 0;
      carryTotal = -1;
      start = end + 1;
    }
    // A run of complete, short lines waiting to be decoded together.
    let runStart = -1;
    let runEnd = -1;
    let runFirst = 0;
    const flushRun = () => {
      if (runStart < 0) return;
      const first = runFirst;
      const from = runStart;
      const to = runEnd;
      runStart = -1;
      if (done) return;
      const text = chunk.toString('utf8', from, to);
      if (text.includes('\uFFFD')) {
        // Rare: some line may hold invalid UTF-8; judge the lines one by one on their bytes.
        let at = from;
        for (let n = first; at <= to && !done; n++) {
          const nl = chunk.indexOf(NEWLINE, at);
          const lineEnd = nl < 0 || nl > to ? to : nl;
          if (!collector.offerBytes(n, chunk.subarray(at, lineEnd), lineEnd - at)) done = true;
          at = lineEnd + 1;
        }
        return;
      }
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        let line = lines[i]!;
        if (line.endsWith('\r')) {
          line = line.slice(0, -1);
          collector.crlfLines++;
        }
        if (!collector.offerText(first + i, line, undefined)) {
          done = true;
          return;
        }
      }
    };
    while (start < bytesRead) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) {
        flushRun();
        if (wants()) {
          carry = [Buffer.from(chunk.subarray(start, Math.min(bytesRead, start + cap)))];
          carryKept = carry[0]!.length;
        }
        carryTotal = bytesRead - start;
        break;
      }
      newlines++;
      if (wants()) {
        if (end - start <= cap) {
          if (runStart < 0) {
            runStart = start;
            runFirst = lineNo;
          }
          runEnd = end;
          // Decode as soon as the run can fill the window, so a full window stops the scan early.
          if (lineNo - runFirst + 1 >= options.maxLines - collector.lines.length) flushRun();
        } else {
          flushRun();
          if (!done) offerOne(chunk.subarray(start, start + cap), end - start);
        }
      }
      lineNo++;
      start = end + 1;
      if (done) {
        if (!options.countAll) break;
        newlines += countNewlinesIn(chunk, start, bytesRead);
        break;
      }
    }
    flushRun();
  }

  const atEof = position >= size;
  if (!done && atEof && carryTotal > 0) {
    // The last line has no trailing newline.
    if (wants()) offerOne(Buffer.concat(carry, carryKept), carryTotal);
  }
  let totalLines: number | undefined;
  if (atEof && (options.countAll || !done)) {
    const rangeBytes = size - (options.from ?? 0);
    totalLines = rangeBytes === 0 ? 0 : newlines + (lastByteWasNewline ? 0 : 1);
  }
  // A window that filled up on the file's last line did reach the end.
  const last = collector.lines[collector.lines.length - 1];
  const reachedEnd = collector.full === 'lines' && totalLines !== undefined && last !== undefined && last.n >= totalLines;
  return {
    lines: collector.lines,
    stoppedBy: reachedEnd ? 'eof' : (collector.full ?? 'eof'),
    totalLines,
    crlfLines: collector.crlfLines,
    sawNul: collector.sawNul,
  };
}

/** Counts newlines in [0, end), reading in chunks. */
async function countNewlines(handle: ReadableHandle, end: number, signal?: AbortSignal): Promise<number> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES * 4, end)));
  let count = 0;
  let position = 0;
  while (position < end) {
    throwIfAborted(signal);
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) break;
    let at = buffer.indexOf(NEWLINE);
    while (at >= 0 && at < bytesRead) {
      count++;
      at = buffer.indexOf(NEWLINE, at + 1);
    }
    position += bytesRead;
  }
  return count;
}

/**
 * The byte offset where the last `count` lines begin, found by reading backwards from the end,
 * and how many lines that range holds (fewer when the file is shorter).
 */
async function findTailStart(handle: ReadableHandle, size: number, count: number, signal?: AbortSignal): Promise<{ offset: number; lines: number }> {
  if (size === 0) return { offset: 0, lines: 0 };
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size));
  let end = size;
  // A final newline ends the last line; it does not start another one.
  const last = Buffer.allocUnsafe(1);
  await handle.read(last, 0, 1, size - 1);
  let skipTrailing = last[0] === NEWLINE;
  let found = 0;
  while (end > 0) {
    throwIfAborted(signal);
    const start = Math.max(0, end - CHUNK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    let at = bytesRead - 1;
    while (at >= 0) {
      at = buffer.lastIndexOf(NEWLINE, at);
      if (at < 0) break;
      if (skipTrailing && start + at === size - 1) {
        skipTrailing = false;
        at--;
        continue;
      }
      found++;
      if (found === count) return { offset: start + at + 1, lines: count };
      at--;
    }
    end = start;
  }
  return { offset: 0, lines: found + 1 };
}

/**
 * The last `count` lines (then at most `maxLines` of them from the first). Over the character
 * budget, the oldest lines are dropped so the end of the file survives. Line numbers are absolute
 * when `countAll` is set, else negative positions from the end (-1 is the last line).
 */
export async function readTail(
  handle: ReadableHandle,
  size: number,
  options: LineWindowOptions & { readonly count: number; readonly countAll: boolean },
): Promise<LineWindow> {
  const tail = await findTailStart(handle, size, options.count, options.signal);
  const wanted = Math.min(tail.lines, options.maxLines);
  // Read the tail range without a character budget, then trim from the front.
  const window = await readForward(handle, size, {
    ...options,
    maxLines: wanted,
    maxChars: Number.MAX_SAFE_INTEGER,
    startLine: 1,
    countAll: false,
    from: tail.offset,
  });
  let lines = window.lines;
  let stoppedBy: LineWindow['stoppedBy'] = wanted < tail.lines ? 'lines' : 'eof';
  let chars = lines.reduce((sum, line, i) => sum + renderedLength(line) + (i > 0 ? 1 : 0), 0);
  let dropped = 0;
  while (lines.length - dropped > 1 && chars > options.maxChars) {
    chars -= renderedLength(lines[dropped]!) + 1;
    dropped++;
  }
  if (dropped > 0) {
    lines = lines.slice(dropped);
    stoppedBy = 'chars';
  }
  let totalLines: number | undefined;
  let first: number;
  if (options.countAll) {
    const before = await countNewlines(handle, tail.offset, options.signal);
    totalLines = before + tail.lines;
    first = before + 1 + dropped;
  } else {
    first = -tail.lines + dropped;
  }
  const numbered = lines.map((line, i) => ({ ...line, n: first + i }));
  return { lines: numbered, stoppedBy, totalLines, crlfLines: window.crlfLines, sawNul: window.sawNul };
}

/** The same windows over text already in memory (UTF-16 files, transcoded). */
export function windowFromText(
  text: string,
  options: LineWindowOptions & { readonly lineOffset: number },
): LineWindow {
  const all = text.length === 0 ? [] : text.replace(/\n$/, '').split('\n');
  const collector = new Collector(options);
  const start = options.lineOffset > 0 ? options.lineOffset : Math.max(1, all.length + options.lineOffset + 1);
  const offer = (n: number) => {
    let lineText = all[n - 1]!;
    if (lineText.endsWith('\r')) {
      lineText = lineText.slice(0, -1);
      collector.crlfLines++;
    }
    return collector.offerText(n, lineText, undefined);
  };
  if (options.lineOffset > 0) {
    for (let n = start; n <= all.length; n++) if (!offer(n)) break;
    return { lines: collector.lines, stoppedBy: collector.full ?? 'eof', totalLines: all.length, crlfLines: collector.crlfLines, sawNul: collector.sawNul };
  }
  // Tail: keep the newest lines within the budget.
  const end = Math.min(all.length, start + options.maxLines - 1);
  let from = start;
  let chars = 0;
  for (let n = end; n >= start; n--) {
    const cost = String(n).length + 1 + Math.min(all[n - 1]!.length, options.maxLineChars) + 1;
    if (chars + cost > options.maxChars && n < end) break;
    chars += cost;
    from = n;
  }
  for (let n = from; n <= end; n++) offer(n);
  const stoppedBy = from > start ? 'chars' : end < all.length ? 'lines' : 'eof';
  return { lines: collector.lines, stoppedBy, totalLines: all.length, crlfLines: collector.crlfLines, sawNul: collector.sawNul };
}
