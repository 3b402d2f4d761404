import { formatBytes, formatCount } from '../../../base/strings';
import type { ToolResult } from '../../../tool/contract';
import type { GrepFileResult, GrepLine, GrepOutputMode, GrepTotals } from './grepEngine';

export const LINE_CUT_MARKER = ' [... line truncated]';

export interface GrepPresentation {
  readonly mode: GrepOutputMode;
  /** Already in output order: those a page can show, up to the page's end (GrepCollector). */
  readonly files: readonly GrepFileResult[];
  /** Of every matching file, shown or not. */
  readonly totals: GrepTotals;
  /** How a path is shown (relative to the working directory when inside it). */
  readonly show: (path: string) => string;
  readonly lineNumbers: boolean;
  readonly before: number;
  readonly after: number;
  /** 0: no limit. */
  readonly headLimit: number;
  readonly offset: number;
  readonly stopped?: 'timeout' | 'cap';
  readonly timeoutText: string;
  readonly maxOutputBytes: number;
  readonly unreadable: readonly string[];
  /** For the "no matches" line. */
  readonly pattern: string;
  readonly scope: string;
  readonly includeIgnored: boolean;
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

function lineText(line: GrepLine): string {
  return line.cut ? line.text + LINE_CUT_MARKER : line.text;
}

/** The lines of one file to show for the selected matches: the matches and the context around them. */
function contentRows(file: GrepFileResult, selected: ReadonlySet<number>, before: number, after: number, show: string, lineNumbers: boolean): string[][] {
  const lines = file.lines ?? [];
  const ranges: Array<[number, number]> = [];
  for (const n of selected) ranges.push([n - before, n + after]);
  ranges.sort((a, b) => a[0] - b[0]);
  const groups: string[][] = [];
  let previous = -Infinity;
  let r = 0;
  for (const line of lines) {
    while (r < ranges.length && ranges[r]![1] < line.n) r++;
    let inRange = false;
    for (let j = r; j < ranges.length && ranges[j]![0] <= line.n; j++) {
      if (ranges[j]![1] >= line.n) {
        inRange = true;
        break;
      }
    }
    if (!inRange) continue;
    const isSelected = line.match && selected.has(line.n);
    const sep = isSelected ? ':' : '-';
    const row = lineNumbers ? `${show}${sep}${line.n}${sep}${lineText(line)}` : `${show}${sep}${lineText(line)}`;
    if (line.n !== previous + 1 || groups.length === 0) groups.push([]);
    groups[groups.length - 1]!.push(row);
    previous = line.n;
  }
  return groups;
}

export function renderGrep(p: GrepPresentation): ToolResult {
  const out: string[] = [];
  let truncated = p.stopped !== undefined;
  if (p.stopped === 'timeout') {
    out.push(`Grep timed out after ${p.timeoutText} s; the results below are partial and the totals are lower bounds. Narrow the path, glob or pattern.`);
  } else if (p.stopped === 'cap') {
    out.push(
      `Grep stopped after collecting ${formatBytes(p.maxOutputBytes)} of matches; the results below are partial and the totals are lower bounds. ` +
        // Pages keep only what they show (GrepCollector): only head_limit 0, or a page far in, fills the cap.
        (p.mode === 'content' ? `Narrow the pattern or path, or use output_mode "files_with_matches" or "count_matches".` : 'Narrow the pattern or path, or give a head_limit and page with offset.'),
    );
  }
  const limit = p.headLimit === 0 ? Infinity : p.headLimit;
  const end = (total: number) => Math.min(total, p.offset + limit);
  const pageLine = (total: number, what: [string, string], suffix = '') => {
    const last = end(total);
    if (total > 0 && p.offset >= total) return `No results at offset=${p.offset}: there ${total === 1 ? 'is' : 'are'} ${plural(total, ...what)}. Use a smaller offset.`;
    if (last < total) {
      truncated = true;
      return `Showing ${what[1]} ${formatCount(p.offset + 1)}-${formatCount(last)} of ${formatCount(total)}${suffix}. Use offset=${last} to see more.`;
    }
    if (p.offset > 0) return `Showing ${what[1]} ${formatCount(p.offset + 1)}-${formatCount(last)} of ${formatCount(total)}${suffix}.`;
    return undefined;
  };

  if (p.totals.files === 0) {
    out.push(
      `No matches for "${p.pattern}" in ${p.scope}.` +
        (p.includeIgnored ? '' : ' Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.'),
    );
  } else if (p.mode === 'files_with_matches') {
    for (const file of p.files.slice(p.offset, end(p.totals.files))) out.push(p.show(file.path));
    const line = pageLine(p.totals.files, ['file', 'files']);
    if (line) out.push(line);
  } else if (p.mode === 'count_matches') {
    out.push(`Found ${plural(p.totals.count, 'occurrence', 'occurrences')} in ${plural(p.totals.files, 'file', 'files')}.`);
    for (const file of p.files.slice(p.offset, end(p.totals.files))) out.push(`${p.show(file.path)}:${file.count}`);
    const line = pageLine(p.totals.files, ['file', 'files']);
    if (line) out.push(line);
  } else {
    // `count` is the number of matching lines; only the files on the page are looked into.
    const total = p.totals.count;
    const last = end(total);
    let index = 0;
    const groups: string[][] = [];
    for (const file of p.files) {
      if (index + file.count <= p.offset || index >= last) {
        index += file.count;
        continue;
      }
      // An engine keeps the lines of only the first matches of a file (those a page can show); its count has them all.
      const first = index;
      const selected = new Set<number>();
      for (const line of file.lines ?? []) {
        if (!line.match) continue;
        if (index >= p.offset && index < last) selected.add(line.n);
        index++;
      }
      index = first + file.count;
      if (selected.size > 0) for (const group of contentRows(file, selected, p.before, p.after, p.show(file.path), p.lineNumbers)) groups.push(group);
    }
    const context = p.before > 0 || p.after > 0;
    // Loops, not push(...rows): a file can bring more rows than a call may take arguments.
    groups.forEach((group, i) => {
      if (context && i > 0) out.push('--');
      for (const row of group) out.push(row);
    });
    const line = pageLine(total, ['matching line', 'matching lines'], ` in ${plural(p.totals.files, 'file', 'files')}`);
    if (line) out.push(line);
  }
  if (p.unreadable.length > 0) {
    const shown = p.unreadable.slice(0, 5).map(p.show).join(', ');
    out.push(`${plural(p.unreadable.length, 'path', 'paths')} could not be read: ${shown}${p.unreadable.length > 5 ? ', …' : ''}.`);
  }
  const output = out.join('\n');
  return truncated ? { output, truncated: true } : { output };
}
