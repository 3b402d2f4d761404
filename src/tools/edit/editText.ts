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

/** 1-based line numbers of ascending byte offsets, in one pass over the bytes before the last. */
export function lineNumbersAt(bytes: Buffer, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const offset of offsets) {
    for (let at = bytes.indexOf(LF, from); at >= 0 && at < offset; at = bytes.indexOf(LF, at + 1)) {
      line++;
      from = at + 1;
    }
    from = Math.max(from, Math.min(offset, bytes.length));
    lines.push(line);
  }
  return lines;
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
