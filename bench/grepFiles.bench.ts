import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../src/scopes/appScope';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { parseRustRegex } from '../src/tools/os/grep/rustRegex';
import { ripgrepArgs } from '../src/tools/os/grep/ripgrepEngine';
import { vscodeRipgrepBinary } from '../src/tools/os/grep/ripgrepLocator';
import { SENSITIVE_IGNORE_RULES } from '../src/tools/os/search/sensitiveIgnore';
import { searchCorpus } from './corpus';
import { pairedRatio, runRg, runTool } from './search.bench';
import { benchDir, fmt, median, table } from './util';

const CASES = [
  { label: 'rare literal', pattern: 'XMLHttpRequestUpload', ci: false },
  { label: 'common literal', pattern: 'require\\(', ci: false },
  { label: 'case-insensitive regex', pattern: 'class\\s+\\w+error', ci: true },
] as const;

const RUNS = 7;

/**
 * Grep in files_with_matches mode with the ripgrep engine, against plain `rg -l` with the same flags
 * otherwise (the same binary, ignore rules and globs). A result the tool capped is reported as such:
 * timing a partial result against a full one would flatter us.
 */
export async function grepFilesBench(): Promise<void> {
  const rg = vscodeRipgrepBinary();
  if (!rg) {
    console.log('\n## Grep files_with_matches: skipped, @vscode/ripgrep has no binary for this platform');
    return;
  }
  const { root, files } = searchCorpus();
  console.log(`\n## Grep files_with_matches (ripgrep engine) on ${files.toLocaleString('en')} files (${root}); rg = ${rg}`);
  console.log(`median of ${RUNS} runs after one warm-up, alternating plain rg -l and the tool (ratio: median of the back-to-back ratios)`);
  const ignoreFile = nodePath.join(benchDir(), 'sensitive.ignore');
  fs.writeFileSync(ignoreFile, SENSITIVE_IGNORE_RULES);
  const app = createApp({ features: builtinFeatures(), config: { grep: { engine: 'ripgrep' } } });
  const agent = app.createAgent({ cwd: root });
  const tool = agent.registry.get('Grep')!.tool;
  const rows: string[][] = [];
  const ratios: string[] = [];
  for (const c of CASES) {
    const regex = parseRustRegex(c.pattern, { caseInsensitive: c.ci, multiline: false });
    const args = ripgrepArgs(
      { root, regex, mode: 'files_with_matches', before: 0, after: 0, includeIgnored: false, maxLineChars: 500 },
      { ignoreFile, insideRepository: true },
    )
      .filter((arg) => arg !== '--null')
      .map((arg) => (arg === '--count' ? '--files-with-matches' : arg));
    if (!args.includes('--files-with-matches')) args.splice(args.indexOf('--regexp'), 0, '--files-with-matches');
    // The tool adds --no-ignore-parent when no ignore file above the corpus applies (none does):
    // a second baseline with it shows the tool's own overhead apart from what that flag saves rg.
    const sameFlags = [...args.slice(0, args.indexOf('--regexp')), '--no-ignore-parent', ...args.slice(args.indexOf('--regexp'))];
    const input = { pattern: c.pattern, output_mode: 'files_with_matches', ...(c.ci ? { '-i': true } : {}) };
    await runRg(rg, args, root);
    await runTool(tool, input);
    const raw: number[] = [];
    const rawSameFlags: number[] = [];
    const ours: number[] = [];
    let rgFiles = 0;
    let capped = false;
    let summary = '';
    for (let i = 0; i < RUNS; i++) {
      const r = await runRg(rg, args, root);
      raw.push(r.ms);
      rgFiles = r.lines;
      rawSameFlags.push((await runRg(rg, sameFlags, root)).ms);
      const t = await runTool(tool, input);
      ours.push(t.ms);
      const text = typeof t.result.output === 'string' ? t.result.output : '';
      capped ||= text.includes('Grep stopped after collecting');
      summary = /of ([\d,]+)\. Use offset/.exec(text)?.[1] ?? String(text.split('\n').length);
    }
    const ratio = pairedRatio(ours, raw);
    rows.push([`${c.label} /${c.pattern}/${c.ci ? 'i' : ''}`, fmt(median(raw), 0), fmt(median(ours), 0), `${fmt(ratio)}x`, String(rgFiles), summary, capped ? 'CAPPED: partial result, ratio not comparable' : 'complete']);
    ratios.push(`Grep files_with_matches (ripgrep engine) / rg -l, ${c.label}: ${capped ? 'not comparable (the tool capped its result)' : `${fmt(ratio)}x`} (aim: within 1.15x)`);
    ratios.push(`  the same against rg -l --no-ignore-parent (the tool's own flags): ${fmt(pairedRatio(ours, rawSameFlags))}x`);
  }
  await agent.dispose();
  await app.dispose();
  console.log(table(['case', 'rg -l ms', 'Grep ms', 'ratio', 'rg files', 'Grep files', 'result'], rows));
  for (const ratio of ratios) console.log(ratio);
}
