import { type OptionTable, parseOptions, type ParsedOption } from './commandOptions';
import { parseShellCommand, type WordExpansions } from './shellSplit';

/**
 * What a command line runs, for deny and ask rules: every simple command (also inside `$(…)`,
 * subshells, groups, loops and function bodies), with quotes and escapes removed, without the
 * assignments in front, by the basename of its path (`/bin/rm` → `rm`), and again for the command
 * a wrapper runs (`command`, `builtin`, `exec`, `env`, `nice`, `nohup`, `timeout`, `xargs`, `sudo`,
 * `doas`, `time`, `setsid`, `stdbuf`, `busybox`, `watch`, `find -exec`) or a shell is given as a
 * literal string (`bash -c '…'`, `eval '…'`, `trap '…'`, `alias x='…'`).
 *
 * Words whose value is known only at run time (`$X`, `$(…)`, globs, braces, `~`) become patterns
 * that stand for any text; a command whose *name* is not known that way, a shell given a string
 * decided at run time, `source`, or a line the parser could not read completely is undecided: it
 * may run anything.
 */
export type CommandsRun =
  | {
      readonly decided: true;
      /** The source text of each simple command (quotes as written), inner ones included. */
      readonly texts: readonly string[];
      /** Each command that runs, as a pattern: character codes, ANY_TEXT for text known only at run time, OPTIONAL_WORDS before it where a whole word may vanish. */
      readonly patterns: readonly (readonly number[])[];
    }
  | { readonly decided: false; readonly reason: string };

/** In a pattern: any text, blanks included (a word or words decided at run time). */
export const ANY_TEXT = -1;
/** In a pattern, right before ANY_TEXT: nothing at all, or a blank and then the ANY_TEXT (a word that expands to no words, or to some). */
export const OPTIONAL_WORDS = -2;

interface RunWord {
  readonly text: string;
  /** Passed as written: no expansion left. */
  readonly literal: boolean;
  /** A substitution or brace expansion: it may become any words, options included. */
  readonly splits: boolean;
  readonly pattern: readonly number[];
}

interface Collected {
  readonly texts: string[];
  readonly patterns: number[][];
}

/** Shells, wrappers and built-ins nested deeper than this are not followed. */
const MAX_DEPTH = 16;

export function commandsRun(line: string): CommandsRun {
  const collected: Collected = { texts: [], patterns: [] };
  const reason = analyzeLine(line, 0, collected);
  return reason !== undefined ? { decided: false, reason } : { decided: true, ...collected };
}

function codes(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i));
  return out;
}

