import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import type { GrepEngineSetting } from '../src/tools/os/osConfig';
import type { ToolExecution, ToolResult } from '../src/tool/contract';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { parseRustRegex } from '../src/tools/os/grep/rustRegex';
import { ripgrepArgs } from '../src/tools/os/grep/ripgrepEngine';
import { vscodeRipgrepBinary } from '../src/tools/os/grep/ripgrepLocator';
import { SENSITIVE_IGNORE_RULES } from '../src/tools/os/search/sensitiveIgnore';
import { ripgrepGlobArgs, ripgrepGlobThreads } from '../src/tools/os/glob/ripgrepGlob';
import { IgnoreTree } from '../src/tools/os/search/ignoreTree';
import { localSearchFs } from '../src/tools/os/search/searchPaths';
import { SMALL_FILES, searchCorpus } from './corpus';
import { HOLD_YOUNG_GENERATION_ENV } from './holdYoungGenerationFirst';
import { benchDir, buildCli, CLI, cliEnvFor, fmt, measureProcess, median, nowMs, table } from './util';

/** Runs rg and waits for it, reading (and dropping) its output as the engine would read it. */
export function runRg(rg: string, args: readonly string[], cwd: string): Promise<{ ms: number; bytes: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.on('error', reject);
    child.on('close', () => resolve({ ms: nowMs() - start, bytes, lines }));
  });
}

interface Case {
  readonly label: string;
  readonly pattern: string;
  readonly ci: boolean;
}

const GREP_CASES: readonly Case[] = [
  { label: 'rare literal', pattern: 'XMLHttpRequestUpload', ci: false },
  { label: 'common literal', pattern: 'require\\(', ci: false },
  { label: 'case-insensitive regex', pattern: 'class\\s+\\w+error', ci: true },
  { label: 'rare regex', pattern: 'function\\s+\\w+Sync\\(', ci: false },
];

const RUNS = 7;

export async function runTool(tool: { resolveExecution(input: never): ToolExecution | Promise<ToolExecution> }, input: Record<string, unknown>): Promise<{ ms: number; result: ToolResult }> {
  const start = nowMs();
  const execution = await tool.resolveExecution(input as never);
  if (execution.isError) throw new Error(String(execution.output));
  const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
  return { ms: nowMs() - start, result };
}

/** The median of the ratios of runs made back to back: steadier than a ratio of medians on a noisy machine. */
export function pairedRatio(ours: readonly number[], raw: readonly number[]): number {
  return median(ours.map((t, i) => t / raw[i]!));
}

function firstLine(result: ToolResult): string {
  return typeof result.output === 'string' ? result.output.split('\n')[0]!.slice(0, 60) : '';
}

export async function grepBench(): Promise<void> {
  const rg = vscodeRipgrepBinary();
  if (!rg) {
    console.log('\n## Grep: skipped, @vscode/ripgrep has no binary for this platform');
    return;
  }
  const { root, files } = searchCorpus();
  console.log(`\n## Grep, output_mode content, on ${files.toLocaleString('en')} files (${root}); rg = ${rg}`);
  console.log(`median of ${RUNS} runs after one warm-up, alternating raw rg and the tool (ratio: median of the back-to-back ratios); raw rg = the same binary, the same flags, output read from a pipe and dropped`);
  const ignoreFile = nodePath.join(benchDir(), 'sensitive.ignore');
  fs.writeFileSync(ignoreFile, SENSITIVE_IGNORE_RULES);
  const rows: string[][] = [];
  const ratios: string[] = [];
  // GREP_BENCH_ENGINES=builtin (or ripgrep) runs one engine's cases only.
  const engines = (process.env.GREP_BENCH_ENGINES ?? 'ripgrep,builtin').split(',') as GrepEngineSetting[];
  for (const engine of engines) {
    const app = createApp({ features: builtinFeatures(), config: { grep: { engine } } });
    const agent = app.createAgent({ cwd: root });
    const tool = agent.registry.get('Grep')!.tool;
    for (const c of GREP_CASES) {
      const regex = parseRustRegex(c.pattern, { caseInsensitive: c.ci, multiline: false });
      const args = ripgrepArgs(
        { root, regex, mode: 'content', before: 0, after: 0, includeIgnored: false, maxLineChars: 500 },
        { ignoreFile, insideRepository: true },
      );
      const input = { pattern: c.pattern, output_mode: 'content', ...(c.ci ? { '-i': true } : {}) };
      await runRg(rg, args, root);
      await runTool(tool, input);
      const raw: number[] = [];
      const ours: number[] = [];
      let lines = 0;
      let head = '';
      let capped = false;
      for (let i = 0; i < RUNS; i++) {
        const r = await runRg(rg, args, root);
        raw.push(r.ms);
        lines = r.lines;
        const t = await runTool(tool, input);
        ours.push(t.ms);
        head = firstLine(t.result);
        capped ||= typeof t.result.output === 'string' && t.result.output.startsWith('Grep stopped after collecting');
      }
      const ratio = pairedRatio(ours, raw);
      // A capped search stopped early: timing it against rg's full run would flatter it.
      const shown = capped ? 'not comparable (the tool capped its result)' : `${fmt(ratio)}x`;
      rows.push([`${engine} engine: ${c.label} /${c.pattern}/${c.ci ? 'i' : ''}`, fmt(median(raw), 0), fmt(median(ours), 0), capped ? 'CAPPED' : `${fmt(ratio)}x`, String(lines), head]);
      ratios.push(`${engine} engine / raw rg, ${c.label}: ${shown} (aim: ${engine === 'ripgrep' ? 'within 1.15x' : 'within 3x'})`);
    }
    await app.dispose();
  }
  console.log(table(['case', 'raw rg ms', 'Grep ms', 'ratio', 'rg lines out', 'first line of the Grep result'], rows));
  for (const ratio of ratios) console.log(ratio);
}

