import * as nodePath from 'node:path';
import { parseShellCommand, type Redirection, type SimpleCommand } from '../../../tool/shellSplit';

/**
 * Which shell commands are read-only: they only read files and print, so Bash can declare a
 * recursive read of its working directory instead of `all` and run beside other reads.
 *
 * Pure and conservative: anything it cannot follow is not read-only. A command line is read-only
 * when every simple command in it (joined by `&&`, `||`, `;`, `|`, `&` or newlines)
 *
 * - is in READ_ONLY_COMMANDS and passes that command's argument check (no `find -delete`, no
 *   `sed -i`, no `sort -o`, `git` only with listing subcommands, …);
 * - has no variable assignment in front (`X=1 cmd`) and a plain command name (no `./x`, no `$X`);
 * - redirects output only to `/dev/null`, `/dev/stdout`, `/dev/stderr` or another fd (`2>&1`);
 *   input redirection (`< file`) is fine;
 *
 * and the line has no command substitution, process substitution, subshell, group or here-document.
 */
export type CommandClassification =
  | {
      readonly readOnly: true;
      /**
       * Arguments that may name files, as written (relative ones joined to any `cd` before them in
       * the line). The caller resolves them against the working directory to declare reads outside
       * it and to refuse files that hold secrets.
       */
      readonly paths: readonly string[];
    }
  | { readonly readOnly: false; readonly reason: string };

/** Returns why the arguments make the command not read-only, or undefined when they are fine. */
type ArgumentCheck = (args: readonly string[]) => string | undefined;

const anyArguments: ArgumentCheck = () => undefined;

/** Refuses the given options, exact or as `--opt=value`; single-letter ones also inside `-xyz` groups. */
function withoutOptions(...options: string[]): ArgumentCheck {
  const letters = options.filter((o) => /^-[A-Za-z]$/.test(o)).map((o) => o[1]!);
  return (args) => {
    for (const arg of args) {
      if (arg === '--') break;
      const name = arg.startsWith('--') ? arg.split('=')[0]! : arg;
      if (options.includes(name)) return `uses ${name}`;
      if (/^-[A-Za-z]/.test(arg) && !arg.startsWith('--') && letters.some((l) => arg.slice(1).includes(l))) {
        return `uses ${arg}`;
      }
    }
    return undefined;
  };
}

