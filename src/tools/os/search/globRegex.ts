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

export type GlobToken = Token;

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
  /**
   * What tests a path (its byte form): a RegExp of `source`, or for a glob whose backtracking
   * regex can take exponential time (globIsRisky: `*a*a*a*b` took 48 s on one 255-byte name),
   * a GlobAutomaton that accepts the same paths in time linear in the path.
   */
  readonly matcher: RegExp | GlobAutomaton;
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

type ClassToken = Extract<Token, { kind: 'class' }>;

/** The set is of bytes: a multi-byte member adds each of its bytes, as rg's byte regex does. */
function classSource(token: ClassToken): string {
  let body = '';
  for (const [from, to] of token.ranges) body += from === to ? escapedBytes(from) : `${escapedBytes(from)}-${escapedBytes(to)}`;
  return `[${token.negated ? '^' : ''}${body}]`;
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
        out.source += classSource(token);
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

/**
 * Translates one glob; throws GlobSyntaxError where rg refuses it. `linear: true` always gives
 * the automaton (the tests compare it with the regex).
 */
export function globToRegex(glob: string, options: GlobRegexOptions & { readonly linear?: boolean }): CompiledGlob {
  const tokens = new GlobParser(glob, options).parse();
  if (tokens.length === 1 && tokens[0]!.kind === 'recursivePrefix') {
    const source = '^[^\\n]*$';
    return { source, crossesSlash: true, matcher: options.linear ? new GlobAutomaton(tokens) : new RegExp(source) };
  }
  const out = { source: '^', crossesSlash: false };
  tokensToRegex(tokens, out);
  const source = `${out.source}$`;
  const linear = options.linear === true || globIsRisky(tokens);
  return { source, crossesSlash: out.crossesSlash, matcher: linear ? new GlobAutomaton(tokens) : new RegExp(source) };
}

/** Repeats (`*`, `**`) in a glob, braces included, and the ways through its braces. */
function complexity(tokens: readonly Token[]): { repeats: number; ways: number } {
  let repeats = 0;
  let ways = 1;
  for (const token of tokens) {
    if (token.kind === 'zeroOrMore' || token.kind === 'recursivePrefix' || token.kind === 'recursiveSuffix' || token.kind === 'recursiveZeroOrMore') repeats++;
    else if (token.kind === 'alternates') {
      let most = 0;
      let branchWays = 0;
      for (const branch of token.branches) {
        const inner = complexity(branch);
        most = Math.max(most, inner.repeats);
        branchWays += inner.ways;
      }
      repeats += most;
      ways = Math.min(ways * Math.max(1, branchWays), 1 << 20);
    }
  }
  return { repeats, ways };
}

/**
 * Whether the glob's regex can backtrack for long: a failing match of a regex with k repeats
 * tries up to n^k splits of an n-byte path, and each brace multiplies the ways. Two repeats and
 * a few braces (`**\/*.{ts,tsx}`) stay regexes, the fast path for the common globs.
 */
function globIsRisky(tokens: readonly Token[]): boolean {
  const { repeats, ways } = complexity(tokens);
  return repeats >= 3 || ways > 16 || (repeats >= 2 && ways > 4);
}

const SLASH = 0x2f;
const NEWLINE = 0x0a;

/**
 * A glob as a Thompson automaton over the bytes of a path (its byte form), simulated state set
 * by state set: time linear in the path whatever the glob, where a backtracking regex of a glob
 * with many `*` can take exponential time on a name that almost matches. It accepts exactly what
 * the glob's regex (globToRegex's `source`) accepts; the tests check that on generated globs.
 */
export class GlobAutomaton {
  /** Per state: a byte test (a 256-entry table), or a split (both `out` and `alt`), or the end. */
  private readonly tables: Array<Uint8Array | undefined> = [];
  private readonly out: number[] = [];
  private readonly alt: number[] = [];
  private readonly start: number;
  private readonly accept: number;
  private readonly seen: Int32Array;
  private generation = 0;
  /** Reused between tests: state sets and the closure's stack (a test allocates nothing). */
  private current: number[] = [];
  private next: number[] = [];
  private readonly stack: number[] = [];

  constructor(tokens: readonly GlobToken[]) {
    this.accept = this.add(undefined, -1, -1);
    this.start = tokens.length === 1 && tokens[0]!.kind === 'recursivePrefix' ? this.star(table((c) => c !== NEWLINE), this.accept) : this.sequence(tokens, this.accept);
    this.seen = new Int32Array(this.out.length);
  }

  /** Matches the whole of `bytes` (a path in byte form: every char code below 256). */
  test(bytes: string): boolean {
    let current: number[] = this.current;
    let next: number[] = this.next;
    current.length = 0;
    this.generation++;
    this.close(this.start, current);
    for (let i = 0; i < bytes.length && current.length > 0; i++) {
      const code = bytes.charCodeAt(i);
      this.generation++;
      next.length = 0;
      for (const state of current) {
        // The end state has no table: it takes no byte.
        if (this.tables[state]?.[code] === 1) this.close(this.out[state]!, next);
      }
      const swap = current;
      current = next;
      next = swap;
    }
    this.current = current;
    this.next = next;
    return current.includes(this.accept);
  }

  /** Adds `state` and what it reaches without a byte; byte-testing states and the end are kept. */
  private close(state: number, into: number[]): void {
    const stack = this.stack;
    stack.push(state);
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (this.seen[s] === this.generation) continue;
      this.seen[s] = this.generation;
      if (this.tables[s] !== undefined || s === this.accept) into.push(s);
      else {
        stack.push(this.alt[s]!);
        stack.push(this.out[s]!);
      }
    }
  }

  private add(test: Uint8Array | undefined, out: number, alt: number): number {
    this.tables.push(test);
    this.out.push(out);
    this.alt.push(alt);
    return this.tables.length - 1;
  }

  private byte(test: Uint8Array, next: number): number {
    return this.add(test, next, -1);
  }

  private split(a: number, b: number): number {
    return this.add(undefined, a, b);
  }

  /** `test*`, then `next`. */
  private star(test: Uint8Array, next: number): number {
    const loop = this.split(-1, next);
    this.out[loop] = this.byte(test, loop);
    return loop;
  }

  private literal(text: string, next: number): number {
    let at = next;
    const bytes = encoder.encode(text);
    for (let i = bytes.length - 1; i >= 0; i--) {
      const code = bytes[i]!;
      at = this.byte(table((c) => c === code), at);
    }
    return at;
  }

  /** The tokens in order, then `next` (built back to front: each state knows where it goes). */
  private sequence(tokens: readonly Token[], next: number): number {
    let at = next;
    for (let i = tokens.length - 1; i >= 0; i--) at = this.token(tokens[i]!, at);
    return at;
  }

  private token(token: Token, next: number): number {
    switch (token.kind) {
      case 'literal':
        return this.literal(token.char, next);
      case 'any':
        return this.byte(NOT_SLASH, next);
      case 'zeroOrMore':
        return this.star(NOT_SLASH, next);
      // (?:/?|[^\n]*/)
      case 'recursivePrefix':
        return this.split(this.split(next, this.byte(ONLY_SLASH, next)), this.star(NOT_NEWLINE, this.byte(ONLY_SLASH, next)));
      // /[^\n]*
      case 'recursiveSuffix':
        return this.byte(ONLY_SLASH, this.star(NOT_NEWLINE, next));
      // (?:/|/[^\n]*/)
      case 'recursiveZeroOrMore':
        return this.split(this.byte(ONLY_SLASH, next), this.byte(ONLY_SLASH, this.star(NOT_NEWLINE, this.byte(ONLY_SLASH, next))));
      case 'class': {
        const re = new RegExp(classSource(token));
        return this.byte(table((c) => re.test(String.fromCharCode(c))), next);
      }
      case 'alternates': {
        // As the regex: a branch with no source is left out, and no branch at all matches nothing extra.
        const entries = token.branches.filter((branch) => branchSource(branch) !== '').map((branch) => this.sequence(branch, next));
        if (entries.length === 0) return next;
        return entries.reduceRight((rest, entry) => this.split(entry, rest));
      }
    }
  }
}

function table(accepts: (code: number) => boolean): Uint8Array {
  const bytes = new Uint8Array(256);
  for (let c = 0; c < 256; c++) bytes[c] = accepts(c) ? 1 : 0;
  return bytes;
}

const NOT_SLASH = table((c) => c !== SLASH);
const ONLY_SLASH = table((c) => c === SLASH);
const NOT_NEWLINE = table((c) => c !== NEWLINE);

function branchSource(branch: readonly Token[]): string {
  const part = { source: '', crossesSlash: false };
  tokensToRegex(branch, part);
  return part.source;
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
