import { isUtf8 } from 'node:buffer';

/**
 * Byte-level helpers for Edit. A file is edited as bytes: an exact UTF-8 needle found in valid
 * UTF-8 text always starts and ends on character boundaries, so the file never has to be decoded
 * into a string (which would be one or two more full copies of a large file).
 */

const LF = 0x0a;
const CR = 0x0d;

/** `crlf`: every line break is CRLF; `lf`: none is; `mixed`: both occur; `none`: no line break. */
export type LineEndingStyle = 'lf' | 'crlf' | 'mixed' | 'none';

export function detectLineEndings(bytes: Buffer): LineEndingStyle {
  let lf = 0;
  let crlf = 0;
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, at + 1)) {
    if (at > 0 && bytes[at - 1] === CR) crlf++;
    else lf++;
    // Both kinds seen: no need to look further.
    if (lf > 0 && crlf > 0) return 'mixed';
  }
  if (crlf > 0) return 'crlf';
  return lf > 0 ? 'lf' : 'none';
}

/** The text with every line break (CRLF or LF) written as `style`. A lone CR is left alone. */
export function withLineEndings(text: string, style: 'lf' | 'crlf'): string {
  const lf = text.replace(/\r\n/g, '\n');
  return style === 'crlf' ? lf.replace(/\n/g, '\r\n') : lf;
}

/**
 * Offsets where `needle` occurs. `overlapping` also counts matches that share bytes ("aa" twice
 * in "aaa"), which is what uniqueness means; replacement uses non-overlapping matches.
 * `limit` stops the search early.
 */
export function findOccurrences(haystack: Buffer, needle: Buffer, options: { overlapping?: boolean; limit?: number } = {}): number[] {
  const offsets: number[] = [];
  if (needle.length === 0) return offsets;
  const step = options.overlapping ? 1 : needle.length;
  const limit = options.limit ?? Infinity;
  for (let at = haystack.indexOf(needle); at >= 0 && offsets.length < limit; at = haystack.indexOf(needle, at + step)) {
    offsets.push(at);
  }
  return offsets;
}

/** 1-based line numbers of ascending byte offsets, in one pass: each line break is looked at once. */
export function lineNumbersAt(bytes: Buffer, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let nextBreak = bytes.indexOf(LF);
  for (const offset of offsets) {
    while (nextBreak >= 0 && nextBreak < offset) {
      line++;
      nextBreak = bytes.indexOf(LF, nextBreak + 1);
    }
    lines.push(line);
  }
  return lines;
}

/** Where a sink takes the edited bytes (writeFileAtomic's sink). */
export interface ByteSink {
  write(data: Buffer): Promise<void>;
}

/** Occurrences of a needle and the lines they are on. */
export interface OccurrenceTally {
  /** Occurrences found (replaced, for writeReplacingAll). */
  readonly count: number;
  /** The first distinct lines (1-based, ascending) with an occurrence, at most `listLines`. */
  readonly lines: readonly number[];
  /** How many distinct lines have an occurrence. */
  readonly distinctLines: number;
}

interface TallyOptions {
  readonly signal: AbortSignal;
  readonly listLines: number;
  /** Count occurrences that share bytes ("aa" twice in "aaa"); replacing never does. */
  readonly overlapping?: boolean;
  /** Start at the first occurrence at or after this offset. */
  readonly from?: number;
}

/** Steps (occurrences and line breaks passed) between checks of the abort signal and turns of the event loop. */
const SLICE_STEPS = 8192;
/** Small pieces are gathered into writes of this size. */
const GATHER_BYTES = 256 * 1024;

/**
 * Finds the occurrences of `needle` in one pass and numbers their lines as it goes (each line
 * break is looked at once), so the time is linear in the file and no list of offsets is kept,
 * whatever the number of occurrences. `onOccurrence` may write. Every SLICE_STEPS steps it lets
 * other work run and throws the signal's reason once it has aborted.
 */
