/**
 * A conservative reader of bash command lines. It lists the simple commands a line may run (joined
 * by `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, and those inside `$(…)`, backticks, `<(…)`,
 * `( … )`, `{ …; }`, `if`/`while`/`for` bodies and function bodies), their words after quote
 * removal (`'…'`, `"…"`, `$'…'` with its escapes, `$"…"`, backslashes) and their redirections. It
 * runs and expands nothing: for each word it says which expansions bash would still apply, and for
 * the line whether it is a plain list of simple commands (`opaque: false`) and whether it could
 * read every part that may run a command (`incomplete: false`). Callers refuse to reason about what
 * it reports as opaque or incomplete instead of guessing.
 */

export interface SimpleCommand {
  /** The words after quote removal, e.g. ["git", "log", "--oneline"] (assignments in front included). */
  readonly words: readonly string[];
  /** For each word (same order as `words`), what bash still does to it when the command runs. */
  readonly expansions: readonly WordExpansions[];
  /** How many leading words are variable assignments (`NAME=value`, `NAME+=value`): the command word is `words[assignments]`. */
  readonly assignments: number;
  /** The command's source text, trimmed, with runs of unquoted blanks collapsed. */
  readonly text: string;
  /** Redirection operators that appear in it, with their fd prefix (`>`, `>>`, `<`, `2>`, `2>&`, `&>`, `>|`, `<<`, …). */
  readonly redirects: readonly string[];
  /** The same redirections with their targets (which are not among `words`). */
  readonly redirections: readonly Redirection[];
  /** The operator that joins it to the next command (`&&`, `||`, `;`, `|`, `&`, newline) or ''. */
  readonly next: string;
}

/** The expansions bash applies to a word after parsing it; all false: the word is passed as written. */
export interface WordExpansions {
  /** `$NAME`, `${…}`, `$(…)`, backticks, `<(…)`, `>(…)` or arithmetic outside single quotes: the value is known only at run time (unquoted, it may become several words or none). */
  readonly substitution: boolean;
  /** Unquoted `{a,b}` or `{1..3}`: it becomes several words. */
  readonly brace: boolean;
  /** Unquoted `*`, `?` or `[…]`: it becomes the names of matching files. */
  readonly glob: boolean;
  /** An unquoted `~` at the start or after `=` or `:`: it becomes a home directory. */
  readonly tilde: boolean;
}

export interface Redirection {
  /** The operator without its fd number: `>`, `>>`, `>|`, `>&`, `&>`, `&>>`, `<`, `<&`, `<>`, `<<`, `<<-`, `<<<`. */
  readonly op: string;
  /** The fd written before the operator (`2` in `2>/dev/null`, `{fd}` in `{fd}>file`), if any. */
  readonly fd?: string;
  /** The word after the operator (quotes removed): a file, an fd number (`1` in `2>&1`), `-`, or a here-doc delimiter. */
  readonly target: string;
}

/** Targets an output redirection may name without changing a file. */
const HARMLESS_OUTPUT_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/**
 * Whether a redirection may change a file: any output (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<>`)
 * except to /dev/null, the standard streams or another fd (`2>&1`, `>&-`). Input (`<`, `<<<`,
 * here-documents, `<&3`) does not.
 */
