/**
 * Where an `old_string` that was not found almost occurs, so Edit's error can point the model at
 * it. Pure functions over the file's text with CRLF turned into LF (line numbers are unchanged);
 * the caller bounds its size.
 *
 * In order:
 * 1. the same text with other line endings (the caller searched with the file's own, so this is
 *    a file that mixes CRLF and LF);
 * 2. old_string without Read's `N<TAB>` line-number prefixes;
 * 3. the same text ignoring all whitespace, classified as a difference in indentation, in
 *    trailing whitespace, or in other whitespace;
 * 4. the window of lines that shares the most lines with old_string (ignoring indentation);
 * 5. for one line, or when no line is shared, the most similar line by bigram overlap (Dice),
 *    within a work budget.
 */

export type NearMatchKind = 'line-endings' | 'line-numbers' | 'indentation' | 'trailing-whitespace' | 'whitespace' | 'similar';

export interface NearMatch {
  readonly kind: NearMatchKind;
  /** 1-based lines of the file text that hold the near match (inclusive). */
  readonly startLine: number;
  readonly endLine: number;
  /** old_string carried Read's line-number prefixes; the match is for the text without them. */
  readonly lineNumberPrefixes: boolean;
  /** Indentation: how it differs (`tabs-vs-spaces`, `spaces-vs-tabs`, `width`). */
  readonly indentation?: 'tabs-vs-spaces' | 'spaces-vs-tabs' | 'width';
  /** Similar, several lines: lines of the window identical to old_string's, ignoring indentation. */
  readonly identicalLines?: number;
  /** Similar: old_string's line count. */
  readonly needleLines?: number;
  /** Similar, one line: the Dice similarity of the best line, 0..1. */
  readonly similarity?: number;
}

export interface NearMatchOptions {
  /** Characters of candidate lines the similarity search may compare (default 4 million). */
  readonly similarityBudget?: number;
  /** The least Dice similarity reported for a single line (default 0.5). */
  readonly minSimilarity?: number;
}

const READ_PREFIX = /^ *\d+\t/;

/** Whether a UTF-16 code unit is whitespace in the sense of the RegExp class `\s`. */
export function isWhitespaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** Lines `from`..`to` (1-based, inclusive) of the text. */
export function linesOf(text: string, from: number, to: number): string[] {
  const out: string[] = [];
  let line = 1;
  let start = 0;
  while (line < from) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return out;
    start = nl + 1;
    line++;
  }
  while (line <= to && start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    out.push(text.slice(start, end));
    if (nl < 0) break;
    start = nl + 1;
    line++;
  }
  return out;
}

/** Removes Read's `N<TAB>` prefixes when every line of the text has one; undefined otherwise. */
export function stripReadPrefixes(text: string): string | undefined {
  const lines = text.split('\n');
  const meaningful = lines.filter((line, i) => !(i === lines.length - 1 && line === ''));
  if (meaningful.length === 0 || !meaningful.every((line) => READ_PREFIX.test(line))) return undefined;
  return lines.map((line) => line.replace(READ_PREFIX, '')).join('\n');
}

export function findNearMatch(text: string, needle: string, options: NearMatchOptions = {}): NearMatch | undefined {
  let target = needle.replace(/\r\n/g, '\n');
  let at = text.indexOf(target);
  // The caller's exact search (with the file's line endings) failed, so only they differ.
  if (at >= 0) return exactAt(text, 'line-endings', at, target.length, false);
  const stripped = stripReadPrefixes(target);
  const prefixes = stripped !== undefined;
  if (stripped !== undefined) {
    target = stripped;
    at = text.indexOf(target);
    if (at >= 0) return exactAt(text, 'line-numbers', at, target.length, true);
  }
  return findIgnoringWhitespace(text, target, prefixes) ?? findSimilar(text, target, prefixes, options);
}

