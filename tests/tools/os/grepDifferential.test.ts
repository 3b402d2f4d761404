import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { normalizeLine } from '../../../src/tools/os/grep/grepEngine';
import { parseRustRegex, type RegexNode } from '../../../src/tools/os/grep/rustRegex';
import { LINE_CUT_MARKER } from '../../../src/tools/os/grep/grepFormat';
import { vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';
import { callTool, type Harness, text, useAgent } from '../../helpers/agentHarness';
import { prng } from '../../helpers/prng';

/**
 * A differential test: seeded, generated files and patterns, searched by the Grep tool with the
 * builtin engine, with the ripgrep engine, and by raw rg. Set GREP_DIFF_SEED to replay a seed,
 * GREP_DIFF_PATTERNS for a longer run, GREP_DIFF_KEEP=<folder> to keep the files of a failed run there.
 */

const SEED = Number(process.env.GREP_DIFF_SEED ?? 20_240_610);
const PATTERNS = Number(process.env.GREP_DIFF_PATTERNS ?? 50);
const MAX_LINE_CHARS = 500;
const MODES = ['content', 'files_with_matches', 'count_matches'] as const;
type Mode = (typeof MODES)[number];

class Gen {
  constructor(readonly random: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
}

// The vocabulary of files and patterns alike, so that patterns match often.
const WORDS = ['foo', 'bar', 'Foo', 'BAR', 'baz', 'a1', '_x', '42', 'x_y', 'ab', 'abc', 'é', 'café', 'Σίσυφος', 'σς', 'ß', 'ẞ', 'straße', '日本', '😀', 'K', 'ǅ', '١٢', '\u00a0'];
const SEPARATORS = [' ', ' ', ' ', '\t', '', '-', '.', ',', '(', ')', '  '];
const INVALID = [[0xe9], [0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0x80, 0x80], [0xc0, 0xaf]];

function genLine(g: Gen): Buffer {
  if (g.chance(0.1)) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  const long = g.chance(0.05);
  const tokens = long ? g.int(100, 400) : g.int(1, 8);
  for (let i = 0; i < tokens; i++) {
    if (g.chance(0.06)) parts.push(Buffer.from(g.pick(INVALID)));
    else parts.push(Buffer.from(g.pick(WORDS)));
    parts.push(Buffer.from(g.pick(SEPARATORS)));
  }
  return Buffer.concat(parts);
}

/** A file of generated lines: LF or CRLF (or mixed), maybe no final newline, maybe a NUL (binary). */
function genFile(g: Gen): Buffer {
  const lines = Array.from({ length: g.int(0, 14) }, () => genLine(g));
  const crlf = g.pick(['lf', 'lf', 'crlf', 'mixed'] as const);
  const parts: Buffer[] = [];
  lines.forEach((line, i) => {
    parts.push(line);
    const last = i === lines.length - 1;
    if (last && g.chance(0.3)) return;
    parts.push(Buffer.from(crlf === 'crlf' || (crlf === 'mixed' && g.chance(0.5)) ? '\r\n' : '\n'));
  });
  const file = Buffer.concat(parts);
  if (g.chance(0.08) && file.length > 0) {
    const at = g.int(0, file.length - 1);
    return Buffer.concat([file.subarray(0, at), Buffer.from([0]), file.subarray(at)]);
  }
  return file;
}

interface Pattern {
  readonly pattern: string;
  readonly ci: boolean;
  readonly multiline: boolean;
}

const CLASSES = ['[abc]', '[^a-f]', '[a-zé]', '[[:alpha:]]', '[^[:space:]]', '[\\w&&[^\\d]]', '[Σσς]', '[^ ]', '[0-9_]', '[^\\x00-\\x7f]', '\\pL', '\\p{Greek}', '\\PL'];
const PERL = ['\\w', '\\W', '\\d', '\\D', '\\s', '\\S'];
const ASSERTIONS = ['^', '$', '\\A', '\\z', '\\b', '\\B', '(?-m:^)', '(?-m:$)'];

function escapeLiteral(word: string): string {
  return word.replace(/[\\.+*?()|[\]{}^$#&~-]/g, (c) => `\\${c}`);
}

/** A pattern from a grammar of the Rust syntax both engines support. */
function genPattern(g: Gen): Pattern {
  const multiline = g.chance(0.15);
  const atom = (depth: number): string => {
    const r = g.random();
    if (r < 0.3) {
      const word = g.pick(WORDS);
      return escapeLiteral(g.chance(0.3) ? Array.from(word).slice(0, g.int(1, 2)).join('') : word);
    }
    if (r < 0.42) return g.pick(CLASSES);
    if (r < 0.54) return g.pick(PERL);
    if (r < 0.62) return '.';
    if (r < 0.72) return g.pick(ASSERTIONS);
    if (r < 0.76) return escapeLiteral(g.pick(SEPARATORS) || ' ');
    if (r < 0.78) return multiline ? '\\n' : '\\t';
    if (r < 0.8) return '\\r';
    if (depth < 2) return `(${g.chance(0.3) ? '?:' : ''}${alternation(depth + 1)})`;
    return escapeLiteral(g.pick(WORDS));
  };
  const repeated = (depth: number): string => {
    const a = atom(depth);
    if (!g.chance(0.3) || /^(\^|\$|\\[AzbB]|\(\?-m:.\))$/.test(a)) return a;
    const q = g.pick(['*', '+', '?', '{2}', '{1,3}', '{0,2}', '{2,}']);
    return a + q + (g.chance(0.2) ? '?' : '');
  };
  const concat = (depth: number): string => Array.from({ length: g.int(1, 4) }, () => repeated(depth)).join('');
  const alternation = (depth: number): string => Array.from({ length: g.chance(0.25) ? g.int(2, 3) : 1 }, () => concat(depth)).join('|');
  return { pattern: alternation(0), ci: g.chance(0.25), multiline };
}

/** A file's bytes as a JavaScript string literal (ASCII; everything else as \xNN), to rebuild it. */
function bytesLiteral(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) out += b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return `'${out}'`;
}

/** Raw rg's answer in the tool's line format, unsorted: `path:n:text`, `path`, or `path:count`. */
interface RawAnswer {
  readonly content: string[];
  readonly files: string[];
  readonly counts: string[];
}

interface RgJsonText {
  readonly text?: string;
  readonly bytes?: string;
}

function jsonText(value: RgJsonText): string {
  return value.text ?? Buffer.from(value.bytes ?? '', 'base64').toString('utf8');
}

function runRg(rg: string, root: string, p: Pattern, modeArgs: readonly string[]): Promise<Buffer> {
  const args = ['--no-config', '--hidden', p.ci ? '--ignore-case' : '--case-sensitive', ...modeArgs];
  if (p.multiline) args.push('--multiline', '--multiline-dotall');
  args.push('--regexp', p.pattern, '--', './');
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(Buffer.concat(out)) : reject(new Error(`rg exited ${code}: ${stderr}`))));
  });
}

