/**
 * Grep patterns use ripgrep's syntax (the Rust `regex` crate). This module parses that syntax,
 * so a bad pattern gets the same clear error whichever engine runs, translates it to a
 * JavaScript RegExp (flag `v`) with the same meaning for the builtin engine, and extracts the
 * literals every match must contain, so the builtin engine can skip files without decoding them.
 *
 * Meaning kept from Rust: `\d`, `\w`, `\s` and `\b` are Unicode-aware; `.` matches anything but
 * `\n` (everything with `(?s)` or in multiline mode with dotall); `^` and `$` match at line
 * boundaries (`\n` only, not `\r`); `\A` and `\z` at the ends of the text (of the line outside
 * multiline mode, as ripgrep searches line by line); invalid UTF-8 matches no class nor `.`;
 * `\<` and `\>` at the start and end of a word; POSIX classes `[[:alpha:]]`; class set
 * operations `&&`, `--`, `~~`; flags `i m s U u x` in `(?flags)` and `(?flags:…)`.
 * Not supported by Rust and refused here too: look-around and backreferences.
 * Not supported by the builtin engine (ripgrep handles them): case-insensitivity that changes
 * inside the pattern (`a(?i)b`, `(?i:…)` that is not the whole pattern), CRLF mode `(?R)`, and
 * outside Unicode mode what matches single bytes above 7F (`(?-u:\xFF)`, `(?-u:.)`, `(?-u:[^a])`).
 */

export class RegexSyntaxError extends Error {
  override readonly name = 'RegexSyntaxError';
  constructor(
    message: string,
    /** 0-based index in the pattern's code points. */
    readonly position: number,
  ) {
    super(message);
  }
}

export class UnsupportedRegexError extends Error {
  override readonly name = 'UnsupportedRegexError';
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
  u: boolean;
  x: boolean;
  R: boolean;
}

type PerlClass = 'd' | 's' | 'w';
type AssertKind = 'start' | 'end' | 'wordBoundary' | 'notWordBoundary' | 'wordStart' | 'wordEnd' | 'wordStartHalf' | 'wordEndHalf';

export type ClassItem =
  | { readonly k: 'range'; readonly from: number; readonly to: number }
  | { readonly k: 'perl'; readonly cls: PerlClass; readonly negated: boolean; readonly unicode: boolean }
  | { readonly k: 'prop'; readonly name: string; readonly negated: boolean }
  | { readonly k: 'posix'; readonly name: string; readonly negated: boolean }
  | { readonly k: 'set'; readonly set: ClassSet };

export type ClassSet =
  | { readonly k: 'union'; readonly negated: boolean; readonly items: readonly ClassItem[] }
  | { readonly k: 'op'; readonly negated: boolean; readonly op: '&&' | '--' | '~~'; readonly left: ClassSet; readonly right: ClassSet };

export type RegexNode =
  | { readonly k: 'empty' }
  /** `byte`: `\xNN` (80-FF) outside Unicode mode, the single byte, not the character. */
  | { readonly k: 'lit'; readonly cp: number; readonly ci: boolean; readonly byte?: true }
  /** `bytes`: outside Unicode mode, where `.` and classes match single bytes. */
  | { readonly k: 'dot'; readonly dotAll: boolean; readonly crlf: boolean; readonly bytes?: true }
  | { readonly k: 'class'; readonly set: ClassSet; readonly ci: boolean; readonly bytes?: true }
  | { readonly k: 'assert'; readonly kind: AssertKind; readonly multiLine: boolean; readonly unicode: boolean; readonly crlf: boolean }
  | { readonly k: 'group'; readonly child: RegexNode }
  | { readonly k: 'repeat'; readonly child: RegexNode; readonly min: number; readonly max: number; readonly greedy: boolean }
  | { readonly k: 'concat'; readonly items: readonly RegexNode[] }
  | { readonly k: 'alt'; readonly items: readonly RegexNode[] };

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\u{0}-\\u{7f}',
  blank: '\\u{9}\\u{20}',
  cntrl: '\\u{0}-\\u{1f}\\u{7f}',
  digit: '0-9',
  graph: '\\u{21}-\\u{7e}',
  lower: 'a-z',
  print: '\\u{20}-\\u{7e}',
  punct: '\\u{21}-\\u{2f}\\u{3a}-\\u{40}\\u{5b}-\\u{60}\\u{7b}-\\u{7e}',
  space: '\\u{9}-\\u{d}\\u{20}',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const NAME_CHAR = /^[A-Za-z0-9_.[\]]$/;
