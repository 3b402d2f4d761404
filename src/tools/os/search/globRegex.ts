/**
 * Globs as ripgrep's `globset` crate (0.4, the one in rg 15) reads them, translated to JavaScript
 * regular expressions, so ignore files, Grep's `glob` and Glob's `pattern` mean what they mean
 * to rg (docs/tools.md, "Search rules shared by Glob and Grep"):
 *
 * - `*` is any run of bytes but `/`, `?` one byte but `/`;
 * - `**` as a whole segment (`**\/x`, `x/**`, `x/**\/y`) spans folders; anywhere else it is `*`;
 * - `[...]` is one byte of a set: `!` or `^` first negates it (a negated set also matches `/`),
 *   `]` first is a member, `a-z` a range, a `-` first or last a member; nothing inside it is an
 *   escape (`[\]` is the set of the backslash);
 * - `{a,b}` alternates (nesting allowed), `,` outside braces is literal;
 * - `\x` is a literal `x`; every other character is itself.
 *
 * rg matches bytes: a non-ASCII character is several bytes, each of which `?` or a set counts
 * once. The regex therefore runs on the path in its "byte form", its UTF-8 bytes as latin1
 * characters (byteForm); an ASCII path is its own byte form, so the common case costs nothing.
 */

type Token =
  | { readonly kind: 'literal'; readonly char: string }
  | { readonly kind: 'any' | 'zeroOrMore' | 'recursivePrefix' | 'recursiveSuffix' | 'recursiveZeroOrMore' }
  | { readonly kind: 'class'; readonly negated: boolean; readonly ranges: ReadonlyArray<readonly [string, string]> }
  | { readonly kind: 'alternates'; readonly branches: readonly Token[][] };

export interface GlobRegexOptions {
  /** A `[` that is never closed is a literal `[` (ignore files) rather than an error (`rg -g`). */
  readonly allowUnclosedClass: boolean;
}

export interface CompiledGlob {
  /** The regex source, anchored (`^…$`), to run on byteForm(path) without flags. */
  readonly source: string;
  /** Whether a match can contain `/` (else a pattern matched at any depth can be tested on the base name alone). */
  readonly crossesSlash: boolean;
}

/** Why rg refuses a glob, in its own words where it has them. */
export class GlobSyntaxError extends Error {}

// One code point at a time (a glob is read as chars, as in Rust).
function codePoints(glob: string): string[] {
  return Array.from(glob);
}

class GlobParser {
  private readonly chars: string[];
  private at = 0;
  private prev: string | undefined;
  private cur: string | undefined;
  private foundUnclosedClass = false;
  private readonly alternatesStack: number[] = [];
  private readonly branches: Token[][] = [[]];

  constructor(
    private readonly glob: string,
    private readonly options: GlobRegexOptions,
  ) {
    this.chars = codePoints(glob);
  }

  parse(): Token[] {
    for (let c = this.bump(); c !== undefined; c = this.bump()) {
      if (c === '?') this.push({ kind: 'any' });
      else if (c === '*') this.parseStar();
      else if (c === '[' && !this.foundUnclosedClass) this.parseClass();
      else if (c === '{') {
        this.alternatesStack.push(this.branches.length);
        this.branches.push([]);
      } else if (c === '}') {
        const start = this.alternatesStack.pop();
        if (start === undefined) throw new GlobSyntaxError('unopened alternate group; missing "{" (write "\\}" for a literal brace)');
        const branches = this.branches.splice(start);
        this.push({ kind: 'alternates', branches });
      } else if (c === ',') {
        if (this.alternatesStack.length === 0) this.push({ kind: 'literal', char: ',' });
        else this.branches.push([]);
      } else if (c === '\\') {
        const escaped = this.bump();
        if (escaped === undefined) throw new GlobSyntaxError('dangling "\\" (a backslash makes the next character literal: write "\\\\" for one backslash)');
        this.push({ kind: 'literal', char: escaped });
      } else this.push({ kind: 'literal', char: c });
    }
    if (this.branches.length > 1) throw new GlobSyntaxError('unclosed alternate group; missing "}" (write "\\{" for a literal brace)');
    return this.branches[0]!;
  }

  private get last(): Token[] {
    return this.branches[this.branches.length - 1]!;
  }

  private push(token: Token): void {
    this.last.push(token);
  }

  private bump(): string | undefined {
    this.prev = this.cur;
    this.cur = this.chars[this.at];
    if (this.cur !== undefined) this.at++;
    return this.cur;
  }

  private peek(): string | undefined {
    return this.chars[this.at];
  }