const RSS_CASES: readonly Case[] = [GREP_CASES[0]!, GREP_CASES[1]!, GREP_CASES[2]!];
const RSS_RUNS = 3;

/**
 * Whole-process peak RSS of one builtin-engine Grep (content mode) over the corpus, in a fresh
 * process (bench/grepChild.ts: the library, every builtin feature, one agent), with and without
 * the young-generation hold a host may take (src/base/youngGeneration.ts), next to an idle `node
 * -e 0`, the same process searching nothing (its floor), the same call through `toolhost run`
 * (the bundled CLI, with its launcher's heap settings, and without its young-generation hold),
 * raw rg with the same flags, and the ripgrep engine's Grep.
 */
export async function grepRssBench(): Promise<void> {
  const rg = vscodeRipgrepBinary();
  if (!rg) {
    console.log('\n## Grep peak RSS: skipped, @vscode/ripgrep has no binary for this platform');
    return;
  }
  const { root, files } = searchCorpus();
  const child = nodePath.join(__dirname, 'grepChild.js');
  const ignoreFile = nodePath.join(benchDir(), 'sensitive.ignore');
  fs.writeFileSync(ignoreFile, SENSITIVE_IGNORE_RULES);
  console.log(`\n## Grep whole-process peak RSS (MiB, /usr/bin/time %M, median of ${RSS_RUNS}), output_mode content, on ${files.toLocaleString('en')} files (${root})`);
  const peak = async (command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ mb: number; ms: number }> => {
    const runs = [];
    for (let i = 0; i < RSS_RUNS; i++) runs.push(await measureProcess(command, args, env));
    if (runs.some((r) => r.peakRssMb === undefined)) throw new Error('/usr/bin/time is needed to measure peak RSS');
    return { mb: median(runs.map((r) => r.peakRssMb!)), ms: median(runs.map((r) => r.wallMs)) };
  };
  buildCli();
  const cliConfig = nodePath.join(benchDir(), 'grep-builtin.json');
  fs.writeFileSync(cliConfig, JSON.stringify({ grep: { engine: 'builtin' } }));
  const idle = await peak(process.execPath, ['-e', '0']);
  const rest = await peak(process.execPath, [child, root, 'builtin', 'content', 'x', 'rest']);
  const rows: string[][] = [
    ['node -e 0', fmt(idle.mb, 0), '', fmt(idle.ms, 0), ''],
    ['toolhost loaded, one agent, no search (the floor of the rows below)', fmt(rest.mb, 0), `${fmt(rest.mb / idle.mb)}x node -e 0`, fmt(rest.ms, 0), ''],
  ];
  for (const c of RSS_CASES) {
    const regex = parseRustRegex(c.pattern, { caseInsensitive: c.ci, multiline: false });
    const args = ripgrepArgs({ root, regex, mode: 'content', before: 0, after: 0, includeIgnored: false, maxLineChars: 500 }, { ignoreFile, insideRepository: true });
    // rg runs on the corpus path rather than in it (measureProcess has no cwd); its memory is the same.
    const raw = await peak(rg, [...args.slice(0, -1), root]);
    const ours = await peak(process.execPath, [child, root, 'builtin', 'content', c.pattern, c.ci ? 'i' : '']);
    rows.push([`raw rg: ${c.label}`, fmt(raw.mb, 0), '', fmt(raw.ms, 0), '']);
    // The ripgrep engine, which Grep uses when rg is found (grep.engine auto). /usr/bin/time gives the
    // largest process of the tree, Node's here; rg's own peak is the raw rg row.
    const viaRg = await peak(process.execPath, [child, root, 'ripgrep', 'content', c.pattern, c.ci ? 'i' : '']);
    const batch = nodePath.join(benchDir(), 'grep-batch.json');
    fs.writeFileSync(batch, JSON.stringify([{ name: 'Grep', arguments: { pattern: c.pattern, output_mode: 'content', ...(c.ci ? { '-i': true } : {}) } }]));
    const viaCli = await peak(process.execPath, [CLI, 'run', '--cwd', root, '--config', cliConfig, batch]);
    const ownYoung = ['--max-semi-space-size=16'];
    const viaCliOwnYoung = await peak(process.execPath, [...ownYoung, CLI, 'run', '--cwd', root, '--config', cliConfig, batch], cliEnvFor(ownYoung));
    const held = await peak(process.execPath, [child, root, 'builtin', 'content', c.pattern, c.ci ? 'i' : ''], { ...process.env, [HOLD_YOUNG_GENERATION_ENV]: '1' });
    rows.push([`builtin Grep: ${c.label} /${c.pattern}/${c.ci ? 'i' : ''}`, fmt(ours.mb, 0), `${fmt(ours.mb / idle.mb)}x node -e 0`, fmt(ours.ms, 0), '']);
    rows.push([`builtin Grep: ${c.label}, the host holding the young generation`, fmt(held.mb, 0), `${fmt(held.mb / idle.mb)}x node -e 0`, fmt(held.ms, 0), '']);
    rows.push([`builtin Grep: ${c.label}, through toolhost run`, fmt(viaCli.mb, 0), `${fmt(viaCli.mb / idle.mb)}x node -e 0`, fmt(viaCli.ms, 0), 'aim: at most 120 MiB']);
    rows.push([`builtin Grep: ${c.label}, through toolhost run, V8's own young generation`, fmt(viaCliOwnYoung.mb, 0), `${fmt(viaCliOwnYoung.mb / idle.mb)}x node -e 0`, fmt(viaCliOwnYoung.ms, 0), '']);
    rows.push([`ripgrep-engine Grep: ${c.label} (Node's process)`, fmt(viaRg.mb, 0), `${fmt(viaRg.mb / idle.mb)}x node -e 0`, fmt(viaRg.ms, 0), '']);
  }
  console.log(table(['process', 'peak RSS MiB', 'ratio', 'wall ms', ''], rows));
}