function exactAt(text: string, kind: NearMatchKind, at: number, length: number, prefixes: boolean): NearMatch {
  const startLine = lineAt(text, at);
  return { kind, startLine, endLine: startLine + countBreaks(text, at, at + Math.max(0, length - 1)), lineNumberPrefixes: prefixes };
}

function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function findIgnoringWhitespace(text: string, needle: string, prefixes: boolean): NearMatch | undefined {
  const core = needle.replace(/\s+/g, '');
  if (core.length === 0) return undefined;
  const index = text.replace(/\s+/g, '').indexOf(core);
  if (index < 0) return undefined;
  // Map the index in the squeezed text back to the text by counting non-whitespace characters.
  let seen = 0;
  let start = -1;
  let end = -1;
  for (let i = 0; i < text.length; i++) {
    if (isWhitespaceCode(text.charCodeAt(i))) continue;
    if (seen === index) start = i;
    seen++;
    if (seen === index + core.length) {
      end = i + 1;
      break;
    }
  }
  if (start < 0 || end < 0) return undefined;
  const regionLines = text.slice(start, end).split('\n');
  const startLine = lineAt(text, start);
  const base = { startLine, endLine: startLine + regionLines.length - 1, lineNumberPrefixes: prefixes };
  const wantedLines = needle.trim().split('\n');
  if (regionLines.length !== wantedLines.length) return { kind: 'whitespace', ...base };

  // Whole lines with their indentation: the file's, and old_string's (its first line's own indent).
  const fileIndent = text.slice(text.lastIndexOf('\n', start - 1) + 1, start);
  const leading = needle.slice(0, needle.length - needle.trimStart().length);
  const needleIndent = leading.slice(leading.lastIndexOf('\n') + 1);
  const trailing = needle.slice(needle.trimEnd().length);
  const firstIndentAlike = fileIndent.endsWith(needleIndent);
  // old_string may start inside the first line's indentation; that part matches as it is.
  const fileLines = [(firstIndentAlike ? needleIndent : fileIndent) + regionLines[0], ...regionLines.slice(1)];
  const needleLines = [needleIndent + wantedLines[0], ...wantedLines.slice(1)];

  let indentDiffers = !firstIndentAlike;
  let trailingDiffers = !text.startsWith(trailing, end);
  for (let i = 0; i < regionLines.length; i++) {
    const r = regionLines[i]!;
    const w = wantedLines[i]!;
    if (r === w) continue;
    if (r.trimStart() === w.trimStart()) indentDiffers = true;
    else if (r.trimEnd() === w.trimEnd()) trailingDiffers = true;
    else if (r.trim() === w.trim()) {
      indentDiffers = true;
      trailingDiffers = true;
    } else return { kind: 'whitespace', ...base };
  }
  if (indentDiffers && !trailingDiffers) return { kind: 'indentation', ...base, indentation: indentationDifference(fileLines, needleLines) };
  if (trailingDiffers && !indentDiffers) return { kind: 'trailing-whitespace', ...base };
  return { kind: 'whitespace', ...base };
}

function leadingWhitespace(line: string): string {
  return line.slice(0, line.length - line.trimStart().length);
}

function indentationDifference(fileLines: readonly string[], needleLines: readonly string[]): 'tabs-vs-spaces' | 'spaces-vs-tabs' | 'width' {
  let file = '';
  let wanted = '';
  fileLines.forEach((line, i) => {
    const a = leadingWhitespace(line);
    const b = leadingWhitespace(needleLines[i] ?? '');
    if (a === b) return;
    file += a;
    wanted += b;
  });
  if (file.includes('\t') && !wanted.includes('\t')) return 'tabs-vs-spaces';
  if (!file.includes('\t') && wanted.includes('\t')) return 'spaces-vs-tabs';
  return 'width';
}

/** Lines too common to anchor a match on (`}`, `end`, blank). */
function isDistinctive(trimmed: string): boolean {
  return trimmed.length >= 4;
}

