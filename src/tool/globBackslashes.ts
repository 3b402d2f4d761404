/**
 * Backslash escapes in globs, made safe for picomatch.
 *
 * In git (and ripgrep's globset) `\` escapes the next character: `\\` is one literal backslash,
 * so a run of 2k backslashes is k literal backslashes, and a pattern that ends in an odd run has
 * a backslash that escapes nothing: git never matches it, ripgrep refuses it. picomatch 4 instead
 * collapses a run of four or more backslashes, and when that run ends the pattern its parser
 * steps past the end and loops forever, synchronously (no timeout can fire). So every pattern a
 * user, a model or an ignore file supplies goes through this rewrite before picomatch sees it.
 */

/** One literal backslash as picomatch reads it exactly: the range `\`–`\` (a plain `[\\]` also matches the text `[\]`). */
const LITERAL_BACKSLASH = '[\\\\-\\\\]';

/** The index of the `]` that closes the bracket expression opened at `open`, or -1 when it is never closed. */
function closingBracket(glob: string, open: number): number {
  let at = open + 1;
  if (glob[at] === '!' || glob[at] === '^') at++;
  // A `]` right after the opening is a member, not the end.
  if (glob[at] === ']') at++;
  while (at < glob.length) {
    const c = glob[at];
    if (c === '\\') at += 2;
    else if (c === ']') return at;
    else at++;
  }
  return -1;
}

/**
 * The glob with its escapes written so that picomatch reads them as git does (a pattern without
 * `\` is returned as it is); undefined when the pattern ends in a backslash that
 * escapes nothing, which git treats as a pattern that matches nothing.
 */
export function rewriteGlobBackslashes(glob: string): string | undefined {
  let run = 0;
  for (let at = glob.length - 1; at >= 0 && glob[at] === '\\'; at--) run++;
  if (run % 2 === 1) return undefined;
  if (!glob.includes('\\')) return glob;
  let out = '';
  let bracketEnd = -1;
  for (let at = 0; at < glob.length; ) {
    const c = glob[at]!;
    if (c === '\\') {
      let end = at;
      while (end < glob.length && glob[end] === '\\') end++;
      const pairs = (end - at) >> 1;
      const escapesNext = (end - at) % 2 === 1;
      // Inside a bracket expression one escaped backslash says it all: members do not repeat.
      if (pairs > 0) out += at < bracketEnd ? '\\\\' : LITERAL_BACKSLASH.repeat(pairs);
      at = end;
      if (escapesNext) {
        const escaped = glob[at]!;
        // An escaped letter or digit is itself (git); picomatch would pass `\d` or `\b` on as a regex class.
        out += /[A-Za-z0-9]/.test(escaped) ? escaped : `\\${escaped}`;
        at++;
      }
      continue;
    }
    if (c === '[' && at > bracketEnd) {
      const close = closingBracket(glob, at);
      if (close < 0) {
        // Never closed: a literal `[`, escaped so that no bracket written above pairs with it.
        out += '\\[';
        at++;
        continue;
      }
      bracketEnd = close;
    }
    out += c;
    at++;
  }
  return out;
}
