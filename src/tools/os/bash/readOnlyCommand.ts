import * as nodePath from 'node:path';
import { type OptionTable, optionList, parseOptions, type ParsedOption } from '../../../tool/commandOptions';
import { parseShellCommand, type Redirection, redirectionWritesFile, type SimpleCommand } from '../../../tool/shellSplit';

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
      /**
       * Arguments with unquoted `*`, `?` or `[…]`, as written (joined to any `cd` like `paths`):
       * bash replaces each by the names it matches, which only the file system can tell, so the
       * caller expands them before it trusts the command (`cat .e*` reads `.env`).
       */
      readonly globs: readonly string[];
    }
  | { readonly readOnly: false; readonly reason: string };

/** Returns why the arguments make the command not read-only, or undefined when they are fine. */
type ArgumentCheck = (args: readonly string[]) => string | undefined;

const anyArguments: ArgumentCheck = () => undefined;

/**
 * Options checked against the command's own option table, parsed as the program parses them (so
 * `--out=f` is `--output=f`, `-nof` is `-n -o f`): an option not in the table, or one listed as
 * writing, makes the command not read-only. The table is an allowlist; the writing options are
 * in it so that abbreviations resolve as they do in the program.
 */
interface CommandOptions extends OptionTable {
  /** Full names (`-o`, `--output`) of options that write files or run a program. */
  readonly writes?: readonly string[];
  /** The operands and options once parsed: why they make the command not read-only, if they do. */
  readonly then?: (parsed: { readonly options: readonly ParsedOption[]; readonly operands: readonly string[] }) => string | undefined;
}

function withOptions(spec: CommandOptions): ArgumentCheck {
  return (args) => {
    const parsed = parseOptions(args, spec);
    if (!parsed.ok) return parsed.error;
    const writing = parsed.options.find((o) => spec.writes?.includes(o.name));
    if (writing) return `uses ${writing.written === writing.name ? writing.name : `${writing.written} (${writing.name})`}, which writes files or runs a program`;
    return spec.then?.(parsed);
  };
}

