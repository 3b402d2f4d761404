/**
 * A small, conservative reader of shell command lines: enough to split a command into its simple
 * commands (at `&&`, `||`, `;`, `|`, `&` and newlines), their words, and their redirections. It
 * does not run or expand anything. Anything it cannot follow (command substitution, process
 * substitution, here-documents, unbalanced quotes) is reported, so callers can refuse to reason
 * about the command instead of guessing.
 */

export interface SimpleCommand {
  /** The words after quote removal, e.g. ["git", "log", "--oneline"]. */
  readonly words: readonly string[];
  /** The command's source text, trimmed, with runs of unquoted blanks collapsed. */
  readonly text: string;
  /** Redirection operators that appear in it, with their fd prefix (`>`, `>>`, `<`, `2>`, `2>&`, `&>`, `>|`, `<<`, …). */
  readonly redirects: readonly string[];
  /** The same redirections with their targets (which are not among `words`). */
  readonly redirections: readonly Redirection[];
  /** The operator that joins it to the next command (`&&`, `||`, `;`, `|`, `&`, newline) or ''. */
  readonly next: string;
}

export interface Redirection {
  /** The operator without its fd number: `>`, `>>`, `>|`, `>&`, `&>`, `&>>`, `<`, `<&`, `<>`, `<<`, `<<-`, `<<<`. */
  readonly op: string;
  /** The fd number written before the operator (`2` in `2>/dev/null`), if any. */
  readonly fd?: string;
  /** The word after the operator (quotes removed): a file, an fd number (`1` in `2>&1`), `-`, or a here-doc delimiter. */
  readonly target: string;
}

export interface ParsedShellCommand {
  readonly commands: readonly SimpleCommand[];
  /** `$(…)`, backticks, `<(…)`, `>(…)`, here-docs, unbalanced quotes or subshell groups. */
  readonly opaque: boolean;
}

const CONTROL_OPERATORS = ['&&', '||', ';;', ';', '|&', '|', '&', '\n'];

export function parseShellCommand(input: string): ParsedShellCommand {
  const commands: SimpleCommand[] = [];
  let opaque = false;
  let words: string[] = [];
  let redirects: string[] = [];
  let redirections: Redirection[] = [];
  let pendingRedirect: { op: string; fd?: string } | undefined;
  let word = '';
  let inWord = false;
  let text = '';
  let i = 0;

  const endWord = () => {
    if (inWord) {
      if (pendingRedirect) {
        redirections.push({ ...pendingRedirect, target: word });
        pendingRedirect = undefined;
      } else {
        words.push(word);
      }
    }
    word = '';
    inWord = false;
  };
  const endCommand = (op: string) => {
    endWord();
    if (pendingRedirect) {
      // A redirection without a target is a syntax error.
      opaque = true;
      pendingRedirect = undefined;
    }
    const trimmed = text.trim();
    if (words.length > 0 || redirects.length > 0) commands.push({ words, text: trimmed, redirects, redirections, next: op });
    else if (op !== '' && op !== '\n') opaque = true; // an operator with no command before it
    words = [];
    redirects = [];
    redirections = [];
    text = '';
  };

  while (i < input.length) {
    const c = input[i]!;
    if (c === '\\') {
      if (input[i + 1] === '\n') {
        i += 2;
        continue;
      }
      word += input[i + 1] ?? '';
      inWord = true;
      text += input.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = input.indexOf("'", i + 1);
      if (end < 0) {
        opaque = true;
        word += input.slice(i + 1);
        text += input.slice(i);
        i = input.length;
        inWord = true;
        continue;
      }
      word += input.slice(i + 1, end);
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = '';
      while (j < input.length && input[j] !== '"') {
        if (input[j] === '\\' && j + 1 < input.length && '"\\$`\n'.includes(input[j + 1]!)) {
          value += input[j + 1];
          j += 2;
          continue;
        }
        if (input[j] === '`' || (input[j] === '$' && input[j + 1] === '(')) opaque = true;
        value += input[j];
        j++;
      }
      if (j >= input.length) opaque = true;
      word += value;
      text += input.slice(i, j + 1);
      inWord = true;
      i = j + 1;
      continue;
    }
    if (c === '`' || (c === '$' && input[i + 1] === '(')) opaque = true;
    if ((c === '<' || c === '>') && input[i + 1] === '(') {
      // Process substitution: not a redirection, and not something to reason about.
      opaque = true;
      word += c;
      inWord = true;
      text += c;
      i++;
      continue;
    }
    if (c === '#' && !inWord) {
      // A comment runs to the end of the line.
      const end = input.indexOf('\n', i);
      i = end < 0 ? input.length : end;
      continue;
    }
    if ((c === '(' || c === ')') && !inWord) opaque = true;
    // `{ …; }` is a group only as a word of its own; `{}` (find) and `{a,b}` (brace expansion) are words.
    if ((c === '{' || c === '}') && !inWord && /^[\s;&|]?$/.test(input[i + 1] ?? '')) opaque = true;
    const op = CONTROL_OPERATORS.find((candidate) => input.startsWith(candidate, i));
    if (op !== undefined && !(op === '&' && input[i + 1] === '>') && !(op === '&' && input[i - 1] === '>')) {
      endCommand(op);
      i += op.length;
      continue;
    }
    const redirect = matchRedirect(input, i, inWord ? word : '');
    if (redirect) {
      const fd = redirect.fdPrefix ? word : undefined;
      if (redirect.fdPrefix) {
        word = '';
        inWord = false;
      } else {
        endWord();
      }
      if (pendingRedirect) opaque = true; // two operators in a row, e.g. `> >`
      if (redirect.bareOp === '<<' || redirect.bareOp === '<<-') opaque = true;
      redirects.push(redirect.op);
      pendingRedirect = fd !== undefined ? { op: redirect.bareOp, fd } : { op: redirect.bareOp };
      text += input.slice(i, i + redirect.length);
      i += redirect.length;
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      // Collapse unquoted blanks; quoted text keeps its spacing.
      if (!text.endsWith(' ')) text += ' ';
      i++;
      continue;
    }
    word += c;
    inWord = true;
    text += c;
    i++;
  }
  endCommand('');
  return { commands, opaque };
}

function matchRedirect(
  input: string,
  i: number,
  currentWord: string,
): { op: string; bareOp: string; length: number; fdPrefix: boolean } | undefined {
  const ops = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<&', '<>', '>', '<'];
  for (const op of ops) {
    if (input.startsWith(op, i)) {
      // `2>` and `2>&1`: a word made only of digits right before the operator is its fd number.
      const fdPrefix = /^[0-9]+$/.test(currentWord);
      return { op: fdPrefix ? currentWord + op : op, bareOp: op, length: op.length, fdPrefix };
    }
  }
  return undefined;
}