function operands(args: readonly string[]): string[] {
  const out: string[] = [];
  let afterDashDash = false;
  for (const arg of args) {
    if (!afterDashDash && arg === '--') afterDashDash = true;
    else if (afterDashDash || !arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
}

/** At most `n` operands (`uniq in out` and `xxd in out` write their second operand). */
function atMostOperands(n: number): ArgumentCheck {
  return (args) => (operands(args).length > n ? `has more than ${n} file operand${n === 1 ? '' : 's'} (the next one is written)` : undefined);
}

const noArguments: ArgumentCheck = (args) => (args.length > 0 ? 'has arguments (with arguments it changes something or runs a command)' : undefined);

const both =
  (...checks: ArgumentCheck[]): ArgumentCheck =>
  (args) => {
    for (const check of checks) {
      const reason = check(args);
      if (reason) return reason;
    }
    return undefined;
  };

const FIND_WRITE_ACTIONS = ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls'];
const findCheck: ArgumentCheck = (args) => {
  const action = args.find((a) => FIND_WRITE_ACTIONS.includes(a));
  return action ? `uses ${action}` : undefined;
};

const commandCheck: ArgumentCheck = (args) => (args[0] === '-v' || args[0] === '-V' ? undefined : 'runs another command');

const cdCheck: ArgumentCheck = (args) => {
  const targets = operands(args);
  if (targets.length !== 1 || targets[0] === '-') return 'changes to a directory that is not named';
  return undefined;
};

// ---- awk ----------------------------------------------------------------------------------------

const awkCheck: ArgumentCheck = (args) => {
  let program: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      program ??= args[i + 1];
      break;
    }
    if (arg === '-F' || arg === '-v') {
      i++;
      continue;
    }
    if (/^-[Fv]./.test(arg) || ['-b', '--characters-as-bytes', '-P', '--posix', '-c', '--traditional', '-S', '--sandbox'].includes(arg)) continue;
    if (arg === '-e' || arg === '--source') {
      program = (program ?? '') + '\n' + (args[++i] ?? '');
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') return `uses ${arg}`;
    // The first operand is the program unless -e gave it; the rest are input files.
    program ??= arg;
    break;
  }
  if (program === undefined) return 'has no program';
  if (/\bsystem\s*\(/.test(program)) return 'calls system()';
  if (/\b(print|printf)\b[^;{}]*>/.test(program)) return 'prints to a file';
  if (/\|/.test(program.replace(/\|\|/g, ''))) return 'pipes to or from a command';
  return undefined;
};

// ---- sed ----------------------------------------------------------------------------------------

const SED_SIMPLE_COMMANDS = new Set(['p', 'd', 'q', 'Q', '=', 'l', 'n', 'N', 'P', 'D', 'h', 'H', 'g', 'G', 'x', 'z']);

function skipSedAddress(script: string, i: number): number | undefined {
  if (/[0-9]/.test(script[i] ?? '')) {
    while (/[0-9~]/.test(script[i] ?? '')) i++;
    return i;
  }
  if (script[i] === '$') return i + 1;
  if (script[i] === '/' || script[i] === '\\') {
    const delimiter = script[i] === '\\' ? script[i + 1] : '/';
    if (delimiter === undefined || delimiter === '\n') return undefined;
    i += script[i] === '\\' ? 2 : 1;
    while (i < script.length && script[i] !== delimiter) {
      if (script[i] === '\n') return undefined;
      i += script[i] === '\\' ? 2 : 1;
    }
    if (i >= script.length) return undefined;
    i++;
    while (script[i] === 'I' || script[i] === 'M') i++;
    return i;
  }
  return i;
}

/** Skips the body of `s/a/b/` or `y/a/b/` (two parts after the delimiter); undefined if malformed. */
function skipSedReplacement(script: string, i: number): number | undefined {
  const delimiter = script[i];
  if (delimiter === undefined || delimiter === '\\' || delimiter === '\n' || delimiter === ' ') return undefined;
  i++;
  for (let part = 0; part < 2; part++) {
    while (i < script.length && script[i] !== delimiter) {
      if (script[i] === '\n') return undefined;
      i += script[i] === '\\' ? 2 : 1;
    }
    if (i >= script.length) return undefined;
    i++;
  }
  return i;
}

/**
 * Whether a sed script only prints and edits the stream: commands `p d q Q = l n N P D h H g G x z`,
 * `s///` with flags from `g p i I m M` and digits (not `w`, not `e`), and `y///`, with addresses.
 * `w`, `W`, `r`, `R`, `e`, blocks and labels make it not read-only (or unknown).
 */
export function isReadOnlySedScript(script: string): boolean {
  let i = 0;
  for (;;) {
    while (i < script.length && /[\s;]/.test(script[i]!)) i++;
    if (i >= script.length) return true;
    let next = skipSedAddress(script, i);
    if (next === undefined) return false;
    i = next;
    if (script[i] === ',') {
      i++;
      if (script[i] === '+' || script[i] === '~') {
        i++;
        while (/[0-9]/.test(script[i] ?? '')) i++;
      } else {
        next = skipSedAddress(script, i);
        if (next === undefined || next === i) return false;
        i = next;
      }
    }
    while (script[i] === ' ' || script[i] === '\t') i++;
    if (script[i] === '!') i++;
    while (script[i] === ' ' || script[i] === '\t') i++;
    const command = script[i];
    if (command === undefined) return false;
    if (command === 's' || command === 'y') {
      next = skipSedReplacement(script, i + 1);
      if (next === undefined) return false;
      i = next;
      if (command === 's') {
        while (/[gpiImM0-9]/.test(script[i] ?? '')) i++;
      }
    } else if (SED_SIMPLE_COMMANDS.has(command)) {
      i++;
      if (command === 'q' || command === 'Q' || command === 'l') {
        while (script[i] === ' ') i++;
        while (/[0-9]/.test(script[i] ?? '')) i++;
      }
    } else {
      return false;
    }
    while (script[i] === ' ' || script[i] === '\t') i++;
    if (i < script.length && script[i] !== ';' && script[i] !== '\n') return false;
  }
}

const SED_FLAG_LETTERS = /^-[nErsuz]+$/;
const SED_LONG_FLAGS = ['--quiet', '--silent', '--regexp-extended', '--separate', '--unbuffered', '--null-data', '--posix', '--debug', '--sandbox'];

const sedCheck: ArgumentCheck = (args) => {
  const scripts: string[] = [];
  let firstOperand: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-e' || arg === '--expression') {
      scripts.push(args[++i] ?? '');
      continue;
    }
    if (arg.startsWith('--expression=')) {
      scripts.push(arg.slice('--expression='.length));
      continue;
    }
    if (arg.startsWith('-e') && arg.length > 2) {
      scripts.push(arg.slice(2));
      continue;
    }
    if (arg === '-l') {
      i++;
      continue;
    }
    if (arg.startsWith('-i') || arg.startsWith('--in-place')) return `edits files in place (${arg})`;
    if (arg === '-f' || arg.startsWith('--file')) return 'reads its script from a file';
    if (SED_FLAG_LETTERS.test(arg) || SED_LONG_FLAGS.includes(arg) || arg.startsWith('--line-length=')) continue;
    if (arg.startsWith('-') && arg !== '-') return `uses ${arg}`;
    firstOperand ??= arg;
  }
  if (scripts.length === 0) {
    if (firstOperand === undefined) return 'has no script';
    scripts.push(firstOperand);
  }
  return scripts.every(isReadOnlySedScript) ? undefined : 'has a script that may write files or run commands (w, W, r, e, or something not understood)';
};