  /** globset's parse_star, step by step: where `**` is a recursive token and where it is two stars. */
  private parseStar(): void {
    const prev = this.prev;
    if (this.peek() !== '*') {
      this.push({ kind: 'zeroOrMore' });
      return;
    }
    this.bump();
    const twoStars = () => {
      this.push({ kind: 'zeroOrMore' });
      this.push({ kind: 'zeroOrMore' });
    };
    if (this.last.length === 0) {
      const next = this.peek();
      if (next !== undefined && next !== '/') twoStars();
      else {
        this.push({ kind: 'recursivePrefix' });
        this.bump();
      }
      return;
    }
    if (prev !== '/' && (this.branches.length <= 1 || (prev !== ',' && prev !== '{'))) {
      twoStars();
      return;
    }
    const next = this.peek();
    let isSuffix: boolean;
    if (next === undefined) {
      isSuffix = true;
    } else if ((next === ',' || next === '}') && this.branches.length >= 2) {
      isSuffix = true;
    } else if (next === '/') {
      this.bump();
      isSuffix = false;
    } else {
      twoStars();
      return;
    }
    const popped = this.last.pop()!;
    if (popped.kind === 'recursivePrefix' || popped.kind === 'recursiveSuffix') this.push(popped);
    else this.push({ kind: isSuffix ? 'recursiveSuffix' : 'recursiveZeroOrMore' });
  }

  private parseClass(): void {
    const saved = { at: this.at, prev: this.prev, cur: this.cur };
    const ranges: Array<[string, string]> = [];
    let negated = false;
    if (this.peek() === '!' || this.peek() === '^') {
      this.bump();
      negated = true;
    }
    let first = true;
    let inRange = false;
    const extend = (c: string) => {
      const range = ranges[ranges.length - 1]!;
      range[1] = c;
      if (range[1].codePointAt(0)! < range[0].codePointAt(0)!) {
        throw new GlobSyntaxError(`invalid range; "${range[0]}" > "${range[1]}" (write the smaller character first)`);
      }
    };
    for (;;) {
      const c = this.bump();
      if (c === undefined) {
        if (!this.options.allowUnclosedClass) throw new GlobSyntaxError('unclosed character class; missing "]" (write "\\[" for a literal bracket)');
        this.at = saved.at;
        this.prev = saved.prev;
        this.cur = saved.cur;
        this.foundUnclosedClass = true;
        this.push({ kind: 'literal', char: '[' });
        return;
      }
      if (c === ']') {
        if (!first) break;
        ranges.push([']', ']']);
      } else if (c === '-') {
        if (first) ranges.push(['-', '-']);
        else if (inRange) {
          extend('-');
          inRange = false;
        } else inRange = true;
      } else {
        if (inRange) extend(c);
        else ranges.push([c, c]);
        inRange = false;
      }
      first = false;
    }
    if (inRange) ranges.push(['-', '-']);
    this.push({ kind: 'class', negated, ranges });
  }
}

const encoder = new TextEncoder();

/** A character as regex source matching its UTF-8 bytes in byte form; `\xHH` for anything not a letter or digit. */
function escapedBytes(char: string): string {
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  let out = '';
  for (const byte of encoder.encode(char)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
  return out;
}

function tokensToRegex(tokens: readonly Token[], out: { source: string; crossesSlash: boolean }): void {
  for (const token of tokens) {
    switch (token.kind) {
      case 'literal':
        out.source += escapedBytes(token.char);
        if (token.char === '/') out.crossesSlash = true;
        break;
      case 'any':
        out.source += '[^/]';
        break;
      case 'zeroOrMore':
        out.source += '[^/]*';
        break;
      // rg's `.` is any byte but a newline (Rust `(?-u)`); JavaScript's `.` also stops at `\r`.
      case 'recursivePrefix':
        out.source += '(?:/?|[^\\n]*/)';
        out.crossesSlash = true;
        break;
      case 'recursiveSuffix':
        out.source += '/[^\\n]*';
        out.crossesSlash = true;
        break;
      case 'recursiveZeroOrMore':
        out.source += '(?:/|/[^\\n]*/)';
        out.crossesSlash = true;
        break;
      case 'class': {
        // The set is of bytes: a multi-byte member adds each of its bytes, as rg's byte regex does.
        let body = '';
        for (const [from, to] of token.ranges) body += from === to ? escapedBytes(from) : `${escapedBytes(from)}-${escapedBytes(to)}`;
        out.source += `[${token.negated ? '^' : ''}${body}]`;
        if (token.negated || token.ranges.some(([from, to]) => from <= '/' && '/' <= to)) out.crossesSlash = true;
        break;
      }
      case 'alternates': {
        const parts: string[] = [];
        for (const branch of token.branches) {
          const part = { source: '', crossesSlash: false };
          tokensToRegex(branch, part);
          if (part.source !== '') parts.push(part.source);
          out.crossesSlash ||= part.crossesSlash;
        }
        if (parts.length > 0) out.source += `(?:${parts.join('|')})`;
        break;
      }
    }
  }
}

/** Translates one glob; throws GlobSyntaxError where rg refuses it. */
export function globToRegex(glob: string, options: GlobRegexOptions): CompiledGlob {
  const tokens = new GlobParser(glob, options).parse();
  if (tokens.length === 1 && tokens[0]!.kind === 'recursivePrefix') return { source: '^[^\\n]*$', crossesSlash: true };
  const out = { source: '^', crossesSlash: false };
  tokensToRegex(tokens, out);
  return { source: `${out.source}$`, crossesSlash: out.crossesSlash };
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

/** Whether a string is all ASCII, so its own byte form. */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/** The path as the regexes of globToRegex read it: its UTF-8 bytes, one latin1 character each. */
export function byteForm(path: string): string {
  return NON_ASCII.test(path) ? Buffer.from(path, 'utf8').toString('latin1') : path;
}