function findSimilar(text: string, needle: string, prefixes: boolean, options: NearMatchOptions): NearMatch | undefined {
  const wanted = needle.replace(/\n+$/, '').split('\n').map((line) => line.trim());
  const k = wanted.length;
  const fileLines = text.split('\n');
  if (k >= 2) {
    const anchors = new Map<string, number[]>();
    wanted.forEach((line, j) => {
      if (!isDistinctive(line)) return;
      const list = anchors.get(line);
      if (list) list.push(j);
      else anchors.set(line, [j]);
    });
    const votes = new Map<number, number>();
    let best = -1;
    let bestVotes = 0;
    for (let i = 0; i < fileLines.length; i++) {
      const js = anchors.get(fileLines[i]!.trim());
      if (!js) continue;
      for (const j of js) {
        const start = i - j;
        const v = (votes.get(start) ?? 0) + 1;
        votes.set(start, v);
        if (v > bestVotes || (v === bestVotes && start < best)) {
          best = start;
          bestVotes = v;
        }
      }
    }
    if (bestVotes > 0) {
      const first = Math.max(0, best);
      const last = Math.min(fileLines.length - 1, best + k - 1);
      let identical = 0;
      for (let j = 0; j < k; j++) {
        const line = fileLines[best + j];
        if (line !== undefined && line.trim() === wanted[j]) identical++;
      }
      return { kind: 'similar', startLine: first + 1, endLine: last + 1, lineNumberPrefixes: prefixes, identicalLines: identical, needleLines: k };
    }
  }
  // One line, or no shared line: the file line most similar to old_string's longest line.
  let anchor = 0;
  for (let j = 1; j < k; j++) if (wanted[j]!.length > wanted[anchor]!.length) anchor = j;
  const probe = wanted[anchor]!;
  if (probe.length < 2) return undefined;
  const scorer = new DiceScorer(probe);
  let budget = options.similarityBudget ?? 4_000_000;
  let bestLine = -1;
  let bestScore = 0;
  for (let i = 0; i < fileLines.length && budget > 0; i++) {
    const line = fileLines[i]!.trim();
    if (line.length < probe.length / 2 || line.length > probe.length * 2) continue;
    budget -= line.length;
    const score = scorer.score(line);
    if (score > bestScore) {
      bestScore = score;
      bestLine = i;
    }
  }
  if (bestLine < 0 || bestScore < (options.minSimilarity ?? 0.5)) return undefined;
  const first = Math.max(0, bestLine - anchor);
  const last = Math.min(fileLines.length - 1, first + k - 1);
  return { kind: 'similar', startLine: first + 1, endLine: last + 1, lineNumberPrefixes: prefixes, needleLines: k, similarity: bestScore };
}

/** Dice coefficient over character bigrams, against one fixed string, without per-line allocation. */
export class DiceScorer {
  private readonly probe: Int32Array;
  private scratch: Int32Array;

  constructor(probe: string) {
    this.probe = DiceScorer.bigrams(probe, new Int32Array(Math.max(1, probe.length)));
    this.scratch = new Int32Array(Math.max(1, probe.length * 2 + 2));
  }

  private static bigrams(text: string, out: Int32Array): Int32Array {
    const n = Math.max(0, text.length - 1);
    for (let i = 0; i < n; i++) out[i] = (text.charCodeAt(i) << 16) | text.charCodeAt(i + 1);
    return out.subarray(0, n).sort();
  }

  score(text: string): number {
    if (text.length > this.scratch.length) this.scratch = new Int32Array(text.length);
    const other = DiceScorer.bigrams(text, this.scratch);
    const total = this.probe.length + other.length;
    if (total === 0) return 1;
    let i = 0;
    let j = 0;
    let shared = 0;
    while (i < this.probe.length && j < other.length) {
      const a = this.probe[i]!;
      const b = other[j]!;
      if (a === b) {
        shared++;
        i++;
        j++;
      } else if (a < b) i++;
      else j++;
    }
    return (2 * shared) / total;
  }
}