const FLAG_CHARS = 'imsUuxR';

function isAsciiPunctOrSpace(cp: number): boolean {
  return cp === 0x20 || (cp >= 0x21 && cp <= 0x7e && !/[A-Za-z0-9]/.test(String.fromCodePoint(cp)));
}

class Parser {
  private pos = 0;
  private readonly cps: number[];

  constructor(pattern: string) {
    this.cps = Array.from(pattern, (c) => c.codePointAt(0)!);
  }

  private error(message: string, at = this.pos): never {
    throw new RegexSyntaxError(message, at);
  }

  private peek(offset = 0): string | undefined {
    const cp = this.cps[this.pos + offset];
    return cp === undefined ? undefined : String.fromCodePoint(cp);
  }

  private next(): string {
    const c = this.peek();
    if (c === undefined) this.error('unexpected end of pattern');
    this.pos++;
    return c;
  }

  private eat(text: string): boolean {
    const chars = Array.from(text);
    for (let i = 0; i < chars.length; i++) if (this.peek(i) !== chars[i]) return false;
    this.pos += chars.length;
    return true;
  }

  private skipExtended(flags: Flags): void {
    if (!flags.x) return;
    for (;;) {
      const c = this.peek();
      if (c !== undefined && /\s/.test(c)) this.pos++;
      else if (c === '#') {
        const start = this.pos;
        while (this.peek() !== undefined && this.peek() !== '\n') this.pos++;
        // ripgrep wraps the pattern in a group, so a comment that runs to the end swallows its ")".
        if (this.peek() === undefined) this.error('unclosed group: a (?x) comment must end with a newline', start);
      } else return;
    }
  }

  parse(initial: Flags): RegexNode {
    const node = this.parseAlternation({ ...initial });
    if (this.peek() === ')') this.error('unopened group');
    return node;
  }

  private parseAlternation(flags: Flags): RegexNode {
    const branches = [this.parseConcat(flags)];
    while (this.peek() === '|') {
      this.pos++;
      branches.push(this.parseConcat(flags));
    }
    return branches.length === 1 ? branches[0]! : { k: 'alt', items: branches };
  }

  private parseConcat(flags: Flags): RegexNode {
    const items: RegexNode[] = [];
    for (;;) {
      this.skipExtended(flags);
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') break;
      const start = this.pos;
      let atom = this.parseAtom(flags);
      if (atom === undefined) continue;
      for (;;) {
        this.skipExtended(flags);
        const q = this.peek();
        if (q !== '*' && q !== '+' && q !== '?' && q !== '{') break;
        let min: number;
        let max: number;
        if (q === '{') {
          [min, max] = this.parseCounted();
        } else {
          this.pos++;
          [min, max] = q === '*' ? [0, Infinity] : q === '+' ? [1, Infinity] : [0, 1];
        }
        let greedy = true;
        if (this.peek() === '?') {
          this.pos++;
          greedy = false;
        }
        if (flags.U) greedy = !greedy;
        atom = { k: 'repeat', child: atom, min, max, greedy };
      }
      if (this.pos === start) this.error('internal parser error');
      items.push(atom);
    }
    if (items.length === 0) return { k: 'empty' };
    return items.length === 1 ? items[0]! : { k: 'concat', items };
  }

  private parseCounted(): [number, number] {
    const open = this.pos;
    this.pos++; // {
    const number = (): number | undefined => {
      while (this.peek() === ' ') this.pos++;
      let digits = '';
      while (this.peek() !== undefined && /[0-9]/.test(this.peek()!)) digits += this.next();
      while (this.peek() === ' ') this.pos++;
      return digits === '' ? undefined : Number(digits);
    };
    const min = number();
    if (min === undefined) {
      if (this.peek() === undefined) this.error('unclosed counted repetition', open);
      this.error('repetition quantifier expects a valid decimal', this.pos);
    }
    let max = min;
    if (this.peek() === ',') {
      this.pos++;
      const upper = number();
      max = upper ?? Infinity;
    }
    if (this.peek() !== '}') this.error('unclosed counted repetition', open);
    this.pos++;
    if (max < min) this.error('invalid repetition count range, the start must be <= the end', open);
    return [min, max];
  }