function atMostOperandsOf(n: number): CommandOptions['then'] {
  return ({ operands }) => (operands.length > n ? `has more than ${n} file operand${n === 1 ? '' : 's'} (the next one is written)` : undefined);
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

const noArguments: ArgumentCheck = (args) => (args.length > 0 ? 'has arguments (with arguments it changes something or runs a command)' : undefined);

/** find's expressions that only test or print; those that take a value. */
const FIND_TESTS_WITH_VALUE = new Set(
  ('-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype -size -mtime -mmin -atime -amin -ctime ' +
    '-cmin -used -newer -anewer -cnewer -perm -user -group -uid -gid -links -inum -samefile -lname -ilname -fstype -maxdepth -mindepth ' +
    '-printf -context -files0-from').split(' '),
);
const FIND_TESTS = new Set(
  ('-print -print0 -ls -prune -quit -true -false -not -a -and -o -or -empty -readable -writable -executable -nouser -nogroup -depth -d ' +
    '-mount -xdev -noleaf -follow -ignore_readdir_race -noignore_readdir_race -daystart -warn -nowarn -help --help -version --version ! ( ) ,').split(' '),
);
const FIND_WRITE_ACTIONS = ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls'];
const findCheck: ArgumentCheck = (args) => {
  let i = 0;
  while (i < args.length && /^-([HLP]|O[0-9]*)$/.test(args[i]!)) i++;
  while (i < args.length && !args[i]!.startsWith('-') && !['!', '(', ')', ','].includes(args[i]!)) i++; // starting points
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (FIND_WRITE_ACTIONS.includes(arg)) return `uses ${arg}, which writes files or runs a program`;
    if (FIND_TESTS_WITH_VALUE.has(arg) || /^-newer[aBcmt][aBcmt]$/.test(arg)) {
      if (++i >= args.length) return `uses ${arg} without its value`;
      continue;
    }
    if (FIND_TESTS.has(arg)) continue;
    return arg.startsWith('-') ? `uses ${arg}, which is not a known find expression` : `has "${arg}" where an expression is expected`;
  }
  return undefined;
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
  // gawk extensions (rwarray's writea, inplace) write files.
  if (/@\s*(load|include)\b/.test(program)) return 'loads an extension or includes a file (@load, @include)';
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

/** Subcommands whose options only choose what is printed (none writes a file or runs a program). */
const GIT_ANY = new Set([
  'status', 'rev-parse', 'ls-files', 'ls-tree', 'describe', 'cat-file', 'merge-base', 'show-ref', 'name-rev', 'for-each-ref',
  'count-objects', 'check-ignore', 'check-attr', 'version', 'var',
]); // prettier-ignore

/** The options of log, show, diff, blame and the like; `--output`, `--ext-diff` and `--show-signature` (gpg) are the writing ones. */
const GIT_HISTORY: CommandOptions = {
  short: optionList('p u s z R a b w W t r c m q i E F P D g v n= U= S= G= O= L= l= M? C? B?'),
  long: optionList(`
    patch no-patch raw patch-with-raw patch-with-stat numstat shortstat summary stat? stat-width= stat-name-width= stat-graph-width=
    stat-count= compact-summary dirstat? cumulative dirstat-by-file? name-only name-status check full-index binary abbrev? unified=
    inter-hunk-context= function-context output= output-indicator-new= output-indicator-old= output-indicator-context= indent-heuristic
    minimal patience histogram anchored= diff-algorithm= color? color-moved? color-moved-ws= color-words? word-diff? word-diff-regex=
    ws-error-highlight= renames rename-empty find-renames? find-copies? find-copies-harder break-rewrites? irreversible-delete
    diff-filter= find-object= pickaxe-all pickaxe-regex skip-to= rotate-to= relative? text ignore-cr-at-eol ignore-space-at-eol
    ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines= exit-code quiet ext-diff textconv ignore-submodules?
    submodule? src-prefix= dst-prefix= prefix default-prefix line-prefix= ita-invisible-in-index ita-visible-in-index cached staged
    merge-base index follow full-diff combined-all-paths cc remerge-diff dd diff-merges= first-parent merges all branches? tags?
    remotes? glob= exclude= exclude-hidden= reflog alternate-refs not boundary left-right left-only right-only cherry cherry-mark
    cherry-pick reverse topo-order date-order author-date-order graph oneline abbrev-commit decorate? decorate-refs=
    decorate-refs-exclude= clear-decorations source use-mailmap mailmap log-size parents children relative-date regexp-ignore-case
    extended-regexp fixed-strings perl-regexp basic-regexp all-match invert-grep grep= author= committer= grep-reflog= since= after=
    until= before= since-as-filter= max-count= skip= min-parents= max-parents= simplify-by-decoration simplify-merges full-history
    dense sparse ancestry-path? show-linear-break? walk-reflogs walk? do-walk date= format= pretty? encoding= expand-tabs? notes?
    show-notes? standard-notes show-pulls bisect stdin objects objects-edge unpacked count timestamp header root commit-id always
    show-signature single-worktree ignore-missing in-commit-order incremental porcelain line-porcelain score-debug show-name
    show-number show-email contents= ignore-rev= ignore-revs-file= color-lines color-by-age show-stats progress numbered email
    group= more? list independent current sha1-name topics`),
  negatable: true,
  numberOption: true,
  writes: ['--output', '--ext-diff', '--show-signature'],
  // `%G` placeholders verify signatures, which runs gpg (gpg.program).
  then: ({ options }) => (options.some((o) => (o.name === '--format' || o.name === '--pretty') && o.value?.includes('%G')) ? 'verifies signatures (%G…), which runs gpg' : undefined),
};

const gitHistoryCheck = withOptions(GIT_HISTORY);

function listingOnly(what: string): CommandOptions['then'] {
  return ({ options, operands }) =>
    operands.length > 0 && !options.some((o) => o.name === '-l' || o.name === '--list') ? `${what} "${operands[0]}" (use --list to filter by pattern)` : undefined;
}

const GIT_SUBCOMMAND_CHECKS: Record<string, ArgumentCheck> = {
  ...Object.fromEntries(
    ['log', 'show', 'diff', 'whatchanged', 'diff-tree', 'diff-files', 'diff-index', 'rev-list', 'cherry', 'show-branch', 'blame', 'annotate'].map(
      (name) => [name, gitHistoryCheck],
    ),
  ),
  // In shortlog, -n is --numbered and -w[<width>] wraps.
  shortlog: withOptions({ ...GIT_HISTORY, short: { ...GIT_HISTORY.short, n: 'none', w: 'optional' } }),
  grep: withOptions({
    short: optionList('a i I r v h H E G P F n l L z o c p W q w O? C= A= B= m= f= e='),
    long: optionList(`cached index untracked exclude-standard recurse-submodules text textconv ignore-case max-depth= recursive word-regexp
      invert-match full-name extended-regexp basic-regexp perl-regexp fixed-strings line-number column files-with-matches name-only
      files-without-match null only-matching count color? break heading show-function context= after-context= before-context=
      function-context max-count= threads= file= and or not all-match quiet open-files-in-pager?`),
    negatable: true,
    numberOption: true,
    writes: ['-O', '--open-files-in-pager'],
  }),
  'ls-remote': withOptions({
    short: optionList('h t b q o= u='),
    long: optionList('heads tags branches refs quiet exit-code get-url sort= symref server-option= upload-pack='),
    writes: ['-u', '--upload-pack'],
  }),
  remote: (args) => {
    let i = 0;
    while (args[i] === '-v' || args[i] === '--verbose') i++;
    const subcommand = args[i];
    if (subcommand === undefined) return undefined;
    if (subcommand === 'show') return withOptions({ short: optionList('n') })(args.slice(i + 1));
    if (subcommand === 'get-url') return withOptions({ long: optionList('push all'), then: atMostOperandsOf(1) })(args.slice(i + 1));
    return `runs "git remote ${subcommand}"${subcommand.startsWith('-') ? '' : ', which changes remotes or fetches'}`;
  },
  branch: withOptions({
    short: optionList('a r l v q i d D m M c C f t u='),
    long: optionList(`all remotes list verbose quiet abbrev= color? column? sort= merged+ no-merged+ contains+ no-contains+ points-at=
      format= ignore-case omit-empty show-current delete move copy set-upstream-to= unset-upstream edit-description force track?
      create-reflog recurse-submodules`),
    negatable: true,
    writes: ['-d', '-D', '--delete', '-m', '-M', '--move', '-c', '-C', '--copy', '-u', '--set-upstream-to', '--unset-upstream', '--edit-description',
      '-f', '--force', '-t', '--track', '--no-track', '--create-reflog', '--recurse-submodules'], // prettier-ignore
    then: listingOnly('creates or changes'),
  }),
  tag: withOptions({
    short: optionList('l i d a s f e v n? u= m= F='),
    long: optionList(`list sort= color? column? contains+ no-contains+ merged+ no-merged+ points-at= format= ignore-case omit-empty delete
      annotate sign local-user= force message= file= edit create-reflog cleanup= trailer= verify`),
    negatable: true,
    writes: ['-d', '--delete', '-a', '--annotate', '-s', '--sign', '-u', '--local-user', '-f', '--force', '-m', '--message', '-F', '--file',
      '-e', '--edit', '--create-reflog', '--cleanup', '--trailer', '-v', '--verify'], // prettier-ignore
    then: listingOnly('creates or changes'),
  }),
  stash: (args) => (args[0] === 'list' || args[0] === 'show' ? gitHistoryCheck(args.slice(1)) : 'changes the stash'),
  worktree: (args) => (args[0] === 'list' ? withOptions({ short: optionList('v z'), long: optionList('porcelain verbose expire=') })(args.slice(1)) : 'changes worktrees'),
  reflog: (args) => {
    if (args.length === 0 || args[0]!.startsWith('-')) return gitHistoryCheck(args);
    if (args[0] === 'show') return gitHistoryCheck(args.slice(1));
    return args[0] === 'exists' ? undefined : 'changes the reflog';
  },
  config: withOptions({
    short: optionList('l z e f='),
    long: optionList(`get get-all get-regexp get-urlmatch list get-color get-colorbool global system local worktree file= blob= type= bool int
      bool-or-int path expiry-date null name-only show-origin show-scope includes default= fixed-value add unset unset-all replace-all
      rename-section remove-section edit comment= all regexp= value= url=`),
    negatable: true,
    writes: ['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit', '--comment'],
    then: ({ options, operands }) => {
      const reading = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool'];
      if (operands[0] === 'get') return operands.length > 2 ? 'sets configuration (too many operands for get)' : undefined;
      if (operands[0] === 'list' || options.some((o) => o.name === '--list' || o.name === '-l')) return operands.length > (operands[0] === 'list' ? 1 : 0) ? 'may set configuration (list takes no operands)' : undefined;
      if (options.some((o) => reading.includes(o.name))) return operands.length > 3 ? 'may set configuration (too many operands)' : undefined;
      return 'may set configuration (only --get/--list forms are read-only)';
    },
  }),
  'symbolic-ref': withOptions({ short: optionList('q d m='), long: optionList('quiet short recurse delete'), negatable: true, writes: ['-d', '--delete', '-m'], then: atMostOperandsOf(1) }),
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
  if (GIT_ANY.has(subcommand)) return undefined;
  const check = Object.prototype.hasOwnProperty.call(GIT_SUBCOMMAND_CHECKS, subcommand) ? GIT_SUBCOMMAND_CHECKS[subcommand] : undefined;
  if (!check) return `"git ${subcommand}" is not a read-only git subcommand`;
  const reason = check(rest);
  return reason ? `"git ${subcommand}" ${reason}` : undefined;
}

// ---- commands with options that write -------------------------------------------------------------

const sortCheck = withOptions({
  short: optionList('b d f g h i M n R r V c C m s u z k= t= S= T= o='),
  long: optionList(`ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort
    human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort batch-size= check? compress-program= debug
    files0-from= key= merge output= stable buffer-size= field-separator= temporary-directory= parallel= unique zero-terminated help
    version`),
  writes: ['-o', '--output', '--compress-program'],
});

const uniqCheck = withOptions({
  short: optionList('c d i u z D? f= s= w='),
  long: optionList('count repeated all-repeated? group? skip-fields= ignore-case skip-chars= unique zero-terminated check-chars= help version'),
  then: atMostOperandsOf(1),
});

const dateCheck = withOptions({
  short: optionList('R u d= f= r= s= I?'),
  long: optionList('date= file= iso-8601? resolution rfc-email rfc-3339= reference= set= debug utc universal help version'),
  writes: ['-s', '--set'],
  // An operand without `+` (MMDDhhmm…) sets the clock.
  then: ({ operands }) => (operands.length > 1 || operands.some((o) => !o.startsWith('+')) ? 'sets the clock (an operand that is not +FORMAT)' : undefined),
});

const fileCheck = withOptions({
  short: optionList('b c C d E h i k l L N n p r s S v z Z 0 e= F= f= m= P='),
  long: optionList(`apple brief checking-printout compile debug exclude= exclude-quiet= extension files-from= separator= mime mime-type
    mime-encoding keep-going list dereference no-dereference magic-file= no-buffer no-pad print0 preserve-date parameter= raw
    special-files no-sandbox uncompress uncompress-noreport version help`),
  // --compile writes a .mgc file; --preserve-date sets access times back.
  writes: ['-C', '--compile', '-p', '--preserve-date'],
});

const treeCheck = withOptions({
  short: optionList('a d l f x i q N Q p u g s h D F v t c U r S n C A X J R L= P= I= o= H= T='),
  long: optionList(`inodes device noreport nolinks dirsfirst filesfirst si du prune matchdirs fromfile fromtabfile charset= filelimit=
    timefmt= sort= ignore-case gitignore gitfile= info infofile= metafirst hyperlink scheme= authority= opt-toggle help version`),
  // -o writes its output to a file; -R runs tree again in each directory with `-o 00Tree.html`.
  writes: ['-o', '-R'],
});

const hostnameCheck = withOptions({
  short: optionList('a A d f i I s y b F='),
  long: optionList('alias all-fqdns domain fqdn long ip-address all-ip-addresses short yp nis boot file= help version'),
  writes: ['-b', '--boot', '-F', '--file'],
  then: ({ operands }) => (operands.length > 0 ? 'has an operand (it sets the host name)' : undefined),
});

const rgCheck = withOptions({
  short: optionList('a b c F H i I l L n N o p P q s S u U v w x z 0 . V h A= B= C= e= E= f= g= j= m= M= r= t= T= d='),
  long: optionList(`after-context= before-context= context= binary block-buffered byte-offset case-sensitive column count count-matches
    crlf debug trace dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= file= files files-with-matches
    files-without-match fixed-strings follow glob= glob-case-insensitive heading help hidden iglob= ignore-case ignore-file=
    ignore-file-case-insensitive include-zero invert-match json line-buffered line-number line-regexp max-columns= max-columns-preview
    max-count= max-depth= max-filesize= mmap multiline multiline-dotall config filename ignore ignore-dot ignore-exclude ignore-files
    ignore-global ignore-messages ignore-parent ignore-vcs messages pcre2-unicode require-git unicode null null-data one-file-system
    only-matching passthru path-separator= pcre2 pcre2-version pre= pre-glob= pretty quiet regex-size-limit= regexp= replace=
    search-zip smart-case sort= sortr= sort-files stats stop-on-nonmatch text threads= trim type= type-not= type-add= type-clear=
    type-list unrestricted vimgrep with-filename word-regexp auto-hybrid-regex color= colors= context-separator= hyperlink-format=
    hostname-bin= generate= version`),
  negatable: true,
  // --pre runs a program on every file; --hostname-bin runs one to learn the host name.
  writes: ['--pre', '--hostname-bin'],
});

/** xxd reads its own single-dash options (`-c 8`, `-cols 8`, `-ps`); the second operand is written. */
const xxdCheck: ArgumentCheck = (args) => {
  let files = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      files += args.length - i - 1;
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      files++;
      continue;
    }
    const letter = arg[1]!;
    if ('cglnosR'.includes(letter)) {
      if (arg.length === 2 || /^-(cols|groupsize|len|name|offset|seek)$/.test(arg)) i++;
      continue;
    }
    if (!'abCdEehipruv'.includes(letter)) return `uses ${arg}, which is not a known option`;
  }
  return files > 1 ? 'has more than 1 file operand (the next one is written)' : undefined;
};