// ---- git ----------------------------------------------------------------------------------------

const GIT_ANY = new Set([
  'status', 'log', 'show', 'diff', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'annotate', 'shortlog', 'describe', 'grep',
  'cat-file', 'rev-list', 'merge-base', 'show-ref', 'name-rev', 'for-each-ref', 'count-objects', 'check-ignore', 'check-attr',
  'whatchanged', 'diff-tree', 'diff-files', 'diff-index', 'version', 'var', 'ls-remote', 'cherry', 'show-branch',
]); // prettier-ignore

/** Options that write a file or run a program whatever the subcommand. */
const gitCommonCheck = withoutOptions('--output', '--ext-diff', '--open-files-in-pager', '-O');

/** For `git branch` and `git tag`: listing only. */
function gitListingCheck(writeOptions: readonly string[], valueOptions: readonly string[]): ArgumentCheck {
  return (args) => {
    const listing = args.includes('--list') || args.includes('-l');
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      const name = arg.split('=')[0]!;
      if (writeOptions.includes(name)) return `uses ${arg}`;
      if (valueOptions.includes(arg)) {
        i++;
        continue;
      }
      if (!arg.startsWith('-') && !listing) return `creates or changes "${arg}" (use --list to filter by pattern)`;
    }
    return undefined;
  };
}

