import { randomBytes } from 'node:crypto';
/** Edit distance counting insertions, deletions, substitutions and swaps of neighbours (OSA). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      row[j] = best;
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to `input`, when it is close enough to be a plausible typo: a case-only
 * difference, or an edit distance of at most a third of the longer name (at least 1, at most 3).
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  const lower = input.toLowerCase();
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = editDistance(lower, candidate.toLowerCase());
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(input.length, candidate.length) / 3)));
    if (distance <= limit && distance < bestScore) {
      best = candidate;
      bestScore = distance;
    }
  }
  return best;
}

/** `1,234,567` */
export function formatCount(n: number): string {
  // Not toLocaleString: its first call initialises ICU, which costs ~10 ms.
  const [whole, fraction] = String(Math.abs(n)).split('.') as [string, string | undefined];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction !== undefined ? '.' + fraction : ''}`;
}

/** `12.3 MB` */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** `1.5 s`, `2 min 5 s`, `1 h 2 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const totalS = Math.round(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m} min${totalS % 60 ? ` ${totalS % 60} s` : ''}`;
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/**
 * `<tag attrs>text</tag>` with every closing tag of the same name inside `text` escaped
 * (`<\/tag`), so third-party or model text cannot end the block early.
 */
export function wrapInTag(tag: string, text: string, attrs = ''): string {
  const closing = new RegExp(`</(${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`, 'gi');
  return `<${tag}${attrs ? ` ${attrs}` : ''}>\n${text.replace(closing, '<\\/$1')}\n</${tag}>`;
}

/** Random bytes drawn 4 KiB at a time: a `randomBytes` call per id cost more than the rest of creating a subagent's id. */
const randomPool = { bytes: Buffer.alloc(0), used: 0 };

/** `length` random characters from 0-9a-z (ids that must not collide by chance). */
export function randomBase36(length: number): string {
  if (randomPool.used + length > randomPool.bytes.length) {
    randomPool.bytes = randomBytes(Math.max(4096, length));
    randomPool.used = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += (randomPool.bytes[randomPool.used++]! % 36).toString(36);
  return out;
}
