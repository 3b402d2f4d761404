import { spawnSync } from 'node:child_process';
import { vscodeRipgrepBinary } from '../../../../src/tools/os/grep/ripgrepLocator';
import { listGlobWithRipgrep, ripgrepCanWalk } from '../../../../src/tools/os/glob/ripgrepGlob';
import { compileGlobPattern } from '../../../../src/tools/os/search/searchGlob';
import { VCS_DIR_NAMES } from '../../../../src/tools/os/search/ignoreTree';
import { isSensitivePath } from '../../../../src/tool/sensitivePaths';
import { type App, createApp } from '../../../../src/scopes/appScope';
import type { Agent } from '../../../../src/scopes/agentScope';
import { builtinFeatures } from '../../../../src/scopes/builtinFeatures';
import { callTool } from '../../../helpers/agentHarness';
import { makeTempDir, removeDir, writeFiles } from '../../../helpers/tempDir';
import { prng } from '../../../helpers/prng';

/**
 * Generated trees and ignore files, listed by Glob and by both Grep engines, against git
 * (`git ls-files --others --cached --exclude-standard`) and rg itself; and generated globs (Glob's
 * `pattern`, Grep's `glob`) against `rg --files -g`. Seeded: set TOOLHOST_IGNORE_SEED to replay
 * a failure; the message of a failure names the seed, the tree and its ignore files.
 *
 * The tools must always list what rg lists. git reads a few constructs differently from rg
 * (docs/tools.md, "Where git and ripgrep disagree"); trees whose ignore files use one of them are
 * compared with rg only, and the generator says so (gitComparable).
 */
const SEED = Number(process.env.TOOLHOST_IGNORE_SEED ?? 0x5eed10);
const TREES = 30;
const PATTERNS = 80;
const MARK = 'MARK';
const rg = vscodeRipgrepBinary();

type Random = () => number;
const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const chance = (rnd: Random, p: number): boolean => rnd() < p;

const FILE_NAMES = [
  'a.txt', 'b.log', 'c.ts', 'd.md', 'keep.log', 'y', 'build.txt', 'out.js', 'A.TXT', '.hidden', 'dot.d.ts',
  'b(2).txt', 'd|e.txt', '[x].txt', '{y}.txt', 'a,b.txt', 'f!g', '#h', 'sp ace.txt', ' lead', 'q?.txt', 'st*r',
  'ü.txt', 'é', '日本.md', 'naïve.ts', 'ab', 'abc', 'bx', 'a-b', 'back\\slash', 'x]y',
];
const DIR_NAMES = ['src', 'build', 'docs', 'lib', 'sub', 'x', 'node_modules', 'a b', 'ü', 'p(1)', 'q|r', '[d]', '{e}', 'deep'];