// `printf -v NAME` sets a shell variable (PATH, say) for the commands after it.
const printfCheck: ArgumentCheck = (args) => (args[0]?.startsWith('-v') ? 'uses -v, which sets a shell variable for the commands after it' : undefined);

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
  printf: printfCheck,
  which: anyArguments,
  type: anyArguments,
  whereis: anyArguments,
  file: fileCheck,
  stat: anyArguments,
  du: anyArguments,
  df: anyArguments,
  tree: treeCheck,
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
  date: dateCheck,
  hostname: hostnameCheck,
  env: noArguments,
  printenv: anyArguments,
  grep: anyArguments,
  egrep: anyArguments,
  fgrep: anyArguments,
  rg: rgCheck,
  find: findCheck,
  diff: anyArguments,
  cmp: anyArguments,
  comm: anyArguments,
  sort: sortCheck,
  uniq: uniqCheck,
  cut: anyArguments,
  tr: anyArguments,
  nl: anyArguments,
  od: anyArguments,
  xxd: xxdCheck,
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

function redirectionProblem(r: Redirection): string | undefined {
  if (r.op === '<<' || r.op === '<<-') return 'uses a here-document';
  return redirectionWritesFile(r) ? `redirects output to "${r.target}" (${r.fd ?? ''}${r.op})` : undefined;
}