  private parseAtom(flags: Flags): RegexNode | undefined {
    const start = this.pos;
    const c = this.next();
    switch (c) {
      case '(':
        return this.parseGroup(flags, start);
      case '[':
        return { k: 'class', set: this.parseClass(flags, start), ci: flags.i, ...bytesMode(flags) };
      case '.':
        return { k: 'dot', dotAll: flags.s, crlf: flags.R, ...bytesMode(flags) };
      case '^':
        return { k: 'assert', kind: 'start', multiLine: flags.m, unicode: flags.u, crlf: flags.R };
      case '$':
        return { k: 'assert', kind: 'end', multiLine: flags.m, unicode: flags.u, crlf: flags.R };
      case '\\':
        return this.parseEscape(flags, start);
      case '*':
      case '+':
      case '?':
      case '{':
        this.error('repetition operator missing expression', start);
        break;
      default:
        return { k: 'lit', cp: c.codePointAt(0)!, ci: flags.i };
    }
    return undefined;
  }

  private parseGroup(flags: Flags, start: number): RegexNode | undefined {
    if (this.peek() === '?') {
      this.pos++;
      if (this.eat('=') || this.eat('!') || this.eat('<=') || this.eat('<!')) {
        this.error('look-around, including look-ahead and look-behind, is not supported', start);
      }
      if (this.eat('P<') || this.eat('<')) {
        let name = '';
        while (this.peek() !== undefined && this.peek() !== '>') {
          const ch = this.next();
          if (!NAME_CHAR.test(ch)) this.error('invalid capture group character', this.pos - 1);
          name += ch;
        }
        if (this.peek() === undefined) this.error('unclosed capture group name', start);
        this.pos++;
        if (name === '' || /^[0-9]/.test(name)) this.error('invalid capture group name', start);
        return this.finishGroup({ ...flags }, start);
      }
      if (this.eat(':')) return this.finishGroup({ ...flags }, start);
      // Flags: (?imsx-imsx) or (?imsx-imsx:...)
      const updated = { ...flags };
      let negate = false;
      let any = false;
      for (;;) {
        const ch = this.peek();
        if (ch === undefined) this.error('unclosed group', start);
        if (ch === ')' || ch === ':') break;
        this.pos++;
        if (ch === '-') {
          if (negate) this.error('repeated negation in flags', this.pos - 1);
          negate = true;
          continue;
        }
        if (!FLAG_CHARS.includes(ch)) this.error('unrecognized flag', this.pos - 1);
        updated[ch as keyof Flags] = !negate;
        any = true;
      }
      if (!any && !negate) this.error('empty flag group', start);
      if (this.next() === ')') {
        Object.assign(flags, updated);
        return undefined;
      }
      return this.finishGroup(updated, start);
    }
    return this.finishGroup({ ...flags }, start);
  }

  private finishGroup(flags: Flags, start: number): RegexNode {
    const child = this.parseAlternation(flags);
    if (this.peek() !== ')') this.error('unclosed group', start);
    this.pos++;
    return { k: 'group', child };
  }

  private parseHex(exactDigits: number, start: number): number {
    let digits = '';
    if (this.peek() === '{') {
      this.pos++;
      while (this.peek() !== undefined && this.peek() !== '}') digits += this.next();
      if (this.peek() === undefined) this.error('unclosed hexadecimal literal', start);
      this.pos++;
      if (!/^[0-9A-Fa-f]{1,8}$/.test(digits)) this.error('invalid hexadecimal literal', start);
    } else {
      for (let i = 0; i < exactDigits; i++) {
        const ch = this.peek();
        if (ch === undefined || !/[0-9A-Fa-f]/.test(ch)) this.error('invalid hexadecimal literal', start);
        digits += this.next();
      }
    }
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.error('hexadecimal literal is not a Unicode scalar value', start);
    return cp;
  }

  private parseProperty(flags: Flags, negatedEscape: boolean, start: number): ClassItem {
    if (!flags.u) this.error('Unicode not allowed here', start);
    let name: string;
    if (this.peek() === '{') {
      this.pos++;
      name = '';
      while (this.peek() !== undefined && this.peek() !== '}') name += this.next();
      if (this.peek() === undefined) this.error('unclosed Unicode class', start);
      this.pos++;
    } else {
      if (this.peek() === undefined) this.error('incomplete escape sequence', start);
      name = this.next();
    }
    let negated = negatedEscape;
    if (name.includes('!=')) {
      negated = !negated;
      name = name.replace('!=', '=');
    }
    name = name.replace(':', '=').trim();
    if (name === '') this.error('empty Unicode class name', start);
    return { k: 'prop', name, negated };
  }