async function tally(
  bytes: Buffer,
  needle: Buffer,
  options: TallyOptions,
  onOccurrence?: (at: number) => Promise<void> | undefined,
): Promise<OccurrenceTally> {
  const { signal, listLines } = options;
  const step = options.overlapping ? 1 : needle.length;
  const lines: number[] = [];
  let count = 0;
  let distinctLines = 0;
  let line = 1;
  let lastLine = 0;
  let nextBreak = bytes.indexOf(LF);
  let steps = 0;
  const pause = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    signal.throwIfAborted();
  };
  signal.throwIfAborted();
  if (needle.length === 0) return { count, lines, distinctLines };
  for (let at = bytes.indexOf(needle, options.from ?? 0); at >= 0; at = bytes.indexOf(needle, at + step)) {
    while (nextBreak >= 0 && nextBreak < at) {
      line++;
      nextBreak = bytes.indexOf(LF, nextBreak + 1);
      if (++steps % SLICE_STEPS === 0) await pause();
    }
    if (line !== lastLine) {
      distinctLines++;
      if (lines.length < listLines) lines.push(line);
      lastLine = line;
    }
    count++;
    const writing = onOccurrence?.(at);
    if (writing) await writing;
    if (++steps % SLICE_STEPS === 0) await pause();
  }
  return { count, lines, distinctLines };
}

/** Counts the occurrences of `needle` and the lines they are on, in one pass (see tally). */
export function tallyOccurrences(bytes: Buffer, needle: Buffer, options: TallyOptions): Promise<OccurrenceTally> {
  return tally(bytes, needle, options);
}

/** Where a sink takes the edited bytes (writeFileAtomic's sink). */
export interface ByteSink {
  write(data: Buffer): Promise<void>;
}

/**
 * Writes `bytes` with every non-overlapping occurrence of `needle` replaced, in the one pass
 * that finds and numbers them (see tally); small pieces are gathered into large writes.
 */
export async function writeReplacingAll(
  sink: ByteSink,
  bytes: Buffer,
  needle: Buffer,
  replacement: Buffer,
  options: Omit<TallyOptions, 'overlapping'>,
): Promise<OccurrenceTally> {
  let gather = Buffer.allocUnsafe(GATHER_BYTES);
  let gathered = 0;
  const flush = async (): Promise<void> => {
    // The sink owns what it was given: gathering goes on in a new buffer.
    const full = gather.subarray(0, gathered);
    gather = Buffer.allocUnsafe(GATHER_BYTES);
    gathered = 0;
    await sink.write(full);
  };
  // Copies source[start, end) into the gathered bytes; a promise only when it has to write.
  const put = (source: Buffer, start: number, end: number): Promise<void> | undefined => {
    const length = end - start;
    if (length === 0) return undefined;
    if (gathered + length <= GATHER_BYTES) {
      source.copy(gather, gathered, start, end);
      gathered += length;
      return undefined;
    }
    return (async () => {
      if (gathered > 0) await flush();
      if (length >= GATHER_BYTES) {
        await sink.write(source.subarray(start, end));
      } else {
        source.copy(gather, 0, start, end);
        gathered = length;
      }
    })();
  };
  let written = 0;
  const result = await tally(bytes, needle, { ...options, overlapping: false }, (at) => {
    const before = put(bytes, written, at);
    written = at + needle.length;
    if (before) return before.then(() => put(replacement, 0, replacement.length));
    return put(replacement, 0, replacement.length);
  });
  const rest = put(bytes, written, bytes.length);
  if (rest) await rest;
  if (gathered > 0) await flush();
  return result;
}

/** How many line breaks (LF) the text has. */
export function countLineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The offset of the first byte that is not part of valid UTF-8, or -1 when all of it is valid. */
export function firstInvalidUtf8(bytes: Buffer): number {
  if (isUtf8(bytes)) return -1;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f; // no UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f; // nothing above U+10FFFF
    } else return i;
    if (i + need >= n) return i;
    const b1 = bytes[i + 1]!;
    if (b1 < low || b1 > high) return i;
    for (let k = 2; k <= need; k++) {
      const c = bytes[i + k]!;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}