/** A glob of one name: the name itself, escaped, or with wildcards and classes in it. */
const escapeChar = (c: string): string => c.replace(/[\\*?[\]{}!#,]/g, (s) => `\\${s}`);

function nameGlob(rnd: Random, name: string, flags: Set<string>, gitSafe = false): string {
  const escaped = Array.from(name).map(escapeChar).join('');
  const chars = Array.from(name);
  let kind = Math.floor(rnd() * 9);
  // Without the constructs git reads differently: braces, negated sets.
  if (gitSafe && (kind === 5 || kind === 6 || (kind === 1 && /[{}]/.test(name)))) kind = 0;
  switch (kind) {
    case 0:
      return escaped;
    case 1:
      // Raw: special characters are glob syntax here.
      if (/[{}]/.test(name)) flags.add('braces');
      if (/\[[^\]]*\\/.test(name)) flags.add('backslash in class');
      if (/\[/.test(name) && !/\[.*\]/.test(name)) flags.add('unclosed class');
      if (/\\$/.test(name)) return escaped;
      return name.startsWith('!') || name.startsWith('#') ? `\\${name}` : name;
    case 2: {
      const ext = name.lastIndexOf('.');
      return ext > 0 ? `*${escaped.slice(escaped.lastIndexOf('.'))}` : '*';
    }
    case 3: {
      const at = Math.floor(rnd() * chars.length);
      return chars.map((c, i) => (i === at ? '?' : c.replace(/[\\*?[\]{}!#,]/g, (s) => `\\${s}`))).join('').replace(/^!/, '\\!');
    }
    case 4: {
      const at = Math.floor(rnd() * chars.length);
      const c = chars[at]!;
      if (c === '/' || c === '\\' || c === ']' || c === '[' || c === '!' || c === '^' || c === '-') return escaped;
      const cls = pick(rnd, [`[${c}x]`, `[a-${c > 'a' ? c : 'z'}]`, `[]${c}]`]);
      return chars.map((ch, i) => (i === at ? cls : ch.replace(/[\\*?[\]{}!#,]/g, (s) => `\\${s}`))).join('').replace(/^#/, '\\#');
    }
    case 5: {
      flags.add('negated class');
      const at = Math.floor(rnd() * chars.length);
      return chars.map((ch, i) => (i === at ? pick(rnd, ['[!q]', '[^q]']) : ch.replace(/[\\*?[\]{}!#,]/g, (s) => `\\${s}`))).join('');
    }
    case 6:
      flags.add('braces');
      return `{${escaped},zz}`;
    case 7:
      return `${escapeChar(chars[0]!)}*`;
    default:
      return `*${escapeChar(chars[chars.length - 1]!)}`;
  }
}

interface Tree {
  readonly files: Record<string, string>;
  /** No construct git and rg read differently (the documented list). */
  readonly gitComparable: boolean;
  readonly flags: readonly string[];
}

function generateTree(rnd: Random): Tree {
  const files: Record<string, string> = {};
  const dirs = [''];
  for (let i = 0, n = 3 + Math.floor(rnd() * 5); i < n; i++) {
    const parent = pick(rnd, dirs);
    if (parent.split('/').length > 3) continue;
    const dir = `${parent}${pick(rnd, DIR_NAMES)}/`;
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  for (const dir of dirs) {
    for (let i = 0, n = 1 + Math.floor(rnd() * 5); i < n; i++) files[dir + pick(rnd, FILE_NAMES)] = `${MARK}\n`;
  }
  const flags = new Set<string>();
  const gitSafe = chance(rnd, 0.5);
  const paths = Object.keys(files);
  for (const dir of dirs.filter((d) => d === '' || chance(rnd, 0.3))) {
    const lines: string[] = [];
    const below = paths.filter((p) => p.startsWith(dir)).map((p) => p.slice(dir.length));
    for (let i = 0, n = 1 + Math.floor(rnd() * 5); i < n; i++) {
      const rel = pick(rnd, below);
      const segments = rel.split('/');
      // A folder of the path or the file itself.
      const cut = 1 + Math.floor(rnd() * segments.length);
      const isFolder = cut < segments.length;
      const part = segments.slice(0, cut).map((s) => nameGlob(rnd, s, flags, gitSafe));
      let line: string;
      switch (Math.floor(rnd() * 6)) {
        case 0:
          line = `/${part.join('/')}`;
          break;
        case 1:
          line = `**/${part[part.length - 1]}`;
          break;
        case 2:
          line = part.length > 1 ? `${part[0]}/**/${part[part.length - 1]}` : `${part[0]}/**`;
          break;
        default:
          line = part.length > 1 && chance(rnd, 0.5) ? part.join('/') : part[part.length - 1]!;
      }
      if (isFolder && chance(rnd, 0.5)) line += '/';
      if (chance(rnd, 0.2)) line = `!${line.replace(/^\\!/, '!')}`;
      if (chance(rnd, 0.1)) line += '   ';
      lines.push(line);
    }
    if (chance(rnd, 0.2)) lines.push('', '# a comment');
    // A comment with the mark: Grep lists the ignore files too.
    files[`${dir}.gitignore`] = `# ${MARK}\n${lines.join('\n')}\n`;
  }
  return { files, gitComparable: flags.size === 0, flags: [...flags] };
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** Paths from NUL-separated output, without `./`, secrets left out (no tool lists them). */
function pathSet(output: string): string[] {
  return output
    .split('\0')
    .filter(Boolean)
    .map((p) => p.replace(/^\.\//, ''))
    .filter((p) => !isSensitivePath(p))
    .sort();
}

function gitFiles(root: string): string[] {
  return pathSet(run('git', ['ls-files', '-z', '--others', '--cached', '--exclude-standard'], root));
}

function rgFiles(root: string, glob?: string): string[] | 'error' {
  const args = ['--no-config', '--files', '--null', '--hidden', '--no-ignore-global'];
  for (const vcs of VCS_DIR_NAMES) args.push('-g', `!${vcs}`);
  if (glob !== undefined) args.push('-g', glob);
  const result = spawnSync(rg!, [...args, './'], { cwd: root, encoding: 'utf8' });
  if (result.status === 2) return 'error';
  return pathSet(result.stdout);
}

/** The paths of a Glob or Grep result (one per line), or 'error'. */
async function toolFiles(agent: Agent, name: 'Glob' | 'Grep', input: Record<string, unknown>): Promise<string[] | 'error'> {
  const result = await callTool(agent, name, input);
  if (result.isError) return 'error';
  const output = String(result.output);
  if (/^No (files match|matches for)/.test(output)) return [];
  return output.split('\n').sort();
}

/**
 * What Glob lists when rg walks (ripgrepGlob.ts): the tool hands only big trees to rg, so the
 * walk is called directly here; 'skip' for a pattern rg does not walk for.
 */
async function rgWalkFiles(root: string, pattern: string): Promise<string[] | 'error' | 'skip'> {
  const compiled = compileGlobPattern(pattern, root);
  if ('error' in compiled) return 'error';
  if (!ripgrepCanWalk(compiled)) return 'skip';
  const listing = await listGlobWithRipgrep(rg!, root, compiled, { includeIgnored: false, signal: new AbortController().signal });
  if (!listing) throw new Error(`rg refused the walk for ${JSON.stringify(pattern)}`);
  return [...listing.files].sort();
}

async function mustWalk(root: string, pattern: string): Promise<string[] | 'error'> {
  const files = await rgWalkFiles(root, pattern);
  if (files === 'skip') throw new Error(`rg does not walk for ${JSON.stringify(pattern)}`);
  return files;
}

function describeTree(seed: number, index: number, tree: Tree): string {
  const ignoreFiles = Object.entries(tree.files).filter(([p]) => p.endsWith('.gitignore'));
  return [
    `seed ${seed} (TOOLHOST_IGNORE_SEED=${seed}), tree ${index}${tree.gitComparable ? '' : ` (rg only: ${tree.flags.join(', ')})`}`,
    'files:',
    ...Object.keys(tree.files).sort().map((p) => `  ${JSON.stringify(p)}`),
    ...ignoreFiles.flatMap(([p, text]) => [`${p}:`, ...text.split('\n').map((l) => `  ${JSON.stringify(l)}`)]),
  ].join('\n');
}

function expectSame(what: string, actual: string[] | 'error', expected: string[] | 'error', context: () => string): void {
  if (JSON.stringify(actual) === JSON.stringify(expected)) return;
  const extra = Array.isArray(actual) && Array.isArray(expected) ? actual.filter((p) => !expected.includes(p)) : actual;
  const missing = Array.isArray(actual) && Array.isArray(expected) ? expected.filter((p) => !actual.includes(p)) : expected;
  throw new Error(`${what} differs.\nextra: ${JSON.stringify(extra)}\nmissing: ${JSON.stringify(missing)}\n${context()}`);
}

const withRg = rg ? describe : describe.skip;

/** One App per Grep engine for every tree (an App starts its worker threads once). */
const apps: { builtin?: App; ripgrep?: App } = {};
beforeAll(() => {
  apps.builtin = createApp({ features: builtinFeatures(), config: { grep: { engine: 'builtin' } } });
  apps.ripgrep = createApp({ features: builtinFeatures(), config: { grep: { engine: 'ripgrep' } } });
});
afterAll(async () => {
  await apps.builtin?.dispose();
  await apps.ripgrep?.dispose();
});

/** An agent of each engine's App in `root`, for `use`. */
async function withAgents(root: string, use: (builtin: Agent, ripgrep: Agent) => Promise<void>): Promise<void> {
  const builtin = apps.builtin!.createAgent({ cwd: root });
  const ripgrep = apps.ripgrep!.createAgent({ cwd: root });
  try {
    await use(builtin, ripgrep);
  } finally {
    await builtin.dispose();
    await ripgrep.dispose();
  }
}

withRg('ignore files: Glob and both Grep engines against git and rg (generated trees)', () => {
  test(`${TREES} trees from seed ${SEED}`, async () => {
    const rnd = prng(SEED);
    let gitCompared = 0;
    for (let index = 0; index < TREES; index++) {
      const tree = generateTree(rnd);
      const root = makeTempDir('toolhost-ignore-diff-');
      try {
        writeFiles(root, tree.files);
        run('git', ['init', '-q'], root);
        const context = () => describeTree(SEED, index, tree);
        const expected = rgFiles(root);
        if (tree.gitComparable) {
          gitCompared++;
          expectSame('rg --files against git ls-files', expected, gitFiles(root), context);
        }
        const grep = { pattern: MARK, output_mode: 'files_with_matches', head_limit: 0 };
        await withAgents(root, async (builtin, ripgrep) => {
          expectSame('Glob **', await toolFiles(builtin, 'Glob', { pattern: '**', limit: 1000 }), expected, context);
          expectSame('Glob **/*', await toolFiles(builtin, 'Glob', { pattern: '**/*', limit: 1000 }), expected, context);
          expectSame('Glob ** (rg walk)', await mustWalk(root, '**'), expected, context);
          expectSame('Glob *.txt (rg walk, a file type)', await mustWalk(root, '*.txt'), expected === 'error' ? expected : expected.filter((p) => p.endsWith('.txt')), context);
          expectSame('Grep (builtin engine)', await toolFiles(builtin, 'Grep', grep), expected, context);
          expectSame('Grep (ripgrep engine)', await toolFiles(ripgrep, 'Grep', grep), expected, context);
        });
      } finally {
        removeDir(root);
      }
    }
    // The generator must leave enough trees without the documented disagreements.
    expect(gitCompared).toBeGreaterThan(TREES / 4);
  }, 120_000);
});

/** A glob over the names of the pattern tree, in the constructs of globRegex.ts. */
function generateGlob(rnd: Random, paths: readonly string[]): string {
  const segments = pick(rnd, paths).split('/');
  const flags = new Set<string>();
  const depth = 1 + Math.floor(rnd() * segments.length);
  const part = segments.slice(segments.length - depth).map((s) => nameGlob(rnd, s, flags));
  switch (Math.floor(rnd() * 8)) {
    case 0:
      return `**/${part.join('/')}`;
    case 1:
      return part.length > 1 ? `${part[0]}/**/${part[part.length - 1]}` : `${part[0]}/**`;
    case 2:
      return pick(rnd, ['*', '**', '**/*', '*/*', '?', '??*', '[!a]*', '*.{ts,md}', '{src,lib}/**', '[', 'a[', '{a', 'a}', '[z-a]', '*\\']);
    case 3:
      return `/${part.join('/')}`;
    default:
      return part.join('/');
  }
}

withRg('globs: Glob pattern and Grep glob against rg --files -g (generated)', () => {
  let root = '';
  beforeAll(() => {
    root = makeTempDir('toolhost-glob-diff-');
    const files: Record<string, string> = {};
    for (const dir of ['', ...DIR_NAMES.map((d) => `${d}/`), 'src/deep/', 'a b/ü/', 'p(1)/q|r/']) {
      for (const name of FILE_NAMES) files[dir + name] = `${MARK}\n`;
    }
    writeFiles(root, files);
  });
  afterAll(() => removeDir(root));

  test(`${PATTERNS} globs from seed ${SEED}`, async () => {
    const rnd = prng(SEED);
    const paths = (rgFiles(root) as string[]).filter((p) => !p.includes('\\'));
    expect(paths.length).toBeGreaterThan(300);
    let nonEmpty = 0;
    await withAgents(root, async (builtin, ripgrep) => {
      for (let i = 0; i < PATTERNS; i++) {
        const glob = generateGlob(rnd, paths);
        const context = () => `seed ${SEED} (TOOLHOST_IGNORE_SEED=${SEED}), glob ${i}: ${JSON.stringify(glob)} in a tree of every name in every folder`;
        const expected = rgFiles(root, glob);
        if (Array.isArray(expected) && expected.length > 0) nonEmpty++;
        // Glob takes `./x` for a pattern anchored to the search folder (`/x` would be an absolute path).
        const pattern = glob.startsWith('/') ? `.${glob}` : glob;
        const listed = await toolFiles(builtin, 'Glob', { pattern, limit: 1000 });
        expectSame('Glob pattern', listed, expected, context);
        const walked = await rgWalkFiles(root, pattern);
        if (walked !== 'skip') expectSame('Glob pattern (rg walk)', walked, listed, context);
        const grep = { pattern: MARK, output_mode: 'files_with_matches', head_limit: 0, glob };
        expectSame('Grep glob (builtin engine)', await toolFiles(builtin, 'Grep', grep), expected, context);
        if (i % 4 === 0) expectSame('Grep glob (ripgrep engine)', await toolFiles(ripgrep, 'Grep', grep), expected, context);
      }
    });
    expect(nonEmpty).toBeGreaterThan(PATTERNS / 2);
  }, 120_000);
});