  /** An escape that stands for one code point, or undefined when it is something else. */
  private simpleEscape(ch: string, start: number): number | undefined {
    switch (ch) {
      case 'a':
        return 0x07;
      case 'f':
        return 0x0c;
      case 't':
        return 0x09;
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 'v':
        return 0x0b;
      case 'x':
        return this.parseHex(2, start);
      case 'u':
        return this.parseHex(4, start);
      case 'U':
        return this.parseHex(8, start);
      default: {
        const cp = ch.codePointAt(0)!;
        return isAsciiPunctOrSpace(cp) && ch !== '<' && ch !== '>' ? cp : undefined;
      }
    }
  }

  private parseEscape(flags: Flags, start: number): RegexNode {
    const ch = this.peek();
    if (ch === undefined) this.error('incomplete escape sequence: the pattern ends with a backslash', start);
    this.pos++;
    if (/[0-9]/.test(ch)) this.error('backreferences are not supported', start);
    if ('dDsSwW'.includes(ch)) {
      const item: ClassItem = { k: 'perl', cls: ch.toLowerCase() as PerlClass, negated: ch === ch.toUpperCase(), unicode: flags.u };
      return { k: 'class', set: { k: 'union', negated: false, items: [item] }, ci: flags.i, ...bytesMode(flags) };
    }
    if (ch === 'p' || ch === 'P') {
      return { k: 'class', set: { k: 'union', negated: false, items: [this.parseProperty(flags, ch === 'P', start)] }, ci: flags.i };
    }
    const assert = (kind: AssertKind): RegexNode => ({ k: 'assert', kind, multiLine: false, unicode: flags.u, crlf: flags.R });
    if (ch === 'b') {
      if (this.peek() === '{') {
        const close = this.cps.indexOf('}'.codePointAt(0)!, this.pos);
        if (close < 0) this.error('unclosed word boundary', start);
        const name = String.fromCodePoint(...this.cps.slice(this.pos + 1, close));
        const kinds: Record<string, AssertKind> = { start: 'wordStart', end: 'wordEnd', 'start-half': 'wordStartHalf', 'end-half': 'wordEndHalf' };
        const kind = kinds[name];
        if (!kind) this.error(`unrecognized word boundary "${name}"`, start);
        this.pos = close + 1;
        return assert(kind);
      }
      return assert('wordBoundary');
    }
    if (ch === 'B') return assert('notWordBoundary');
    if (ch === '<') return assert('wordStart');
    if (ch === '>') return assert('wordEnd');
    if (ch === 'A') return { k: 'assert', kind: 'start', multiLine: false, unicode: flags.u, crlf: flags.R };
    if (ch === 'z') return { k: 'assert', kind: 'end', multiLine: false, unicode: flags.u, crlf: flags.R };
    const hexByte = ch === 'x' && this.peek() !== '{';
    const cp = this.simpleEscape(ch, start);
    if (cp === undefined) this.error(`unrecognized escape sequence "\\${ch}"`, start);
    // As in Rust: outside Unicode mode `\xFF` is the byte FF; `\x{FF}` stays the character U+00FF.
    if (hexByte && !flags.u && cp > 0x7f) return { k: 'lit', cp, ci: flags.i, byte: true };
    return { k: 'lit', cp, ci: flags.i };
  }

  private parseClass(flags: Flags, start: number): ClassSet {
    const negated = this.peek() === '^';
    if (negated) this.pos++;
    let left = this.parseClassUnion(flags, start, true);
    for (;;) {
      this.skipClassSpace(flags);
      const c = this.peek();
      if (c === undefined) this.error('unclosed character class', start);
      if (c === ']') {
        this.pos++;
        break;
      }
      const op = this.eat('&&') ? '&&' : this.eat('--') ? '--' : this.eat('~~') ? '~~' : undefined;
      if (!op) this.error('internal class parser error');
      const right = this.parseClassUnion(flags, start, false);
      left = { k: 'op', negated: false, op, left, right };
    }
    return negated ? (left.k === 'union' ? { ...left, negated: true } : { ...left, negated: true }) : left;
  }

  private skipClassSpace(flags: Flags): void {
    if (!flags.x) return;
    while (this.peek() !== undefined && /\s/.test(this.peek()!)) this.pos++;
  }

  private atClassOp(): boolean {
    const a = this.peek();
    return (a === '&' || a === '-' || a === '~') && this.peek(1) === a;
  }