/**
 * The least any newest-first Glob over rg can do: rg with the tool's own flags (hidden files, the
 * VCS folders left out, the pattern as a file type so ignore files keep their say), and one
 * statSync per path it prints, nothing else (no secrets check, no page, no tool call).
 */
async function rgFilesAndStat(rg: string, root: string, nameGlob: string): Promise<{ ms: number; last: string }> {
  const start = nowMs();
  const tree = await IgnoreTree.open(root, localSearchFs, { enabled: true });
  const args = ripgrepGlobArgs({ type: nameGlob }, { includeIgnored: false, insideRepository: tree.insideRepository, ancestorRules: tree.ancestorRulesApply, threads: ripgrepGlobThreads() });
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let rest = '';
    let stamped = 0;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      const paths = (rest + text).split('\0');
      rest = paths.pop()!;
      for (const rel of paths) if (fs.statSync(`${root}/${rel.slice(2)}`, { throwIfNoEntry: false })) stamped++;
    });
    child.on('error', reject);
    child.on('close', () => resolve({ ms: nowMs() - start, last: `${stamped} paths stat-ed` }));
  });
}

/** The first Glob call of a fresh process (bench/globChild.ts), timed inside it. */
async function coldGlob(cwd: string, engine: GrepEngineSetting, pattern: string): Promise<{ ms: number; last: string }> {
  const { stdout } = await measureProcess(process.execPath, [nodePath.join(__dirname, 'globChild.js'), cwd, engine, pattern]);
  return JSON.parse(stdout) as { ms: number; last: string };
}

