import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { escapeRuleText, matchCommandRule } from '../../src/tool/ruleMatch';
import { parseShellCommand, type SimpleCommand } from '../../src/tool/shellSplit';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';
import { prng } from '../helpers/prng';

/**
 * Differential test of parseShellCommand against bash itself, on generated command lines.
 *
 * The generator builds each line from simple commands it knows, so besides the line it can write
 * a "printing" version with `p ` (or `q ` before `||`) in front of each simple command: `p` is a
 * shell function that writes its arguments, NUL-separated, to fd 3, which bash passes through its
 * own expansion, so what arrives are bash's words for that command (the command word included; `q`
 * also fails, so that what follows `||` runs too). One bash process reads all cases from a file
 * and, per case, (1) checks the original line's syntax by defining it as a function body with
 * `eval` (it is parsed, not run), then (2) runs the printing version in a subshell, in an empty
 * temporary directory with PATH pointing nowhere. Lines with mutations (random inserted or removed
 * operator and quote characters) get only the syntax check.
 *
 * Where the parser says it understood a line (not opaque), bash must accept its syntax and, for
 * each command whose words need no expansion, print exactly the parser's words; and a deny rule
 * written for any command bash ran must fire on the line. Where bash rejects the syntax, the parser
 * must say opaque, so no allow rule can cover the line.
 */

const SEED = Number(process.env.TOOLHOST_FUZZ_SEED ?? 20260601);
const CASES = Number(process.env.TOOLHOST_FUZZ_CASES ?? 2000);

class Generator {
  /** A comment was started: the rest of the line is left empty (inside a comment, quotes and escapes mean nothing). */
  private commented = false;
  /** A keyword was written where a command starts: the line's structure is no longer the generator's. */
  keyword = false;

  constructor(private readonly random: () => number) {}