function runWord(text: string, expansions: WordExpansions | undefined): RunWord {
  if (!expansions || (!expansions.substitution && !expansions.brace && !expansions.glob && !expansions.tilde)) {
    return { text, literal: true, splits: false, pattern: codes(text) };
  }
  const splits = expansions.substitution || expansions.brace;
  if (splits || expansions.tilde) return { text, literal: false, splits, pattern: [ANY_TEXT] };
  // A glob becomes names that start and end like it (or itself, when nothing matches).
  const first = text.search(/[*?[]/);
  let last = -1;
  for (let i = text.length - 1; i >= 0; i--) {
    if ('*?]'.includes(text[i]!)) {
      last = i;
      break;
    }
  }
  return { text, literal: false, splits: false, pattern: [...codes(text.slice(0, first)), ANY_TEXT, ...codes(text.slice(Math.max(last, first) + 1))] };
}

const ANY_WORD: RunWord = { text: '', literal: false, splits: true, pattern: [ANY_TEXT] };

function analyzeLine(line: string, depth: number, out: Collected): string | undefined {
  if (depth > MAX_DEPTH) return 'nests shells and wrappers too deeply to follow';
  const parsed = parseShellCommand(line);
  if (parsed.incomplete) return 'has parts that cannot be read as commands (arithmetic, case, [[ ]], array subscripts, or here-documents with substitutions)';
  for (const command of parsed.commands) {
    out.texts.push(command.text);
    const words = command.words.slice(command.assignments).map((w, k) => runWord(w, command.expansions[command.assignments + k]));
    if (words.length === 0) continue;
    const reason = analyzeWords(words, depth, out);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function analyzeWords(words: readonly RunWord[], depth: number, out: Collected): string | undefined {
  if (depth > MAX_DEPTH) return 'nests shells and wrappers too deeply to follow';
  const [first, ...args] = words;
  if (!first) return undefined;
  if (!first.literal) return `the command name "${first.text}" is decided only when it runs`;
  out.patterns.push(joinWords(words));
  const slash = first.text.lastIndexOf('/');
  const name = slash < 0 ? first.text : first.text.slice(slash + 1);
  if (name !== first.text) out.patterns.push(joinWords([runWord(name, undefined), ...args]));
  const runner = Object.prototype.hasOwnProperty.call(RUNNERS, name) ? RUNNERS[name] : undefined;
  return runner ? runner(args, depth + 1, out) : undefined;
}

function joinWords(words: readonly RunWord[]): number[] {
  const out: number[] = [];
  words.forEach((word, i) => {
    if (i > 0) out.push(...(word.pattern.length === 1 && word.pattern[0] === ANY_TEXT ? [OPTIONAL_WORDS] : [32]));
    out.push(...word.pattern);
  });
  return out;
}

type Runner = (args: readonly RunWord[], depth: number, out: Collected) => string | undefined;

/** The command that starts at `start`, when every word before it is known. */
function runsFrom(args: readonly RunWord[], start: number, depth: number, out: Collected, label: string): string | undefined {
  const unknown = args.slice(0, start).find((w) => !w.literal);
  if (unknown) return `${label} has an argument decided only when it runs ("${unknown.text}")`;
  return analyzeWords(args.slice(start), depth, out);
}

/** A program that takes options, then runs the command in its operands. */
function wrapper(
  label: string,
  table: OptionTable,
  options: {
    /** Operands to skip before the command (`timeout DURATION`), or a test for them (`env NAME=VALUE`). */
    skip?: number | ((operand: string) => boolean);
    /** Undecided or not running anything, from the options. */
    judge?: (options: readonly ParsedOption[]) => 'nothing' | string | undefined;
  } = {},
): Runner {
  return (args, depth, out) => {
    const parsed = parseOptions(
      args.map((a) => a.text),
      { ...table, stopAtOperand: true },
    );
    if (!parsed.ok) return `${label} ${parsed.error}`;
    const verdict = options.judge?.(parsed.options);
    if (verdict === 'nothing') return undefined;
    if (verdict !== undefined) return `${label} ${verdict}`;
    let start = parsed.firstOperand;
    if (typeof options.skip === 'number') start += options.skip;
    else if (options.skip) while (start < args.length && options.skip(args[start]!.text)) start++;
    if (start >= args.length) return args.slice(0, start).every((w) => w.literal) ? undefined : `${label} has an argument decided only when it runs`;
    return runsFrom(args, start, depth, out, label);
  };
}

const hasOption = (options: readonly ParsedOption[], ...names: string[]) => options.some((o) => names.includes(o.name));

function shell(label: string): Runner {
  return (args, depth, out) => {
    let i = 0;
    let command = false;
    for (; i < args.length; i++) {
      const arg = args[i]!;
      if (!arg.literal) return `${label} has an argument decided only when it runs ("${arg.text}")`;
      const text = arg.text;
      if (text === '--' || text === '-') {
        i++;
        break;
      }
      if (text.startsWith('--')) {
        if (text === '--rcfile' || text === '--init-file') i++;
        continue;
      }
      if (!/^[-+]./.test(text)) break;
      for (const letter of text.slice(1)) {
        if (letter === 'c') command = true;
        if (letter === 'o' || letter === 'O') i++;
      }
    }
    if (!command) return `${label} runs commands from a file or standard input`;
    const script = args[i];
    if (!script) return undefined;
    if (!script.literal) return `${label} -c runs a string decided only when it runs`;
    return analyzeLine(script.text, depth, out);
  };
}

/** Runs its literal arguments joined by blanks as a command line. */
function joinedLine(label: string, words: readonly RunWord[], depth: number, out: Collected): string | undefined {
  if (words.length === 0) return undefined;
  const unknown = words.find((w) => !w.literal);
  if (unknown) return `${label} runs a string decided only when it runs ("${unknown.text}")`;
  return analyzeLine(words.map((w) => w.text).join(' '), depth, out);
}

const undecided =
  (reason: string): Runner =>
  () =>
    reason;

const SHELLS = ['sh', 'bash', 'rbash', 'dash', 'ash', 'zsh', 'ksh', 'mksh', 'yash', 'posh', 'fish'];

const XARGS: OptionTable = {
  short: { '0': 'none', o: 'none', p: 'none', r: 'none', t: 'none', x: 'none', a: 'required', d: 'required', E: 'required', I: 'required', L: 'required', n: 'required', P: 'required', s: 'required', e: 'optional', i: 'optional', l: 'optional' },
  long: {
    null: 'none', 'arg-file': 'required', delimiter: 'required', eof: 'optional', replace: 'optional', 'max-lines': 'optional', 'max-args': 'required',
    'open-tty': 'none', interactive: 'none', 'max-procs': 'required', 'no-run-if-empty': 'none', 'max-chars': 'required', 'show-limits': 'none',
    verbose: 'none', exit: 'none', 'process-slot-var': 'required', help: 'none', version: 'none',
  },
}; // prettier-ignore

const RUNNERS: Readonly<Record<string, Runner>> = {
  command: wrapper('command', { short: { p: 'none', v: 'none', V: 'none' } }, { judge: (o) => (hasOption(o, '-v', '-V') ? 'nothing' : undefined) }),
  builtin: (args, depth, out) => runsFrom(args, args[0]?.text === '--' ? 1 : 0, depth, out, 'builtin'),
  exec: wrapper('exec', { short: { c: 'none', l: 'none', a: 'required' } }),
  env: wrapper(
    'env',
    {
      short: { i: 'none', '0': 'none', v: 'none', u: 'required', C: 'required', S: 'required' },
      long: {
        'ignore-environment': 'none', null: 'none', unset: 'required', chdir: 'required', 'split-string': 'required', debug: 'none',
        'block-signal': 'optional', 'default-signal': 'optional', 'ignore-signal': 'optional', 'list-signal-handling': 'none', help: 'none', version: 'none',
      },
    },
    { skip: (operand) => operand === '-' || operand.includes('='), judge: (o) => (hasOption(o, '-S', '--split-string') ? 'splits a string into the command it runs' : undefined) },
  ), // prettier-ignore
  nice: (args, depth, out) => {
    // `nice -5 cmd`: the old form of `-n 5`.
    const obsolete = args[0] !== undefined && /^-[0-9]+$/.test(args[0].text) ? 1 : 0;
    const rest = wrapper('nice', { short: { n: 'required' }, long: { adjustment: 'required', help: 'none', version: 'none' } })(args.slice(obsolete), depth, out);
    return rest;
  },
  nohup: (args, depth, out) => runsFrom(args, args[0]?.text === '--' ? 1 : 0, depth, out, 'nohup'),
  timeout: wrapper(
    'timeout',
    {
      short: { s: 'required', k: 'required', v: 'none', f: 'none', p: 'none' },
      long: { signal: 'required', 'kill-after': 'required', 'preserve-status': 'none', foreground: 'none', verbose: 'none', help: 'none', version: 'none' },
    },
    { skip: 1 },
  ),
  xargs: (args, depth, out) => {
    const parsed = parseOptions(
      args.map((a) => a.text),
      { ...XARGS, stopAtOperand: true },
    );
    if (!parsed.ok) return `xargs ${parsed.error}`;
    const unknown = args.slice(0, parsed.firstOperand).find((w) => !w.literal);
    if (unknown) return `xargs has an argument decided only when it runs ("${unknown.text}")`;
    const replace = parsed.options.find((o) => ['-I', '-i', '--replace'].includes(o.name));
    const placeholder = replace ? (replace.value ?? '{}') : undefined;
    const command = parsed.firstOperand < args.length ? args.slice(parsed.firstOperand) : [runWord('echo', undefined)];
    // The words read from standard input are known only when it runs.
    const inner = command.map((w) => (placeholder !== undefined && placeholder !== '' && w.text.includes(placeholder) ? ANY_WORD : w));
    return analyzeWords([...inner, ANY_WORD], depth, out);
  },
  sudo: wrapper(
    'sudo',
    {
      short: {
        A: 'none', b: 'none', E: 'none', H: 'none', K: 'none', k: 'none', l: 'none', n: 'none', P: 'none', S: 'none', s: 'none', V: 'none', v: 'none', i: 'none',
        u: 'required', g: 'required', C: 'required', D: 'required', p: 'required', r: 'required', t: 'required', T: 'required', U: 'required', R: 'required',
      },
      long: {
        askpass: 'none', background: 'none', bell: 'none', chdir: 'required', 'close-from': 'required', 'preserve-env': 'optional', group: 'required',
        'set-home': 'none', login: 'none', 'remove-timestamp': 'none', 'reset-timestamp': 'none', list: 'none', 'non-interactive': 'none',
        'preserve-groups': 'none', prompt: 'required', chroot: 'required', role: 'required', stdin: 'none', shell: 'none', type: 'required',
        'command-timeout': 'required', 'other-user': 'required', user: 'required', version: 'none', validate: 'none',
      },
    },
    { skip: (operand) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(operand) },
  ), // prettier-ignore
  doas: wrapper('doas', { short: { L: 'none', n: 'none', s: 'none', a: 'required', C: 'required', u: 'required' } }),
  time: wrapper('time', {
    short: { a: 'none', p: 'none', q: 'none', v: 'none', V: 'none', f: 'required', o: 'required' },
    long: { append: 'none', format: 'required', output: 'required', portability: 'none', quiet: 'none', verbose: 'none', version: 'none', help: 'none' },
  }),
  setsid: wrapper('setsid', { short: { c: 'none', f: 'none', w: 'none' }, long: { ctty: 'none', fork: 'none', wait: 'none', help: 'none', version: 'none' } }),
  stdbuf: wrapper('stdbuf', { short: { i: 'required', o: 'required', e: 'required' }, long: { input: 'required', output: 'required', error: 'required', help: 'none', version: 'none' } }),
  busybox: (args, depth, out) => runsFrom(args, 0, depth, out, 'busybox'),
  watch: (args, depth, out) => {
    const parsed = parseOptions(
      args.map((a) => a.text),
      {
        short: { b: 'none', c: 'none', C: 'none', e: 'none', g: 'none', p: 'none', r: 'none', t: 'none', w: 'none', x: 'none', d: 'optional', n: 'required', q: 'required', s: 'required' },
        long: {
          beep: 'none', color: 'none', 'no-color': 'none', differences: 'optional', errexit: 'none', chgexit: 'none', interval: 'required', precise: 'none',
          equexit: 'required', 'no-rerun': 'none', shotsdir: 'required', 'no-title': 'none', 'no-wrap': 'none', exec: 'none', help: 'none', version: 'none',
        },
        stopAtOperand: true,
      },
    ); // prettier-ignore
    if (!parsed.ok) return `watch ${parsed.error}`;
    if (hasOption(parsed.options, '-x', '--exec')) return runsFrom(args, parsed.firstOperand, depth, out, 'watch');
    // Without --exec, watch passes its arguments joined by blanks to `sh -c`.
    return joinedLine('watch', args.slice(parsed.firstOperand), depth, out);
  },
  find: (args, depth, out) => {
    // An expansion could become `-exec …`; globs and `~` become file names.
    const unknown = args.find((w) => w.splits);
    if (unknown) return `find has an argument decided only when it runs ("${unknown.text}")`;
    for (let i = 0; i < args.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.text)) continue;
      let end = i + 1;
      while (end < args.length && args[end]!.text !== ';' && !(args[end]!.text === '+' && args[end - 1]!.text === '{}')) end++;
      const inner = args.slice(i + 1, end).map((w) => (w.text.includes('{}') ? ANY_WORD : w));
      const reason = analyzeWords(inner, depth, out);
      if (reason !== undefined) return reason;
      i = end;
    }
    return undefined;
  },
  eval: (args, depth, out) => joinedLine('eval', args[0]?.text === '--' ? args.slice(1) : args, depth, out),
  trap: (args, depth, out) => {
    let i = 0;
    while (i < args.length && /^-[lpP]+$/.test(args[i]!.text)) i++;
    if (i > 0) return undefined; // listing traps
    if (args[i]?.text === '--') i++;
    const operands = args.slice(i);
    if (operands.length < 2) return undefined; // `trap SIG` resets it
    const action = operands[0]!;
    if (action.literal && (action.text === '' || action.text === '-')) return undefined;
    if (!action.literal) return `trap sets an action decided only when it runs ("${action.text}")`;
    return analyzeLine(action.text, depth, out);
  },
  alias: (args, depth, out) => {
    for (const arg of args) {
      if (!arg.text.includes('=')) continue;
      if (!arg.literal) return `alias defines a command decided only when it runs ("${arg.text}")`;
      const reason = analyzeLine(arg.text.slice(arg.text.indexOf('=') + 1), depth, out);
      if (reason !== undefined) return reason;
    }
    return undefined;
  },
  source: undecided('source runs the commands in a file'),
  '.': undecided('. runs the commands in a file'),
  let: undecided('let evaluates arithmetic, which can run commands through array subscripts'),
  hash: (args) => (args.some((a) => !a.literal || /^-[a-z]*p/.test(a.text)) ? 'hash -p makes a command name run another program' : undefined),
  enable: (args) => (args.some((a) => !a.literal || /^-[a-z]*f/.test(a.text)) ? 'enable -f loads a builtin from a shared object' : undefined),
  mapfile: (args) => (args.some((a) => !a.literal || /^-[a-z]*C/.test(a.text)) ? 'mapfile -C runs a callback' : undefined),
  readarray: (args) => (args.some((a) => !a.literal || /^-[a-z]*C/.test(a.text)) ? 'readarray -C runs a callback' : undefined),
  ...Object.fromEntries(SHELLS.map((name) => [name, shell(name)])),
};