export async function globBench(): Promise<void> {
  const rg = vscodeRipgrepBinary();
  if (!rg) {
    console.log('\n## Glob: skipped, @vscode/ripgrep has no binary for this platform');
    return;
  }
  const { root, small, files } = searchCorpus();
  const pattern = '**/*.ts';
  const args = ['--no-config', '--files', '-g', '*.ts'];
  console.log(`\n## Glob ${pattern} on ${files.toLocaleString('en')} files (${root}) and on a ${SMALL_FILES}-file folder`);
  console.log(
    `${RUNS} rounds after one warm-up (20 for the small folder); each round runs the baseline and then every variant back to back, ` +
      'and a ratio is the median of the per-round ratios. Baseline = spawning rg --files -g GLOB and splitting its output. ' +
      'Glob runs with grep.engine auto (rg walks when the pattern needs the whole tree) and builtin (our own walk); ' +
      'warm = a later call of one App, cold = the first call of a fresh process (page cache not dropped); ' +
      'floor = rg with the flags Glob gives it plus one statSync per path (what newest-first order needs), nothing else.',
  );
  const engines = ['auto', 'builtin'] as const;
  const apps = Object.fromEntries(engines.map((engine) => [engine, createApp({ features: builtinFeatures(), config: { grep: { engine } } })]));
  const rows: string[][] = [];
  const ratios: string[] = [];
  for (const [label, cwd, runs, aim, cold] of [
    ['corpus', root, RUNS, 'within 1.5x', true],
    [`${SMALL_FILES}-file folder`, small, 20, 'at least 5x faster, i.e. at most 0.20x', false],
  ] as const) {
    const variants: Array<{ name: string; run: () => Promise<{ ms: number; last: string }> }> = [];
    const agents = [];
    for (const engine of engines) {
      const agent = apps[engine]!.createAgent({ cwd });
      agents.push(agent);
      const tool = agent.registry.get('Glob')!.tool;
      variants.push({
        name: `Glob, ${engine}, warm`,
        run: async () => {
          const t = await runTool(tool, { pattern });
          return { ms: t.ms, last: typeof t.result.output === 'string' ? t.result.output.split('\n').pop()! : '' };
        },
      });
      if (cold) variants.push({ name: `Glob, ${engine}, cold`, run: () => coldGlob(cwd, engine, pattern) });
    }
    if (cold) variants.push({ name: 'floor: rg with the tool\'s flags + one statSync per path', run: () => rgFilesAndStat(rg, cwd, '*.ts') });
    await runRg(rg, args, cwd);
    for (const variant of variants) await variant.run();
    const raw: number[] = [];
    const ours = variants.map(() => [] as number[]);
    const lasts = variants.map(() => '');
    let count = 0;
    for (let i = 0; i < runs; i++) {
      const r = await runRg(rg, args, cwd);
      raw.push(r.ms);
      count = r.lines;
      for (const [j, variant] of variants.entries()) {
        const t = await variant.run();
        ours[j]!.push(t.ms);
        lasts[j] = t.last;
      }
    }
    rows.push([`rg --files -g '*.ts', ${label}`, fmt(median(raw), 1), '', String(count)]);
    for (const [j, variant] of variants.entries()) {
      const ratio = pairedRatio(ours[j]!, raw);
      rows.push([`${variant.name}, ${label}`, fmt(median(ours[j]!), 1), `${fmt(ratio)}x`, lasts[j]!.slice(0, 70)]);
      const floor = variant.name.startsWith('floor');
      ratios.push(`${variant.name} / spawned rg --files, ${label}: ${fmt(ratio)}x (${floor ? 'no aim: what a newest-first listing over rg costs at least' : `aim: ${aim}`})`);
    }
    for (const agent of agents) await agent.dispose();
  }
  for (const app of Object.values(apps)) await app.dispose();
  console.log(table(['case', 'ms (median)', 'ratio', 'paths / last line of the result'], rows));
  for (const ratio of ratios) console.log(ratio);
}