function joinPath(dir: string | undefined, path: string): string {
  if (dir === undefined || path.startsWith('/') || path === '~' || path.startsWith('~/')) return path;
  return nodePath.posix.join(dir, path);
}

/** Words of a command that may name files: operands and `--opt=value` values, with their index in `args`. */
function pathWords(args: readonly string[]): { word: string; index: number }[] {
  const out: { word: string; index: number }[] = [];
  let afterDashDash = false;
  args.forEach((arg, index) => {
    if (!afterDashDash && arg === '--') {
      afterDashDash = true;
    } else if (afterDashDash || !arg.startsWith('-')) {
      if (arg !== '') out.push({ word: arg, index });
    } else if (arg.startsWith('--') && arg.includes('=')) {
      const value = arg.slice(arg.indexOf('=') + 1);
      if (value !== '') out.push({ word: value, index });
    }
  });
  return out;
}

/** What the file system sees of the words that may name files: plain paths, or patterns bash expands. */
interface NamedFiles {
  readonly paths: string[];
  readonly globs: string[];
}

/**
 * Sorts the path words of `command` (whose arguments start at word 1) into paths and globs; a word
 * whose value is known only when it runs (`$X`, `$(…)`, `{a,b}`) may name any file, so it is a reason
 * the command is not read-only.
 */