export function redirectionWritesFile(r: Redirection): boolean {
  if (r.op === '<' || r.op === '<<<' || r.op === '<<' || r.op === '<<-') return false;
  if ((r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(r.target)) return false;
  if (r.op === '<&') return true;
  return !(['>', '>>', '>|', '&>', '&>>', '>&'].includes(r.op) && HARMLESS_OUTPUT_TARGETS.has(r.target));
}

export interface ParsedShellCommand {
  /**
   * Every simple command the line may run, in the order they start: the commands inside a
   * substitution come before the command whose word holds it. `for`/`select` headers and function
   * names are not commands; compound-command keywords (`if`, `then`, `do`, `{`, `!`, `time`, …) are
   * left out of the commands they start.
   */
  readonly commands: readonly SimpleCommand[];
  /**
   * Anything beyond simple commands joined by operators: `$(…)`, backticks, `<(…)`, `>(…)`,
   * subshells, groups, compound commands and function definitions, here-documents, a syntax error
   * or unbalanced quotes. Set whenever `incomplete` is.
   */
  readonly opaque: boolean;
  /**
   * Some part could not be read as commands, so `commands` may miss some that run: arithmetic
   * (`$((…))`, `((…))`, `$[…]`), `case`, `[[ … ]]`, `coproc`, array assignments and subscripts
   * (bash evaluates `a[$(cmd)]` subscripts), `${…}` forms that evaluate arithmetic or indirection, a
   * here-document body with substitutions, or nesting deeper than 32 levels.
   */
  readonly incomplete: boolean;
}

export function parseShellCommand(input: string): ParsedShellCommand {
  const parser = new ShellParser(input, 0);
  parser.parseList(false);
  return { commands: parser.commands, opaque: parser.opaque || parser.incomplete, incomplete: parser.incomplete };
}

/** Nesting (substitutions, subshells, backticks) deeper than this is not followed: the parse is incomplete. */
const MAX_NESTING = 32;

/** Keywords that start a compound command or a part of one; the command after them is an ordinary command. */
const OPENING_KEYWORDS = new Set(['!', '{', 'if', 'then', 'elif', 'else', 'while', 'until', 'do', 'time']);
/** Keywords that end a compound command: only redirections and operators may follow. */
const CLOSING_KEYWORDS = new Set(['}', 'fi', 'done', 'esac']);
/** Keywords of constructs this reader does not follow (patterns, conditional expressions, coprocesses). */
const UNFOLLOWED_KEYWORDS = new Set(['case', 'coproc', '[[', ']]']);

const CONTROL_OPERATORS = ['&&', '||', ';;&', ';;', ';&', ';', '|&', '|', '&'];
const REDIRECT_OPERATORS = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<&', '<>', '>', '<'];

/** `NAME=`, `NAME+=` or `NAME[…]=` at the start of a word's source. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
/**
 * A subscript holding a command substitution, e.g. `a[$(id)]`: builtins that take variable names
 * (`test -v`, `printf -v`, `unset`, `declare`, `read`) and arithmetic on such a value run it.
 * (A `[` not closed before a `$(` or a backtick, in one pass.)
 */
function hasSubscriptWithSubstitution(value: string): boolean {
  let open = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '[') open = true;
    else if (c === ']') open = false;
    else if (open && (c === '`' || (c === '$' && value[i + 1] === '('))) return true;
  }
  return false;
}

interface Word {
  value: string;
  /** The source of the word, without line continuations. */
  raw: string;
  expansions: { substitution: boolean; brace: boolean; glob: boolean; tilde: boolean };
  /** Unquoted `[ ] { } , .` with their offsets in `value`, to tell globs and brace expansions. */
  marks: { c: string; at: number }[];
  /** The previous character when it was an unquoted literal one (a tilde after `=` or `:` expands), '' after quoted text. */
  previous: string;
}

interface CommandBuilder {
  words: string[];
  expansions: WordExpansions[];
  assignments: number;
  redirects: string[];
  redirections: Redirection[];
  text: string;
  /** A blank separated the last token from what comes next. */
  blank: boolean;
  /** A keyword, subshell or function definition was part of it (an operator after it is not a syntax error). */
  keyword: boolean;
  /** A `for`/`select` header: its words are not a command. */
  header: boolean;
  /** The next word is the name after `function`. */
  functionName: boolean;
  /** `time` was just read: a `-p` after it is its option. */
  afterTime: boolean;
  /** A subshell or compound command closed: a word after it is a syntax error. */
  afterCompound: boolean;
}

function newCommand(): CommandBuilder {
  return {
    words: [],
    expansions: [],
    assignments: 0,
    redirects: [],
    redirections: [],
    text: '',
    blank: false,
    keyword: false,
    header: false,
    functionName: false,
    afterTime: false,
    afterCompound: false,
  };
}

function newWord(): Word {
  return { value: '', raw: '', expansions: { substitution: false, brace: false, glob: false, tilde: false }, marks: [], previous: '' };
}

class ShellParser {
  readonly commands: SimpleCommand[] = [];
  opaque = false;
  incomplete = false;
  private i = 0;
  private nesting: number;
  private readonly heredocs: { delimiter: string; quoted: boolean; stripTabs: boolean }[] = [];