const GIT_SUBCOMMAND_CHECKS: Record<string, ArgumentCheck> = {
  branch: gitListingCheck(
    ['-d', '-D', '--delete', '-m', '-M', '--move', '-c', '-C', '--copy', '-u', '--set-upstream-to', '--unset-upstream', '--edit-description', '-f', '--force', '-t', '--track', '--no-track', '--create-reflog'],
    ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'],
  ),
  tag: gitListingCheck(
    ['-d', '--delete', '-a', '--annotate', '-s', '--sign', '-u', '--local-user', '-f', '--force', '-m', '--message', '-F', '--file', '-e', '--edit', '--create-reflog', '-v', '--verify'],
    ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'],
  ),
  remote: (args) => (args.length === 0 || ['-v', '--verbose', 'get-url', 'show'].includes(args[0]!) ? undefined : `runs "git remote ${args[0]}"`),
  stash: (args) => (args[0] === 'list' || args[0] === 'show' ? undefined : 'changes the stash'),
  worktree: (args) => (args[0] === 'list' ? undefined : 'changes worktrees'),
  reflog: (args) => (args.length === 0 || args[0] === 'show' || (args[0]!.startsWith('-') && !args.includes('expire') && !args.includes('delete')) ? undefined : 'changes the reflog'),
  config: (args) => {
    if (args[0] === 'get' || args[0] === 'list') return undefined;
    const reading = args.some((a) => ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', '--get-color', '--get-colorbool'].includes(a));
    const writing = args.some((a) => ['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit'].includes(a));
    return reading && !writing ? undefined : 'may set configuration (only --get/--list forms are read-only)';
  },
  'symbolic-ref': both(withoutOptions('-d', '--delete'), atMostOperands(1)),
};

/** Global options before the subcommand; `-C <dir>` changes directory (returned as a path). */
function gitCheck(args: readonly string[], paths: string[], dir: string | undefined): string | undefined {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C') {
      const target = args[++i];
      if (target === undefined) return 'has -C without a directory';
      paths.push(joinPath(dir, target));
      continue;
    }
    if (arg === '--no-pager' || arg === '-P' || arg === '--no-optional-locks' || arg === '--literal-pathspecs' || arg === '--no-replace-objects') continue;
    if (arg === '--version') return undefined;
    if (arg.startsWith('-')) return `uses the global option ${arg} (it can change what git runs or where it writes)`;
    break;
  }
  const subcommand = args[i];
  if (subcommand === undefined) return 'has no subcommand';
  const rest = args.slice(i + 1);
  const common = gitCommonCheck(rest);
  if (common) return common;
  if (GIT_ANY.has(subcommand)) return undefined;
  const check = GIT_SUBCOMMAND_CHECKS[subcommand];
  if (!check) return `"git ${subcommand}" is not a read-only git subcommand`;
  const reason = check(rest);
  return reason ? `"git ${subcommand}" ${reason}` : undefined;
}

// ---- the table ----------------------------------------------------------------------------------

/**
 * The read-only commands and the check their arguments must pass. `git` is handled separately.
 * Commands that run other commands (`xargs`, `env CMD`, `sh`, `bash -c`, `sudo`, `time`,
 * `timeout`, `nohup`, `watch`, `eval`, `exec`, `source`) and commands that write (`tee`, `cp`,
 * `mv`, `rm`, `touch`, `mkdir`, …) are not in it.
 */
export const READ_ONLY_COMMANDS: Readonly<Record<string, ArgumentCheck>> = {
  ls: anyArguments,
  cat: anyArguments,
  head: anyArguments,
  tail: anyArguments,
  wc: anyArguments,
  pwd: anyArguments,
  echo: anyArguments,
  printf: anyArguments,
  which: anyArguments,
  type: anyArguments,
  whereis: anyArguments,
  file: withoutOptions('-C', '--compile'),
  stat: anyArguments,
  du: anyArguments,
  df: anyArguments,
  tree: withoutOptions('-o'),
  basename: anyArguments,
  dirname: anyArguments,
  realpath: anyArguments,
  readlink: anyArguments,
  true: anyArguments,
  false: anyArguments,
  test: anyArguments,
  '[': anyArguments,
  sleep: anyArguments,
  seq: anyArguments,
  nproc: anyArguments,
  uname: anyArguments,
  whoami: anyArguments,
  id: anyArguments,
  uptime: anyArguments,
  ps: anyArguments,
  free: anyArguments,
  date: withoutOptions('-s', '--set'),
  hostname: noArguments,
  env: noArguments,
  printenv: anyArguments,
  grep: anyArguments,
  egrep: anyArguments,
  fgrep: anyArguments,
  rg: withoutOptions('--pre'),
  find: findCheck,
  diff: anyArguments,
  cmp: anyArguments,
  comm: anyArguments,
  sort: withoutOptions('-o', '--output', '--compress-program'),
  uniq: atMostOperands(1),
  cut: anyArguments,
  tr: anyArguments,
  nl: anyArguments,
  od: anyArguments,
  xxd: atMostOperands(1),
  hexdump: anyArguments,
  strings: anyArguments,
  column: anyArguments,
  paste: anyArguments,
  fold: anyArguments,
  fmt: anyArguments,
  rev: anyArguments,
  expand: anyArguments,
  unexpand: anyArguments,
  tac: anyArguments,
  base64: anyArguments,
  md5sum: anyArguments,
  sha1sum: anyArguments,
  sha256sum: anyArguments,
  sha512sum: anyArguments,
  cksum: anyArguments,
  jq: anyArguments,
  awk: awkCheck,
  gawk: awkCheck,
  mawk: awkCheck,
  sed: sedCheck,
  cd: cdCheck,
  command: commandCheck,
};