function addPathWords(command: SimpleCommand, args: readonly string[], named: NamedFiles, dir: string | undefined): string | undefined {
  for (const { word, index } of pathWords(args)) {
    const expansions = command.expansions[index + 1];
    if (expansions?.substitution) return `names a file through a variable or substitution ("${word}"), known only when it runs`;
    if (expansions?.brace) return `names files through a brace expansion ("${word}")`;
    (expansions?.glob ? named.globs : named.paths).push(joinPath(dir, word));
  }
  return undefined;
}

/** A redirection target bash would expand: `<` reads whatever it becomes. */
const EXPANDED_TARGET = /[$`*?[{~]/;

function classifySimple(command: SimpleCommand, named: NamedFiles, dir: { value: string | undefined }): string | undefined {
  for (const redirection of command.redirections) {
    const problem = redirectionProblem(redirection);
    if (problem) return problem;
    if ((redirection.op === '<' || redirection.op === '<>') && redirection.target !== '') {
      if (EXPANDED_TARGET.test(redirection.target)) return `reads from "${redirection.target}", a name bash expands when it runs`;
      named.paths.push(joinPath(dir.value, redirection.target));
    }
  }
  const [name, ...args] = command.words;
  if (name === undefined) return 'is only a redirection';
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(name)) return `sets a variable for the command (${name.split('=')[0]}=…)`;
  if (name.includes('/')) return `runs "${name}" by path`;
  if (name.includes('$')) return `runs a command named by a variable (${name})`;
  if (name === 'git') {
    const reason = gitCheck(args, named.paths, dir.value);
    if (reason) return reason;
    return addPathWords(command, args, named, dir.value);
  }
  const check = Object.prototype.hasOwnProperty.call(READ_ONLY_COMMANDS, name) ? READ_ONLY_COMMANDS[name] : undefined;
  if (!check) return `"${name}" is not in the list of read-only commands`;
  const reason = check(args);
  if (reason) return `"${name}" ${reason}`;
  const before = named.paths.length;
  const problem = addPathWords(command, args, named, dir.value);
  if (problem) return problem;
  if (name === 'cd') {
    // Later relative paths are joined to it: it must be a plain path.
    if (named.paths.length === before) return '"cd" changes to a folder given by a pattern, which later paths would depend on';
    dir.value = named.paths[before];
  }
  return undefined;
}

/** Classifies a Bash command line (see the module comment for the rules). */
export function classifyCommand(commandLine: string): CommandClassification {
  const parsed = parseShellCommand(commandLine);
  if (parsed.opaque) {
    return { readOnly: false, reason: 'uses command substitution, a subshell or group, a compound command (if, for, while, time, …), a here-document, a syntax error or unbalanced quotes' };
  }
  if (parsed.commands.length === 0) return { readOnly: false, reason: 'is empty' };
  const named: NamedFiles = { paths: [], globs: [] };
  const dir: { value: string | undefined } = { value: undefined };
  for (const command of parsed.commands) {
    const reason = classifySimple(command, named, dir);
    if (reason) return { readOnly: false, reason: `${command.text}: ${reason}` };
  }
  return { readOnly: true, paths: [...new Set(named.paths)], globs: [...new Set(named.globs)] };
}

/**
 * Whether bash's pattern `pattern` (one path segment) may match the file name `name`: a superset of
 * what bash matches, so a file it would read is never missed. Which `*` were quoted is no longer
 * known, so all count; `[…]` counts as any one character; a leading `.` of a name must be matched
 * by a leading `.` of the pattern, as bash does without `dotglob` (no read-only command sets it).
 */
export function bashPatternMayMatch(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.')) return false;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      source += '.*';
    } else if (c === '?') {
      source += '.';
    } else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        source += '.';
        i = close;
      }
    } else {
      source += c.replace(/[.+^${}()|\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 'su').test(name);
}