  chance(p: number): boolean {
    return this.random() < p;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  chars(set: string, min: number, max: number): string {
    let out = '';
    for (let n = this.int(min, max); n > 0; n--) out += this.pick([...set]);
    return out;
  }

  weighted(table: readonly [number, () => string][]): string {
    const total = table.reduce((sum, [w]) => sum + w, 0);
    let roll = this.random() * total;
    for (const [weight, make] of table) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return table[0]![1]();
  }

  /** One self-contained piece of a word: it never leaves a quote open. */
  atom(first: boolean): string {
    return this.weighted([
      [30, () => this.chars('abcxyz019-_./%+:@,=^', 1, 3)],
      [10, () => `'${this.chars('ab "\\$;|&#*{}~\n()`!=', 0, 4)}'`],
      [10, () => `"${this.doubleQuotedBody()}"`],
      [12, () => `$'${this.ansiBody()}'`],
      [2, () => `$"${this.doubleQuotedBody()}"`],
      [8, () => '\\' + this.pick([...' ;|&<>()\'"$\\`#*?[]{}~=a!\n'])],
      [6, () => this.pick(['$x', '${x}', '$1', '$?', '$-', '$', '$$', '$@', '$#', '$%', '${#x}', '$_'])],
      [5, () => this.pick(['*', '?', '[ab]', 'a*', '[', ']', 'r?', '[]'])],
      [5, () => this.pick(['{a,b}', '{1..3}', '{a}', '{}', '{', '}', 'x{,}y', '{a,b', 'a}', "{a','b}", '{a..c}'])],
      [4, () => this.pick(['~', '~/x', 'a=~', 'x:~', '~root', 'a~'])],
      [
        first ? 0 : 2,
        () => {
          this.commented = true;
          return this.pick(['#', '#x', "#'"]);
        },
      ],
      [2, () => this.pick(['a#b', 'x#'])],
      [3, () => this.pick(['$(a)', '`a`', '$((1))', '<(a)', '${x:-y}'])],
    ]);
  }

  doubleQuotedBody(): string {
    let out = '';
    for (let n = this.int(0, 3); n > 0; n--) {
      out += this.pick(['a', ' ', "'", ';', '|', '#', '*', '~', '{a,b}', '\\"', '\\\\', '\\$', '\\`', '\\a', '\\\n', '$x', '${x}', '$', '\n', '!', '$1']);
    }
    return out;
  }

  ansiBody(): string {
    let out = '';
    for (let n = this.int(0, 3); n > 0; n--) {
      out += this.pick([
        'a', ' ', '"', '$', ';', '#', '`', '\n',
        "\\'", '\\\\', '\\n', '\\t', '\\a', '\\e', '\\E', '\\"', '\\?', '\\x41', '\\x4', '\\x7e', '\\x4g', '\\101', '\\0101', '\\7',
        '\\u00e9', '\\u263a', '\\U0001F600', '\\cZ', '\\c?', '\\z', '\\8', '\\x', '\\u', '\\0', '\\x00', '\\$', '\\ ',
      ]); // prettier-ignore
    }
    return out;
  }

  word(first: boolean): string {
    let out = this.atom(first);
    // A line continuation leaves the word empty: what follows still starts it.
    for (let n = this.int(0, 2); n > 0 && !this.commented; n--) out += this.atom(first && out.replaceAll('\\\n', '') === '');
    return out;
  }

  commandWord(): string {
    if (this.chance(0.04)) {
      this.keyword = true;
      return this.pick(['if', '{', '}', '!', 'time', 'for', 'then', 'function', '[[', 'case']);
    }
    // Not only line continuations (nothing would be left for `p` to stand before), and not an
    // assignment (the assignments in front are the generator's own).
    for (;;) {
      const word = this.word(true);
      if (word.replaceAll('\\\n', '') !== '' && !/^[A-Za-z_][A-Za-z0-9_]*(\[|\+?=)/.test(word.replaceAll('\\\n', ''))) return word;
    }
  }

  redirection(): string {
    return this.pick(['>/dev/null', '2>&1', '<in', '>>out', '2>err', '&>o', "<<<'x y'", '>|f', '>&2', '{v}>f', '> f', '< in', '2> err', '<>rw']);
  }

  /** A simple command as [its source, its source with `p`/`q` after the assignments, before the command word]. */
  command(printer: string): [string, string] {
    const assignments: string[] = [];
    for (let n = this.chance(0.2) ? this.int(1, 2) : 0; n > 0; n--) assignments.push(this.pick(['X=1', "Y='a b'", 'Z+=q', "W=$'x'", 'V=', 'U="$x"']));
    const parts = [this.commandWord()];
    for (let n = this.int(0, 4); n > 0 && !this.commented; n--) parts.push(this.chance(0.12) ? this.redirection() : this.word(false));
    const prefix = assignments.map((a) => a + ' ').join('');
    return [prefix + parts.join(' '), `${prefix}${printer} ${parts.join(' ')}`];
  }

  line(): [string, string] {
    this.commented = false;
    this.keyword = false;
    const count = this.int(1, 4);
    const operators = Array.from({ length: count - 1 }, () => this.pick([' ; ', ';', ' && ', ' || ', ' | ', ' & ', '\n', ' |& ', '&&', '|', ' ;\n']));
    let source = '';
    let printing = '';
    for (let k = 0; k < count && !this.commented; k++) {
      const [s, p] = this.command(operators[k]?.trim() === '||' ? 'q' : 'p');
      const next = this.commented ? '' : (operators[k] ?? '');
      source += s + next;
      printing += p + next;
    }
    const tail = this.commented ? '' : this.pick(['', '', '', '', ';', ' &', ' # a comment', '\n']);
    return [source + tail, printing + tail];
  }

  mutate(source: string): string {
    let out = source;
    for (let n = this.int(1, 2); n > 0; n--) {
      const at = this.int(0, out.length);
      out = this.chance(0.7) ? out.slice(0, at) + this.pick([..."'\"`$(){}[];&|<>#\\\n !"]) + out.slice(at) : out.slice(0, at) + out.slice(at + 1);
    }
    return out;
  }
}

interface Case {
  readonly source: string;
  /** The printing version, or '' when only the syntax is checked. */
  readonly printing: string;
  readonly parsed: ReturnType<typeof parseShellCommand>;
}

interface BashResult {
  readonly syntaxOk: boolean;
  readonly records: string[][];
}

const DRIVER = `
# Each record is its fields, NUL-terminated, then \\1 NUL: "#", the case and S or E for the syntax
# check; the case and the words for each command. The case number travels with the record, so a
# background job that outlives its case (an expansion error ends a subshell before its wait) is
# still counted for it. bash line-buffers its output: newlines go as \\3, so each record is one
# write, whole even when commands of a pipeline or the background print at the same time.
p() { printf '%s\\0' "$__case" "\${@//$'\\n'/$'\\3'}" $'\\1' >&3; }
q() { p "$@"; return 1; }
__case=0
while IFS= read -r -d '' source && IFS= read -r -d '' printing; do
  if eval "__syntax_check() {
$source
}" 2>/dev/null; then
    printf '%s\\0' '#' "$__case" S $'\\1' >&3
    if [ -n "$printing" ]; then ( eval "$printing"; wait ) </dev/null >/dev/null 2>&1; fi
  else
    printf '%s\\0' '#' "$__case" E $'\\1' >&3
  fi
  __case=$((__case + 1))
done < cases
wait
`;

function runBash(dir: string, cases: readonly Case[]): BashResult[] {
  fs.writeFileSync(nodePath.join(dir, 'cases'), cases.map((c) => `${c.source}\0${c.printing}\0`).join(''));
  // PATH points nowhere inside, so the shell is named by its path.
  const bash = ['/bin/bash', '/usr/bin/bash'].find((path) => fs.existsSync(path)) ?? 'bash';
  const result = spawnSync(bash, ['--norc', '--noprofile', '-c', DRIVER], {
    cwd: dir,
    env: { PATH: '/nonexistent', HOME: dir, LC_ALL: 'C.UTF-8' },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = result.output[3] as Buffer | null;
  if (!output) throw new Error(`bash did not run: ${String(result.error)} ${String(result.stderr)}`);
  const results: { syntaxOk: boolean; records: string[][] }[] = cases.map(() => ({ syntaxOk: false, records: [] }));
  for (const record of splitBuffer(output, Buffer.from([1, 0])).slice(0, -1)) {
    const fields = splitBuffer(record, Buffer.from([0]))
      .slice(0, -1)
      .map((w) => w.toString('utf8').replaceAll('\x03', '\n'));
    if (fields[0] === '#') results[Number(fields[1])]!.syntaxOk = fields[2] === 'S';
    else results[Number(fields[0])]!.records.push(fields.slice(1));
  }
  return results;
}

function splitBuffer(buffer: Buffer, separator: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = buffer.indexOf(separator, start); at >= 0; at = buffer.indexOf(separator, start)) {
    parts.push(buffer.subarray(start, at));
    start = at + separator.length;
  }
  parts.push(buffer.subarray(start));
  return parts;
}

function needsExpansion(command: SimpleCommand): boolean {
  return command.expansions.slice(command.assignments).some((e) => e.substitution || e.brace || e.glob || e.tilde);
}

describe('parseShellCommand() against bash', () => {
  let dir = '';
  beforeAll(() => {
    dir = makeTempDir('toolhost-shellsplit-');
    writeFiles(dir, { a: '', ab: '', 'b.txt': '', in: 'input\n', rm: '', rw: '' });
  });
  afterAll(() => removeDir(dir));

  test(`${CASES} generated command lines (seed ${SEED})`, () => {
    const generator = new Generator(prng(SEED));
    const cases: Case[] = [];
    let opaque = 0;
    for (let n = 0; n < CASES; n++) {
      const [line, printing] = generator.line();
      const mutated = generator.chance(0.25);
      const source = mutated ? generator.mutate(line) : line;
      const parsed = parseShellCommand(source);
      if (parsed.opaque) {
        opaque++;
        // Nothing the parser does not understand is covered by an allow rule.
        expect(matchCommandRule('?*', source, 'allow')).toBe(false);
        // Substitutions and the like keep the generator's structure: the deny check still applies.
        if (!mutated && !generator.keyword) cases.push({ source, printing, parsed });
        continue;
      }
      // A body of only comments, or one ending in a backslash, is not a valid function body: skip.
      if (parsed.commands.length === 0 || /(^|[^\\])(\\\\)*\\$/.test(source)) continue;
      cases.push({ source, printing: mutated ? '' : printing, parsed });
    }

    const results = runBash(dir, cases);
    expect(results).toHaveLength(cases.length);
    const failures: string[] = [];
    let compared = 0;
    let denyChecked = 0;
    const checkDenyRules = (c: Case, bash: BashResult) => {
      for (const record of bash.records) {
        if (record.length === 0 || record.some((w) => w === '' || /[^\S ]| {2}|^ | $/.test(w))) continue;
        denyChecked++;
        const text = record.join(' ');
        if (!matchCommandRule(escapeRuleText(text), c.source, 'deny')) failures.push(`${JSON.stringify(c.source)}: a deny rule for ${JSON.stringify(text)}, which bash ran, does not fire`);
      }
    };
    cases.forEach((c, k) => {
      const bash = results[k]!;
      if (c.parsed.opaque) {
        if (bash.syntaxOk) checkDenyRules(c, bash);
        return;
      }
      if (!bash.syntaxOk) {
        failures.push(`bash rejects the syntax, the parser does not: ${JSON.stringify(c.source)}`);
        return;
      }
      if (c.printing === '') return;
      // `p` stands after the assignments, so bash prints the words after them: the command's argv.
      const argv = (command: SimpleCommand) => command.words.slice(command.assignments);
      const parserWords = c.parsed.commands.map(argv);
      if (bash.records.length !== parserWords.length) {
        failures.push(`${JSON.stringify(c.source)}: bash ran ${bash.records.length} commands ${JSON.stringify(bash.records)}, the parser found ${parserWords.length} ${JSON.stringify(parserWords)}`);
        return;
      }
      // A deny rule written for a command bash ran fires on the line, also when the parser saw its
      // words only as expansions (rule whitespace is collapsed, so words with other blanks are left out).
      checkDenyRules(c, bash);
      // Commands in a pipeline or in the background print in any order: match them as a multiset.
      const unmatched = bash.records.map((r) => JSON.stringify(r));
      c.parsed.commands.forEach((command) => {
        if (needsExpansion(command)) return;
        compared++;
        const at = unmatched.indexOf(JSON.stringify(argv(command)));
        if (at < 0) failures.push(`${JSON.stringify(c.source)}: the parser's words ${JSON.stringify(argv(command))} are not among bash's ${JSON.stringify(bash.records)}`);
        else unmatched.splice(at, 1);
      });
    });
    expect(failures.slice(0, 20)).toEqual([]);
    if (process.env.TOOLHOST_FUZZ_STATS) console.log({ cases: CASES, opaque, checked: cases.length, compared, denyChecked });
    // The generator must exercise both sides: understood lines whose words were compared, and opaque ones.
    expect(compared).toBeGreaterThan(600);
    expect(denyChecked).toBeGreaterThan(1000);
    expect(opaque).toBeGreaterThan(300);
  });
});