const SAFE_OUTPUT_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

function redirectionProblem(r: Redirection): string | undefined {
  if (r.op === '<' || r.op === '<<<') return undefined;
  if ((r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(r.target)) return undefined;
  if (['>', '>>', '>|', '&>', '&>>', '>&'].includes(r.op) && SAFE_OUTPUT_TARGETS.has(r.target)) return undefined;
  return `redirects output to "${r.target}" (${r.fd ?? ''}${r.op})`;
}

function joinPath(dir: string | undefined, path: string): string {
  if (dir === undefined || path.startsWith('/') || path === '~' || path.startsWith('~/')) return path;
  return nodePath.posix.join(dir, path);
}

/** Words of a command that may name files: operands and `--opt=value` values. */
function pathWords(args: readonly string[]): string[] {
  const out: string[] = [];
  let afterDashDash = false;
  for (const arg of args) {
    if (!afterDashDash && arg === '--') {
      afterDashDash = true;
    } else if (afterDashDash || !arg.startsWith('-')) {
      if (arg !== '') out.push(arg);
    } else if (arg.startsWith('--') && arg.includes('=')) {
      const value = arg.slice(arg.indexOf('=') + 1);
      if (value !== '') out.push(value);
    }
  }
  return out;
}

function classifySimple(command: SimpleCommand, paths: string[], dir: { value: string | undefined }): string | undefined {
  for (const redirection of command.redirections) {
    const problem = redirectionProblem(redirection);
    if (problem) return problem;
    if ((redirection.op === '<' || redirection.op === '<>') && redirection.target !== '') paths.push(joinPath(dir.value, redirection.target));
  }
  const [name, ...args] = command.words;
  if (name === undefined) return 'is only a redirection';
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(name)) return `sets a variable for the command (${name.split('=')[0]}=…)`;
  if (name.includes('/')) return `runs "${name}" by path`;
  if (name.includes('$')) return `runs a command named by a variable (${name})`;
  if (name === 'git') {
    const reason = gitCheck(args, paths, dir.value);
    if (reason) return reason;
    paths.push(...pathWords(args).map((p) => joinPath(dir.value, p)));
    return undefined;
  }
  const check = Object.prototype.hasOwnProperty.call(READ_ONLY_COMMANDS, name) ? READ_ONLY_COMMANDS[name] : undefined;
  if (!check) return `"${name}" is not in the list of read-only commands`;
  const reason = check(args);
  if (reason) return `"${name}" ${reason}`;
  const words = pathWords(args).map((p) => joinPath(dir.value, p));
  paths.push(...words);
  if (name === 'cd') dir.value = words[0];
  return undefined;
}

/** Classifies a Bash command line (see the module comment for the rules). */
export function classifyCommand(commandLine: string): CommandClassification {
  const parsed = parseShellCommand(commandLine);
  if (parsed.opaque) {
    return { readOnly: false, reason: 'uses command substitution, a subshell or group, a compound command (if, for, while, time, …), a here-document, a syntax error or unbalanced quotes' };
  }
  if (parsed.commands.length === 0) return { readOnly: false, reason: 'is empty' };
  const paths: string[] = [];
  const dir: { value: string | undefined } = { value: undefined };
  for (const command of parsed.commands) {
    const reason = classifySimple(command, paths, dir);
    if (reason) return { readOnly: false, reason: `${command.text}: ${reason}` };
  }
  return { readOnly: true, paths: [...new Set(paths)] };
}