  constructor(
    private readonly input: string,
    nesting: number,
  ) {
    this.nesting = nesting;
  }

  /** Reads commands up to the end, or (nested) up to and including the `)` that closes the list. */
  parseList(nested: boolean): void {
    const input = this.input;
    if (nested && ++this.nesting > MAX_NESTING) {
      this.incomplete = true;
      this.i = input.length;
      return;
    }
    let cmd = newCommand();
    let pendingOperator: string | undefined;
    const finish = (op: string) => {
      const empty = cmd.words.length === 0 && cmd.redirections.length === 0;
      if (!empty && !cmd.header) {
        this.commands.push({
          words: cmd.words,
          expansions: cmd.expansions,
          assignments: cmd.assignments,
          text: cmd.text.trim(),
          redirects: cmd.redirects,
          redirections: cmd.redirections,
          next: op,
        });
      }
      if (empty && !cmd.keyword && !cmd.header) {
        // An operator with no command before it, or `ls &&` at the end, is a syntax error.
        if (op !== '' && op !== '\n') this.opaque = true;
        else if (op === '' && pendingOperator !== undefined) this.opaque = true;
        if (op === '\n') {
          cmd = newCommand();
          return; // a newline after `&&` or `|` keeps waiting for the command
        }
      }
      pendingOperator = ['&&', '||', '|', '|&'].includes(op) ? op : undefined;
      cmd = newCommand();
    };

    for (;;) {
      while (input[this.i] === ' ' || input[this.i] === '\t') {
        this.i++;
        cmd.blank = true;
      }
      if (this.i >= input.length) {
        if (nested) this.opaque = true; // unterminated `(` or `$(`
        finish('');
        if (nested) this.nesting--;
        return;
      }
      const c = input[this.i]!;
      if (c === '\\' && input[this.i + 1] === '\n') {
        // Between the characters of an operator (`&\<newline>&`), bash joins them: do not guess.
        if ('&|;<>'.includes(input[this.i - 1] ?? ' ') && '&|;<>'.includes(input[this.i + 2] ?? ' ')) {
          this.opaque = true;
          this.incomplete = true;
        }
        this.i += 2;
        continue;
      }
      if (c === '#') {
        // At a word boundary: a comment runs to the end of the line.
        const end = input.indexOf('\n', this.i);
        this.i = end < 0 ? input.length : end;
        continue;
      }
      if (c === '\n') {
        finish('\n');
        this.i++;
        this.readHeredocBodies();
        continue;
      }
      if (c === ')') {
        this.i++;
        if (nested) {
          finish('');
          this.nesting--;
          return;
        }
        this.opaque = true; // a `)` without its `(`
        continue;
      }
      if (c === '(') {
        this.openParenthesis(cmd);
        continue;
      }
      const redirect = matchRedirect(input, this.i);
      if (redirect !== undefined) {
        this.redirection(cmd, redirect, undefined);
        continue;
      }
      const op = CONTROL_OPERATORS.find((candidate) => input.startsWith(candidate, this.i));
      if (op !== undefined) {
        if (op.startsWith(';;') || op === ';&') this.opaque = true; // `case` terminators outside `case`
        finish(op);
        this.i += op.length;
        continue;
      }
      // Where a command word may be, bash reads `name[…]` to its `]` as one word, blanks included
      // (an array element assignment, whose subscript is arithmetic).
      if (cmd.words.length === cmd.assignments && !cmd.header && /^[A-Za-z_][A-Za-z0-9_]*\[/.test(input.slice(this.i, this.i + 256))) this.incomplete = true;
      const start = this.i;
      const word = this.readWord();
      if (this.i === start) {
        // Not reachable by the cases above; never loop without reading.
        this.opaque = true;
        this.i++;
        continue;
      }
      const next = input[this.i];
      if ((next === '<' || next === '>') && /^([0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})$/.test(word.raw)) {
        // `2>file`, `{fd}>file`: the word right before the operator names the fd.
        const fdRedirect = matchRedirect(input, this.i);
        if (fdRedirect !== undefined) {
          this.redirection(cmd, fdRedirect, word.raw);
          continue;
        }
      }
      this.addWord(cmd, word);
    }
  }

  private appendText(cmd: CommandBuilder, piece: string, blank = cmd.blank): void {
    if (cmd.text !== '' && blank) cmd.text += ' ';
    cmd.text += piece;
    cmd.blank = false;
  }

  private openParenthesis(cmd: CommandBuilder): void {
    const input = this.input;
    this.opaque = true;
    if (cmd.words.length === 0 && cmd.redirections.length === 0 && !cmd.header) {
      // `( list )` at the start of a command; `((` is an arithmetic command.
      if (input[this.i + 1] === '(') this.incomplete = true;
      this.i++;
      this.parseList(true);
      cmd.keyword = true;
      cmd.afterCompound = true;
      return;
    }
    let after = this.i + 1;
    while (input[after] === ' ' || input[after] === '\t') after++;
    if (cmd.words.length === 1 && cmd.assignments === 0 && input[after] === ')') {
      // `name ( )`: a function definition; its body follows as a compound command.
      this.i = after + 1;
      cmd.words = [];
      cmd.expansions = [];
      cmd.text = '';
      cmd.keyword = true;
      return;
    }
    // An array assignment `a=(…)` (its subscripts are arithmetic) or a syntax error: read what is
    // inside as commands, so nothing in it is lost.
    this.incomplete = true;
    this.i++;
    this.parseList(true);
  }

  private redirection(cmd: CommandBuilder, op: string, fd: string | undefined): void {
    const input = this.input;
    const blank = cmd.blank;
    this.i += op.length;
    cmd.redirects.push((fd ?? '') + op);
    let text = (fd ?? '') + op;
    cmd.blank = false;
    while (input[this.i] === ' ' || input[this.i] === '\t' || (input[this.i] === '\\' && input[this.i + 1] === '\n')) {
      if (input[this.i] === '\\') this.i++;
      this.i++;
      cmd.blank = true;
    }
    const c = input[this.i];
    if (c === undefined || '\n;&|()<>#'.includes(c)) {
      this.opaque = true; // a redirection without its target is a syntax error
      this.appendText(cmd, text, blank);
      return;
    }
    const targetBlank = cmd.blank;
    const target = this.readWord();
    // `> 2>f`, `> {v}>f`: bash reads `2>` as the next operator, so the first has no target.
    if ((input[this.i] === '<' || input[this.i] === '>') && input[this.i + 1] !== '(' && /^([0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})$/.test(target.raw)) {
      this.opaque = true;
    }
    text += (targetBlank ? ' ' : '') + target.raw;
    this.appendText(cmd, text, blank);
    cmd.redirections.push(fd !== undefined ? { op, fd, target: target.value } : { op, target: target.value });
    if (op === '<<' || op === '<<-') {
      this.opaque = true;
      this.heredocs.push({ delimiter: target.value, quoted: target.raw !== target.value, stripTabs: op === '<<-' });
    }
  }

  private addWord(cmd: CommandBuilder, word: Word): void {
    if (cmd.afterCompound) this.opaque = true; // `(ls) x` is a syntax error
    if (cmd.functionName) {
      cmd.functionName = false;
      cmd.keyword = true;
      return;
    }
    if (cmd.afterTime && word.raw === '-p') {
      cmd.afterTime = false;
      return;
    }
    cmd.afterTime = false;
    if (!cmd.header && cmd.words.length === 0 && cmd.redirections.length === 0 && word.raw === word.value) {
      const keyword = word.value;
      if (OPENING_KEYWORDS.has(keyword) || CLOSING_KEYWORDS.has(keyword) || UNFOLLOWED_KEYWORDS.has(keyword) || keyword === 'for' || keyword === 'select' || keyword === 'function') {
        this.opaque = true;
        cmd.keyword = true;
        cmd.text = '';
        cmd.blank = false;
        if (CLOSING_KEYWORDS.has(keyword)) cmd.afterCompound = true;
        if (UNFOLLOWED_KEYWORDS.has(keyword)) this.incomplete = true;
        if (keyword === 'for' || keyword === 'select') cmd.header = true;
        if (keyword === 'function') cmd.functionName = true;
        if (keyword === 'time') cmd.afterTime = true;
        return;
      }
    }
    this.appendText(cmd, word.raw);
    if (cmd.header) return;
    if (cmd.words.length === cmd.assignments && ASSIGNMENT.test(word.raw)) {
      if (/^[A-Za-z_][A-Za-z0-9_]*\[/.test(word.raw)) this.incomplete = true; // `a[i]=v`: the subscript is arithmetic
      cmd.assignments++;
    }
    if (hasSubscriptWithSubstitution(word.value)) this.incomplete = true;
    cmd.words.push(word.value);
    cmd.expansions.push(word.expansions);
  }

  /** Reads one word starting at a character that is not a blank or an operator. */
  private readWord(): Word {
    const input = this.input;
    const word = newWord();
    while (this.i < input.length) {
      const c = input[this.i]!;
      if (' \t\n;&|()'.includes(c)) break;
      if (c === '<' || c === '>') {
        if (input[this.i + 1] !== '(') break;
        // Process substitution `<(…)`, `>(…)`: part of the word.
        const start = this.i;
        this.opaque = true;
        word.expansions.substitution = true;
        this.i += 2;
        this.parseList(true);
        this.appendSource(word, start);
        continue;
      }
      if (c === '\\') {
        const next = input[this.i + 1];
        if (next === '\n') {
          this.i += 2; // a line continuation, also inside a word
          continue;
        }
        if (next === undefined) {
          // A backslash at the very end stays.
          word.value += c;
          word.raw += c;
          this.i++;
          continue;
        }
        word.value += next;
        word.raw += c + next;
        word.previous = '';
        this.i += 2;
        continue;
      }
      if (c === "'") {
        const end = input.indexOf("'", this.i + 1);
        const stop = end < 0 ? input.length : end + 1;
        if (end < 0) this.opaque = true;
        word.value += input.slice(this.i + 1, end < 0 ? input.length : end);
        word.raw += input.slice(this.i, stop);
        word.previous = '';
        this.i = stop;
        continue;
      }
      if (c === '"') {
        this.readDoubleQuoted(word);
        continue;
      }
      if (c === '`') {
        this.readBackticks(word, false);
        continue;
      }
      if (c === '$') {
        this.readDollar(word, false);
        continue;
      }
      if (c === '~' && (word.raw === '' || word.previous === '=' || word.previous === ':')) word.expansions.tilde = true;
      if (c === '*' || c === '?') word.expansions.glob = true;
      if ('[]{},.'.includes(c)) word.marks.push({ c, at: word.value.length });
      word.value += c;
      word.raw += c;
      word.previous = c;
      this.i++;
    }
    // One pass (a word may be long): a `[` with a `]` after it is a glob; a `{` with a `,` or `..`
    // and then a `}` after it is (at most) a brace expansion.
    let bracket = false;
    let brace = false;
    let separated = false;
    word.marks.forEach((m, k) => {
      if (m.c === '[') bracket = true;
      else if (m.c === ']' && bracket) word.expansions.glob = true;
      else if (m.c === '{') brace = true;
      else if (brace && (m.c === ',' || (m.c === '.' && word.marks[k + 1]?.c === '.' && word.marks[k + 1]!.at === m.at + 1))) separated = true;
      else if (m.c === '}' && separated) word.expansions.brace = true;
    });
    return word;
  }

  /** Appends the source from `start` to the current position to the word, as written. */
  private appendSource(word: Word, start: number): void {
    const source = this.input.slice(start, this.i);
    word.value += source;
    word.raw += source;
    word.previous = '';
  }

  private readDoubleQuoted(word: Word): void {
    const input = this.input;
    word.raw += '"';
    this.i++;
    while (this.i < input.length && input[this.i] !== '"') {
      const c = input[this.i]!;
      if (c === '\\') {
        const next = input[this.i + 1];
        if (next === '\n') {
          this.i += 2;
          continue;
        }
        if (next !== undefined && '$`"\\'.includes(next)) {
          word.value += next;
          word.raw += c + next;
          this.i += 2;
          continue;
        }
        word.value += c;
        word.raw += c;
        this.i++;
        continue;
      }
      if (c === '`') {
        this.readBackticks(word, true);
        continue;
      }
      if (c === '$') {
        this.readDollar(word, true);
        continue;
      }
      word.value += c;
      word.raw += c;
      this.i++;
    }
    if (this.i >= input.length) {
      this.opaque = true; // unterminated
    } else {
      word.raw += '"';
      this.i++;
    }
    word.previous = '';
  }

  private readBackticks(word: Word, inDoubleQuotes: boolean): void {
    const input = this.input;
    const start = this.i;
    this.i++;
    let inner = '';
    while (this.i < input.length && input[this.i] !== '`') {
      const next = input[this.i + 1];
      if (input[this.i] === '\\' && next !== undefined && ('$`\\'.includes(next) || (inDoubleQuotes && next === '"'))) {
        inner += next;
        this.i += 2;
        continue;
      }
      inner += input[this.i];
      this.i++;
    }
    if (this.i < input.length) this.i++;
    else this.opaque = true; // unterminated
    this.opaque = true;
    word.expansions.substitution = true;
    if (this.nesting + 1 > MAX_NESTING) {
      this.incomplete = true;
    } else {
      const nested = new ShellParser(inner, this.nesting + 1);
      nested.parseList(false);
      this.commands.push(...nested.commands);
      if (nested.incomplete) this.incomplete = true;
    }
    this.appendSource(word, start);
  }

  /** `$…` at the current position: `$'…'`, `$"…"` (outside double quotes), `$(…)`, `${…}`, `$[…]`, `$NAME`, or a plain `$`. */
  private readDollar(word: Word, inDoubleQuotes: boolean): void {
    const input = this.input;
    const start = this.i;
    const next = input[this.i + 1];
    // bash removes line continuations before it reads `$…`; do not guess what `$\<newline>x` became.
    if (next === '\\' && input[this.i + 2] === '\n') {
      this.opaque = true;
      this.incomplete = true;
    }
    if (!inDoubleQuotes && next === "'") {
      let end = this.i + 2;
      while (end < input.length && input[end] !== "'") end += input[end] === '\\' ? 2 : 1;
      const body = input.slice(this.i + 2, Math.min(end, input.length));
      if (end >= input.length) this.opaque = true; // unterminated
      this.i = Math.min(end + 1, input.length);
      word.value += decodeAnsiC(body);
      word.raw += input.slice(start, this.i);
      word.previous = '';
      return;
    }
    if (!inDoubleQuotes && next === '"') {
      // `$"…"` is translated by the locale's message catalogue; without one it is the string itself.
      word.raw += '$';
      this.i++;
      this.readDoubleQuoted(word);
      return;
    }
    if (next === '(') {
      this.opaque = true;
      word.expansions.substitution = true;
      if (input[this.i + 2] === '(') this.incomplete = true; // `$((…))` arithmetic
      this.i += 2;
      this.parseList(true);
      this.appendSource(word, start);
      return;
    }
    if (next === '{') {
      word.expansions.substitution = true;
      this.i += 2;
      this.readParameterExpansion(inDoubleQuotes);
      this.appendSource(word, start);
      return;
    }
    if (next === '[') {
      // `$[…]`: old arithmetic.
      this.opaque = true;
      this.incomplete = true;
      word.expansions.substitution = true;
      const end = input.indexOf(']', this.i);
      this.i = end < 0 ? input.length : end + 1;
      this.appendSource(word, start);
      return;
    }
    const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(input.slice(this.i + 1, this.i + 256));
    if (name) {
      word.expansions.substitution = true;
      this.i += 1 + name[0].length;
      this.appendSource(word, start);
      return;
    }
    word.value += '$';
    word.raw += '$';
    word.previous = '$';
    this.i++;
  }

  /** After `${`: `${NAME}` and the like are plain; other forms are followed to their `}`. */
  private readParameterExpansion(inDoubleQuotes: boolean): void {
    const input = this.input;
    if (this.nesting + 1 > MAX_NESTING) {
      this.incomplete = true;
      this.i = input.length;
      return;
    }
    this.nesting++;
    try {
      this.readParameterBody(inDoubleQuotes);
    } finally {
      this.nesting--;
    }
  }

  private readParameterBody(inDoubleQuotes: boolean): void {
    const input = this.input;
    const simple = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])\}/.exec(input.slice(this.i, this.i + 256));
    if (simple) {
      this.i += simple[0].length;
      return;
    }
    this.opaque = true;
    // Indirection (`${!x}`), subscripts (`${a[i]}`) and substrings (`${x:1}`) evaluate arithmetic,
    // which runs commands through subscripts; the other operators only take words.
    const operand = /^#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(input.slice(this.i, this.i + 256));
    const after = operand ? input.slice(this.i + operand[0].length, this.i + operand[0].length + 2) : '';
    const indirect = input[this.i] === '!' && input[this.i + 1] !== '}';
    if (!operand || indirect || after.startsWith('[') || (after.startsWith(':') && !/^:[-=+?]/.test(after))) this.incomplete = true;
    const scratch = newWord();
    while (this.i < input.length) {
      const c = input[this.i]!;
      if (c === '}') {
        this.i++;
        return;
      }
      if (c === '\\') {
        this.i += 2;
        continue;
      }
      if (c === "'") {
        // Inside double quotes a single quote in `${…}` is sometimes literal; do not guess.
        if (inDoubleQuotes) this.incomplete = true;
        const end = input.indexOf("'", this.i + 1);
        this.i = end < 0 ? input.length : end + 1;
        continue;
      }
      if (c === '"') {
        this.readDoubleQuoted(scratch);
        continue;
      }
      if (c === '`') {
        this.readBackticks(scratch, inDoubleQuotes);
        continue;
      }
      if (c === '$') {
        this.readDollar(scratch, inDoubleQuotes);
        continue;
      }
      if (c === '{') this.incomplete = true; // nested braces: where it ends is not obvious
      this.i++;
    }
    this.opaque = true; // unterminated
  }

  /** After a newline: the bodies of the here-documents started on the line before. */
  private readHeredocBodies(): void {
    const input = this.input;
    for (const heredoc of this.heredocs.splice(0)) {
      let body = '';
      while (this.i < input.length) {
        const newline = input.indexOf('\n', this.i);
        const line = input.slice(this.i, newline < 0 ? input.length : newline);
        this.i = newline < 0 ? input.length : newline + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
        body += line + '\n';
      }
      // An unquoted delimiter makes the body subject to substitutions, which run commands.
      if (!heredoc.quoted && /`|\$[([]/.test(body)) this.incomplete = true;
    }
  }
}

function matchRedirect(input: string, i: number): string | undefined {
  const op = REDIRECT_OPERATORS.find((candidate) => input.startsWith(candidate, i));
  // `<(…)` and `>(…)` are process substitutions, not redirections.
  if ((op === '<' || op === '>') && input[i + 1] === '(') return undefined;
  return op;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/**
 * The value of a `$'…'` body, by bash's rules: `\n`-style escapes, `\nnn` (one to three octal
 * digits), `\xHH` (one or two hex digits), `\uHHHH`, `\UHHHHHHHH`, `\cX` (a control character);
 * an unknown escape keeps its backslash, and a NUL ends the string.
 */
export function decodeAnsiC(body: string): string {
  let out = '';
  let i = 0;
  const digits = (pattern: RegExp, max: number): string => {
    let taken = '';
    while (taken.length < max && i < body.length && pattern.test(body[i]!)) taken += body[i++];
    return taken;
  };
  while (i < body.length) {
    const c = body[i++]!;
    if (c !== '\\' || i >= body.length) {
      out += c;
      continue;
    }
    const e = body[i++]!;
    let code: number | undefined;
    if (SIMPLE_ESCAPES[e] !== undefined) {
      out += SIMPLE_ESCAPES[e];
      continue;
    } else if (/[0-7]/.test(e)) {
      i--;
      code = parseInt(digits(/[0-7]/, 3), 8) & 0xff;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const hex = digits(/[0-9A-Fa-f]/, e === 'x' ? 2 : e === 'u' ? 4 : 8);
      if (hex === '') {
        out += '\\' + e;
        continue;
      }
      code = parseInt(hex, 16);
      if (code > 0x10ffff) code = 0xfffd;
    } else if (e === 'c') {
      if (i >= body.length) {
        out += '\\c';
        continue;
      }
      const x = body[i++]!;
      if (x === '\\' && body[i] === '\\') i++;
      code = x === '?' ? 0x7f : x.toUpperCase().charCodeAt(0) & 0x1f;
    } else {
      out += '\\' + e;
      continue;
    }
    if (code === 0) break; // bash's strings end at a NUL
    out += String.fromCodePoint(code);
  }
  return out;
}
