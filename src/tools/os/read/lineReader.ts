/**
 * Streaming line windows over a file: the first N lines from a start line, or the last N lines,
 * without reading the whole file into memory. Lines are capped before decoding, so a file with
 * an 800 KB line costs no more than one with short lines.
 */

export interface ReadableHandle {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

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

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

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
    let text: string;
    let invalidUtf8 = false;
    try {
      text = strictDecoder.decode(bytes);
    } catch {
      text = lenientDecoder.decode(bytes);
      // A cut can split a character; only a fully kept line is judged.
      invalidUtf8 = !cut || text.slice(0, -1).includes('\uFFFD');
    }
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
    const line: WindowLine = {
      n,
      text,
      ...(cutFrom !== undefined ? { cutFromBytes: cutFrom } : {}),
      ...(invalidUtf8 ? { invalidUtf8: true } : {}),
    };
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

/** Keeps the first `cap` bytes of the current line and its total length. */
class LineAccumulator {
  private parts: Buffer[] = [];
  private keptBytes = 0;
  totalBytes = 0;

  constructor(private readonly cap: number) {}

  append(segment: Buffer, keep: boolean): void {
    this.totalBytes += segment.length;
    if (!keep || this.keptBytes >= this.cap) return;
    const room = this.cap - this.keptBytes;
    // Copy: the chunk buffer is reused for the next read.
    const piece = Buffer.from(segment.subarray(0, Math.min(room, segment.length)));
    this.parts.push(piece);
    this.keptBytes += piece.length;
  }

  take(): { kept: Buffer; totalBytes: number } {
    const kept = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.keptBytes);
    const totalBytes = this.totalBytes;
    this.parts = [];
    this.keptBytes = 0;
    this.totalBytes = 0;
    return { kept, totalBytes };
  }
}

/**
 * Lines from `startLine` (1-based) of the byte range [from, size), numbered from `firstNumber`.
 * When `countAll` is set, it keeps scanning after the window is full to count every line.
 */
export async function readForward(
  handle: ReadableHandle,
  size: number,
  options: LineWindowOptions & { readonly startLine: number; readonly countAll: boolean; readonly from?: number },
): Promise<LineWindow> {
  const collector = new Collector(options);
  const line = new LineAccumulator(byteCap(options));
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = options.from ?? 0;
  let lineNo = 1;
  let newlines = 0;
  let collecting = options.startLine <= 1;
  let done = false;
  let lastByteWasNewline = false;

  while (position < size) {
    throwIfAborted(options.signal);
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    lastByteWasNewline = chunk[bytesRead - 1] === NEWLINE;
    if (done) {
      // Only counting now.
      let at = chunk.indexOf(NEWLINE);
      while (at >= 0) {
        newlines++;
        at = chunk.indexOf(NEWLINE, at + 1);
      }
      continue;
    }
    let start = 0;
    while (start < bytesRead) {
      const end = chunk.indexOf(NEWLINE, start);
      const segmentEnd = end < 0 ? bytesRead : end;
      line.append(chunk.subarray(start, segmentEnd), collecting);
      if (end < 0) break;
      newlines++;
      const { kept, totalBytes } = line.take();
      if (collecting && !collector.offerBytes(lineNo, kept, totalBytes)) {
        done = true;
        if (!options.countAll) break;
        // Count the remaining newlines of this chunk.
        let at = chunk.indexOf(NEWLINE, end + 1);
        while (at >= 0) {
          newlines++;
          at = chunk.indexOf(NEWLINE, at + 1);
        }
        break;
      }
      lineNo++;
      if (lineNo >= options.startLine) collecting = true;
      start = end + 1;
    }
    if (done && !options.countAll) break;
  }

  const atEof = position >= size;
  if (!done && atEof && line.totalBytes > 0) {
    // The last line has no trailing newline.
    const { kept, totalBytes } = line.take();
    if (collecting) collector.offerBytes(lineNo, kept, totalBytes);
  }
  let totalLines: number | undefined;
  if (atEof && (options.countAll || !done)) {
    const rangeBytes = size - (options.from ?? 0);
    totalLines = rangeBytes === 0 ? 0 : newlines + (lastByteWasNewline ? 0 : 1);
  }
  return {
    lines: collector.lines,
    stoppedBy: collector.full ?? 'eof',
    totalLines,
    crlfLines: collector.crlfLines,
    sawNul: collector.sawNul,
  };
}

/** Counts newlines in [0, end), reading in chunks. */
async function countNewlines(handle: ReadableHandle, end: number, signal?: AbortSignal): Promise<number> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES * 4);
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
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
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