  private parseClassUnion(flags: Flags, start: number, first: boolean): ClassSet {
    const items: ClassItem[] = [];
    let allowCloseAsLiteral = first;
    for (;;) {
      this.skipClassSpace(flags);
      const c = this.peek();
      if (c === undefined) this.error('unclosed character class', start);
      if (c === ']' && !allowCloseAsLiteral) break;
      if (this.atClassOp() && items.length > 0) break;
      allowCloseAsLiteral = false;
      const itemStart = this.pos;
      const item = this.parseClassItem(flags, start);
      // A range: a-b, with literals on both sides.
      this.skipClassSpace(flags);
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== '-' && this.peek(1) !== undefined) {
        this.pos++;
        this.skipClassSpace(flags);
        const endStart = this.pos;
        const end = this.parseClassItem(flags, start);
        if (item.k !== 'range' || item.from !== item.to || end.k !== 'range' || end.from !== end.to) {
          this.error('invalid range boundary, must be a literal', item.k !== 'range' ? itemStart : endStart);
        }
        if (item.from > end.from) this.error('invalid character class range, the start must be <= the end', itemStart);
        items.push({ k: 'range', from: item.from, to: end.from });
        continue;
      }
      items.push(item);
    }
    return { k: 'union', negated: false, items };
  }

  private parseClassItem(flags: Flags, start: number): ClassItem {
    const itemStart = this.pos;
    const c = this.next();
    if (c === '[') {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(String.fromCodePoint(...this.cps.slice(this.pos - 1, this.pos + 20)));
      if (posix && POSIX_CLASSES[posix[2]!] !== undefined) {
        this.pos += posix[0].length - 1;
        return { k: 'posix', name: posix[2]!, negated: posix[1] === '^' };
      }
      return { k: 'set', set: this.parseClass(flags, itemStart) };
    }
    if (c === '\\') {
      const ch = this.peek();
      if (ch === undefined) this.error('unclosed character class', start);
      this.pos++;
      if ('dDsSwW'.includes(ch)) return { k: 'perl', cls: ch.toLowerCase() as PerlClass, negated: ch === ch.toUpperCase(), unicode: flags.u };
      if (ch === 'p' || ch === 'P') return this.parseProperty(flags, ch === 'P', itemStart);
      if (/[0-9]/.test(ch)) this.error('backreferences are not supported', itemStart);
      const hexByte = ch === 'x' && this.peek() !== '{';
      const cp = ch === '<' || ch === '>' ? ch.codePointAt(0)! : this.simpleEscape(ch, itemStart);
      if (cp === undefined) this.error(`unrecognized escape sequence "\\${ch}"`, itemStart);
      // Outside Unicode mode a class holds bytes: `\xFF` is one, a character above 7F (`é`, `\x{FF}`) is refused, as in Rust.
      if (!flags.u && cp > 0x7f && !hexByte) this.error('Unicode not allowed here', itemStart);
      return { k: 'range', from: cp, to: cp };
    }
    const cp = c.codePointAt(0)!;
    if (!flags.u && cp > 0x7f) this.error('Unicode not allowed here', itemStart);
    return { k: 'range', from: cp, to: cp };
  }
}

function bytesMode(flags: Flags): { bytes?: true } {
  return flags.u ? {} : { bytes: true };
}

const DEFAULT_FLAGS: Flags = { i: false, m: true, s: false, U: false, u: true, x: false, R: false };

export interface ParsedRegex {
  readonly pattern: string;
  readonly ast: RegexNode;
  readonly caseInsensitive: boolean;
  readonly multiline: boolean;
}

/**
 * Parses a ripgrep pattern. `caseInsensitive` is the `-i` option; `multiline` the `multiline`
 * option (`-U --multiline-dotall`). Throws RegexSyntaxError for patterns ripgrep rejects.
 */
export function parseRustRegex(pattern: string, options: { caseInsensitive: boolean; multiline: boolean }): ParsedRegex {
  const ast = new Parser(pattern).parse({ ...DEFAULT_FLAGS, i: options.caseInsensitive, s: options.multiline });
  if (!options.multiline) checkNoLiteralNewline(ast);
  return { pattern, ast, caseInsensitive: options.caseInsensitive, multiline: options.multiline };
}

function onlyNewline(node: RegexNode): boolean {
  if (node.k === 'lit') return node.cp === 0x0a;
  if (node.k === 'class' && node.set.k === 'union' && !node.set.negated) {
    return node.set.items.length > 0 && node.set.items.every((i) => i.k === 'range' && i.from === 0x0a && i.to === 0x0a);
  }
  return false;
}