/**
 * Raw rg's answer: matching lines and files from one --json run, counts from --count-matches
 * (--json's submatches can miss a match its line search found, e.g. `(\A){2}.`).
 */
async function rawRg(rg: string, root: string, p: Pattern): Promise<RawAnswer> {
  const [json, counts] = await Promise.all([runRg(rg, root, p, ['--json']), runRg(rg, root, p, ['--count-matches', '--null', '--with-filename'])]);
  const answer: RawAnswer = { content: [], files: [], counts: [] };
  const files = new Set<string>();
  for (const line of json.toString('utf8').split('\n')) {
    if (line === '') continue;
    const event = JSON.parse(line) as { type: string; data: { path: RgJsonText; lines: RgJsonText; line_number: number } };
    if (event.type !== 'match') continue;
    const path = jsonText(event.data.path).replace(/^\.\//, '');
    files.add(path);
    const lines = jsonText(event.data.lines).replace(/\n$/, '').split('\n');
    lines.forEach((raw, i) => {
      const row = normalizeLine(event.data.line_number + i, raw, true, MAX_LINE_CHARS);
      answer.content.push(`${path}:${row.n}:${row.cut ? row.text + LINE_CUT_MARKER : row.text}`);
    });
  }
  answer.files.push(...files);
  for (const line of counts.toString('utf8').split('\n')) {
    if (line !== '') answer.counts.push(line.replace(/^\.\//, '').replace('\0', ':'));
  }
  return answer;
}

/** Whether a pattern can match the empty string (assertions aside). */
function nullable(node: RegexNode): boolean {
  switch (node.k) {
    case 'lit':
    case 'class':
    case 'dot':
      return false;
    case 'group':
      return nullable(node.child);
    case 'repeat':
      return node.min === 0 || nullable(node.child);
    case 'concat':
      return node.items.every(nullable);
    case 'alt':
      return node.items.some(nullable);
    default:
      return true;
  }
}

/** Whether a pattern has `\\A`, `\\z` or `(?-m:^)`/`(?-m:$)` (the ends of the text). */
function hasTextAnchor(node: RegexNode): boolean {
  switch (node.k) {
    case 'assert':
      return (node.kind === 'start' || node.kind === 'end') && !node.multiLine;
    case 'group':
    case 'repeat':
      return hasTextAnchor(node.child);
    case 'concat':
    case 'alt':
      return node.items.some(hasTextAnchor);
    default:
      return false;
  }
}

const sorted = (lines: readonly string[]): string[] => [...new Set(lines)].sort();

/** The tool's answer without the count header, one line per row, sorted (for raw rg's unsorted rows). */
function rows(mode: Mode, output: string): string[] {
  if (output.startsWith('No matches for')) return [];
  const lines = output.split('\n');
  return sorted(mode === 'count_matches' ? lines.slice(1) : lines);
}

describe('the builtin engine agrees with ripgrep on generated patterns and files', () => {
  const fx = useAgent({ builtins: true });
  const rg = vscodeRipgrepBinary()!;

  test(`seed ${SEED}: ${PATTERNS} patterns × 3 modes, builtin = ripgrep engine = raw rg`, async () => {
    const g = new Gen(prng(SEED));
    const files = new Map<string, Buffer>();
    for (let i = 0; i < 12; i++) files.set(`${i % 4 === 3 ? 'sub/' : ''}f${String(i).padStart(2, '0')}.txt`, genFile(g));
    for (const [rel, bytes] of files) {
      fs.mkdirSync(nodePath.dirname(nodePath.join(fx.dir, rel)), { recursive: true });
      fs.writeFileSync(nodePath.join(fx.dir, rel), bytes);
    }
    const builtin: Harness = fx.open({ config: { grep: { engine: 'builtin', maxLineChars: MAX_LINE_CHARS } } });
    const ripgrep: Harness = fx.open({ config: { grep: { engine: 'ripgrep', maxLineChars: MAX_LINE_CHARS } } });
    const failures: string[] = [];
    const patterns = Array.from({ length: PATTERNS }, () => genPattern(g));
    const compare = async (p: Pattern, index: number): Promise<void> => {
      // A small content page with context too: the engines keep only the lines a page can show, each in its own way.
      const page = { pattern: p.pattern, output_mode: 'content', head_limit: 1 + (index % 3), offset: index % 4, '-A': index % 3, '-B': (index + 1) % 2, '-i': p.ci, multiline: p.multiline };
      const [raw, paged, ...answers] = await Promise.all([
        rawRg(rg, fx.dir, p),
        Promise.all([callTool(builtin.agent, 'Grep', page), callTool(ripgrep.agent, 'Grep', page)]).then((results) => results.map(text)),
        ...MODES.map(async (mode) => {
          const input = { pattern: p.pattern, output_mode: mode, head_limit: 0, '-i': p.ci, multiline: p.multiline };
          return [text(await callTool(builtin.agent, 'Grep', input)), text(await callTool(ripgrep.agent, 'Grep', input))] as const;
        }),
      ]);
      if (paged[0] !== paged[1]) failures.push(`pattern ${JSON.stringify(p.pattern)} -i=${p.ci} multiline=${p.multiline} page ${JSON.stringify(page)}\nbuiltin engine:\n${paged[0]}\nripgrep engine:\n${paged[1]}`);
      // Deliberate (docs/tools.md): ripgrep counts empty matches at every byte offset, the builtin engine at every
      // character; and outside multiline mode it counts \A and \z matches only at the ends of the file, though they
      // match lines at the ends of every line.
      const ast = parseRustRegex(p.pattern, { caseInsensitive: p.ci, multiline: p.multiline }).ast;
      const countsDiffer = nullable(ast) || (!p.multiline && hasTextAnchor(ast));
      MODES.forEach((mode, i) => {
        if (countsDiffer && mode === 'count_matches') return;
        const [ours, theirs] = answers[i]!;
        const rawRows = sorted(mode === 'content' ? raw.content : mode === 'files_with_matches' ? raw.files : raw.counts);
        const problems: string[] = [];
        if (ours !== theirs) problems.push(`builtin engine:\n${ours}\nripgrep engine:\n${theirs}`);
        if (JSON.stringify(rows(mode, ours)) !== JSON.stringify(rawRows)) problems.push(`builtin engine rows:\n${rows(mode, ours).join('\n')}\nraw rg rows:\n${rawRows.join('\n')}`);
        if (problems.length > 0) failures.push(`pattern ${JSON.stringify(p.pattern)} -i=${p.ci} multiline=${p.multiline} mode=${mode}\n${problems.join('\n')}`);
      });
    };
    // Two patterns at a time: rg runs in other processes, so the machine's cores are used.
    for (let i = 0; i < patterns.length; i += 2) await Promise.all(patterns.slice(i, i + 2).map((p, j) => compare(p, i + j)));
    if (failures.length > 0) {
      if (process.env.GREP_DIFF_KEEP) fs.cpSync(fx.dir, process.env.GREP_DIFF_KEEP, { recursive: true });
      // The bytes of the files the shown disagreements name.
      const shown = failures.slice(0, 4).join('\n');
      const fileBytes = [...files].filter(([rel]) => shown.includes(rel)).map(([rel, bytes]) => `  ${rel}: ${bytesLiteral(bytes)}`).join('\n');
      const summary = failures.map((f) => f.split('\n')[0]).join('\n');
      throw new Error(`GREP_DIFF_SEED=${SEED}: ${failures.length} disagreement(s):\n${summary}\n\nthe first ones:\n\n${failures.slice(0, 4).join('\n\n')}\n\nfiles:\n${fileBytes}`);
    }
  }, 60_000);
});