/** ripgrep refuses a literal `\n` outside multiline mode (lines never contain one). */
function checkNoLiteralNewline(node: RegexNode): void {
  const fail = (): never => {
    throw new RegexSyntaxError('the literal "\\n" is not allowed in a regex unless multiline is true', 0);
  };
  switch (node.k) {
    case 'lit':
    case 'class':
      if (onlyNewline(node)) fail();
      return;
    case 'group':
    case 'repeat':
      checkNoLiteralNewline(node.child);
      return;
    case 'concat':
      node.items.forEach(checkNoLiteralNewline);
      return;
    case 'alt':
      for (const branch of node.items) if (!onlyNewline(branch)) checkNoLiteralNewline(branch);
      return;
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Translation to JavaScript (flag `v`).

const WORD_UNICODE = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const WORD_ASCII = '0-9A-Za-z_';

function cpText(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? String.fromCodePoint(cp) : `\\u{${cp.toString(16)}}`;
}

const propertyCache = new Map<string, string | null>();

/** A Rust Unicode class name as a JavaScript property escape body, or null when JavaScript has no equivalent. */
function jsProperty(name: string): string | null {
  const cached = propertyCache.get(name);
  if (cached !== undefined) return cached;
  const loose = name.replace(/[\s_-]/g, '');
  const titled = loose.charAt(0).toUpperCase() + loose.slice(1).toLowerCase();
  const candidates = name.includes('=')
    ? [name, name.replace(/^sc=/i, 'Script=').replace(/^scx=/i, 'Script_Extensions=').replace(/^gc=/i, 'General_Category=')]
    : [name, `Script=${name}`, titled, `Script=${titled}`, name.toUpperCase()];
  let found: string | null = null;
  for (const candidate of candidates) {
    try {
      new RegExp(`\\p{${candidate}}`, 'v');
      found = candidate;
      break;
    } catch {
      // try the next spelling
    }
  }
  propertyCache.set(name, found);
  return found;
}

function perlText(item: Extract<ClassItem, { k: 'perl' }>): string {
  if (item.unicode) {
    if (item.cls === 'd') return item.negated ? '\\P{Nd}' : '\\p{Nd}';
    if (item.cls === 's') return item.negated ? '\\P{White_Space}' : '\\p{White_Space}';
    return item.negated ? `[^${WORD_UNICODE}]` : `[${WORD_UNICODE}]`;
  }
  const body = item.cls === 'd' ? '0-9' : item.cls === 's' ? '\\t\\n\\v\\f\\r\\u{20}' : WORD_ASCII;
  return item.negated ? `[^${body}]` : `[${body}]`;
}

function classItemText(item: ClassItem): string {
  switch (item.k) {
    case 'range':
      return item.from === item.to ? cpText(item.from) : `${cpText(item.from)}-${cpText(item.to)}`;
    case 'perl':
      return perlText(item);
    case 'prop': {
      const property = jsProperty(item.name);
      if (property === null) throw new UnsupportedRegexError(`the Unicode class \\p{${item.name}} is not known to the builtin engine`);
      return `\\${item.negated ? 'P' : 'p'}{${property}}`;
    }
    case 'posix':
      return `[${item.negated ? '^' : ''}${POSIX_CLASSES[item.name]!}]`;
    case 'set':
      return classSetText(item.set);
  }
}

/** A class set as one bracketed JavaScript class. */
function classSetText(set: ClassSet): string {
  const caret = set.negated ? '^' : '';
  if (set.k === 'union') {
    if (set.items.length === 0) return set.negated ? '[\\s\\S]' : '[]';
    return `[${caret}${set.items.map(classItemText).join('')}]`;
  }
  const left = classSetText(set.left);
  const right = classSetText(set.right);
  if (set.op === '~~') return `[${caret}[${left}--${right}][${right}--${left}]]`;
  return `[${caret}${left}${set.op}${right}]`;
}

/**
 * What the builtin engine decodes invalid UTF-8 to (the WHATWG decoder's U+FFFD would match `.`):
 * a lone continuation byte (80-BF) and any other invalid sequence become these lone surrogates,
 * which valid UTF-8 never yields. Both are shown as U+FFFD.
 */
export const INVALID_UTF8_TEXT = { continuation: '\uDC80', other: '\uDFFF' } as const;

const CONTINUATION = '\\u{dc80}';

/**
 * The word-boundary tests of Rust's Unicode `\b`: the character before a position is found by
 * stepping back over up to three continuation bytes and decoding forward, so a word character
 * followed by stray continuation bytes (`a\x80`, `é\x80`) still counts as the word before; and
 * `\B` needs valid UTF-8 on both sides. ASCII `(?-u:\b)` looks at single bytes.
 */
function wordTests(unicode: boolean): { before: string; notBefore: string; after: string; notAfter: string; valid: string } {
  if (!unicode) {
    const w = `[${WORD_ASCII}]`;
    return { before: `(?<=${w})`, notBefore: `(?<!${w})`, after: `(?=${w})`, notAfter: `(?!${w})`, valid: '' };
  }
  const w = `[${WORD_UNICODE}]`;
  const byLength = (cls: string): string =>
    `[${cls}&&[\\u{0}-\\u{7f}]]${CONTINUATION}{1,3}|[${cls}&&[\\u{80}-\\u{7ff}]]${CONTINUATION}{1,2}|[${cls}&&[\\u{800}-\\u{ffff}]]${CONTINUATION}`;
  const wordBefore = `${w}|${byLength(w)}`;
  const validBefore = `(?:(?<!\\p{Cs})|(?<=${byLength('\\P{Cs}')}))`;
  return { before: `(?<=${wordBefore})`, notBefore: `(?<!${wordBefore})`, after: `(?=${w})`, notAfter: `(?!${w})`, valid: `${validBefore}(?!\\p{Cs})` };
}

/**
 * Outside multiline mode ripgrep matches line by line, so `\A`, `\z` and `(?-m)^`/`$` are at
 * the ends of the line; in multiline mode they are at the ends of the file.
 */
function assertText(node: Extract<RegexNode, { k: 'assert' }>, lineMode: boolean): string {
  if (node.crlf) throw new UnsupportedRegexError('CRLF mode (?R) is not supported by the builtin engine');
  const atLine = node.multiLine || lineMode;
  if (node.kind === 'start') return atLine ? '(?<=^|\\n)' : '^';
  if (node.kind === 'end') return atLine ? '(?=$|\\n)' : '$';
  const { before, notBefore, after, notAfter, valid } = wordTests(node.unicode);
  switch (node.kind) {
    case 'wordBoundary':
      return `(?:${before}${notAfter}|${notBefore}${after})`;
    case 'notWordBoundary':
      return `(?:${before}${after}|${notBefore}${notAfter}${valid})`;
    case 'wordStart':
      return `${notBefore}${after}`;
    case 'wordEnd':
      return `${before}${notAfter}`;
    case 'wordStartHalf':
      return notBefore;
    case 'wordEndHalf':
      return notAfter;
  }
}

/**
 * The builtin engine decodes invalid UTF-8 to lone surrogates (which valid UTF-8 never yields),
 * and every class and `.` leaves them out: in ripgrep invalid bytes match nothing but byte escapes.
 * No class is emitted negated at its top level: V8 (Node 20) with flag `v` fails to match a
 * top-level `[^…]` inside a counted group (`/(?:a[^c]){2}/v` misses "a1a2"), a nested one is fine.
 */
const NOT_SURROGATE = '--\\p{Cs}';

/**
 * Outside Unicode mode `\xFF`, `.` and classes such as `[^a]` or `\W` match single bytes, also
 * inside a character or in invalid UTF-8 (rg finds `(?-u:\xFF)` in a file holding the raw byte
 * FF). The builtin engine matches decoded text, so it refuses them instead of matching
 * characters; a class of ASCII bytes only (`(?-u:[\x00-\x7F])`, `(?-u:\w)`) means the same on
 * text. A class matches a byte above 7F when it matches one of these characters.
 */
const BYTES_ABOVE_ASCII = Array.from({ length: 0x80 }, (_, i) => String.fromCharCode(0x80 + i)).join('');
const BYTES_UNSUPPORTED = 'which the builtin engine cannot match (it searches decoded text); leave (?-u) out to match characters (\\x{FF} is U+00FF)';

function nodeText(node: RegexNode, lineMode: boolean): string {
  switch (node.k) {
    case 'empty':
      return '(?:)';
    case 'lit':
      if (node.byte) throw new UnsupportedRegexError(`outside Unicode mode ((?-u)) \\x${node.cp.toString(16).toUpperCase()} is the single byte ${node.cp.toString(16).toUpperCase()}, not a character, ${BYTES_UNSUPPORTED}`);
      return cpText(node.cp);
    case 'dot':
      if (node.crlf) throw new UnsupportedRegexError('CRLF mode (?R) is not supported by the builtin engine');
      if (node.bytes) throw new UnsupportedRegexError(`outside Unicode mode ((?-u)) "." matches any single byte, ${BYTES_UNSUPPORTED}`);
      return node.dotAll ? '\\P{Cs}' : '[\\P{Cs}--\\n]';
    case 'class': {
      const text = `[${classSetText(node.set)}${NOT_SURROGATE}]`;
      if (node.bytes && new RegExp(text, node.ci ? 'iv' : 'v').test(BYTES_ABOVE_ASCII)) {
        throw new UnsupportedRegexError(`outside Unicode mode ((?-u)) a class that matches a byte above 7F matches single bytes, ${BYTES_UNSUPPORTED}`);
      }
      return text;
    }
    case 'assert':
      return assertText(node, lineMode);
    case 'group':
      return `(?:${nodeText(node.child, lineMode)})`;
    case 'repeat': {
      const { min, max } = node;
      const quantifier = min === 0 && max === Infinity ? '*' : min === 1 && max === Infinity ? '+' : min === 0 && max === 1 ? '?' : max === Infinity ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
      return `(?:${nodeText(node.child, lineMode)})${quantifier}${node.greedy ? '' : '?'}`;
    }
    case 'concat':
      return node.items.map((item) => nodeText(item, lineMode)).join('');
    case 'alt':
      return node.items.map((item) => nodeText(item, lineMode)).join('|');
  }
}

function collectCaseFlags(node: RegexNode, into: Set<boolean>): void {
  switch (node.k) {
    case 'lit':
    case 'class':
      into.add(node.ci);
      return;
    case 'group':
    case 'repeat':
      collectCaseFlags(node.child, into);
      return;
    case 'concat':
    case 'alt':
      node.items.forEach((n) => collectCaseFlags(n, into));
      return;
    default:
      return;
  }
}

export interface JsRegexSource {
  readonly source: string;
  /** `v`, plus `i` when case-insensitive. */
  readonly flags: string;
}

/** The JavaScript equivalent of a parsed pattern. Throws UnsupportedRegexError. */
export function toJsRegex(parsed: ParsedRegex): JsRegexSource {
  const cases = new Set<boolean>();
  collectCaseFlags(parsed.ast, cases);
  if (cases.size > 1) {
    throw new UnsupportedRegexError('case-insensitivity that changes inside the pattern (e.g. "a(?i)b") is not supported by the builtin engine; use the -i parameter for the whole pattern');
  }
  const ci = cases.has(true);
  const source = nodeText(parsed.ast, !parsed.multiline);
  const flags = ci ? 'iv' : 'v';
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw new UnsupportedRegexError(`the builtin engine cannot run this pattern (${(error as Error).message})`);
  }
  return { source, flags };
}

// ---------------------------------------------------------------------------------------------
// Required literals, for the byte-level prefilter.

/** Every match contains, for each set, at least one of its literals. */
export interface RequiredLiterals {
  readonly sets: readonly (readonly string[])[];
  /** Compare ASCII letters case-insensitively (the literals are then ASCII only). */
  readonly caseInsensitive: boolean;
}

function requiredSets(node: RegexNode): string[][] {
  switch (node.k) {
    case 'lit':
      return [[String.fromCodePoint(node.cp)]];
    case 'group':
      return requiredSets(node.child);
    case 'repeat':
      return node.min >= 1 ? requiredSets(node.child) : [];
    case 'concat': {
      const sets: string[][] = [];
      let run = '';
      const flush = () => {
        if (run !== '') sets.push([run]);
        run = '';
      };
      for (const item of node.items) {
        if (item.k === 'lit') run += String.fromCodePoint(item.cp);
        else if (item.k === 'assert') continue;
        else {
          flush();
          sets.push(...requiredSets(item));
        }
      }
      flush();
      return sets;
    }
    case 'alt': {
      const union: string[] = [];
      for (const branch of node.items) {
        const best = bestSet(requiredSets(branch));
        if (!best) return [];
        union.push(...best);
      }
      return [union];
    }
    default:
      return [];
  }
}

function weakest(set: readonly string[]): number {
  return Math.min(...set.map((s) => Buffer.byteLength(s)));
}

function bestSet(sets: readonly string[][]): string[] | undefined {
  let best: string[] | undefined;
  for (const set of sets) if (!best || weakest(set) > weakest(best)) best = set;
  return best;
}

/** The literals a file must contain to have a match; empty sets when nothing useful is required. */
export function requiredLiterals(parsed: ParsedRegex): RequiredLiterals {
  const cases = new Set<boolean>();
  collectCaseFlags(parsed.ast, cases);
  const caseInsensitive = cases.has(true);
  let sets = requiredSets(parsed.ast).map((set) => [...new Set(set)]);
  if (caseInsensitive) sets = sets.filter((set) => set.every((lit) => /^[\x20-\x7e\t]*$/.test(lit)));
  sets = sets.filter((set) => weakest(set) >= 2).sort((a, b) => weakest(b) - weakest(a)).slice(0, 2);
  return { sets, caseInsensitive };
}
