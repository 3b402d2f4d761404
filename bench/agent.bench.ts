import * as nodePath from 'node:path';
import { fmt, measureProcess, median, table } from './util';

interface ChildFigures {
  readonly perCallMs: number;
  readonly cpuPerCallMs: number;
  readonly rssBeforeMb: number;
  readonly rssAfterMb: number;
  readonly rssAfter2xMb: number;
  readonly heapBeforeMb: number;
  readonly heapAfterMb: number;
  readonly heapAfter2xMb: number;
}

async function run(mode: 'subagent' | 'agent', count: number): Promise<ChildFigures> {
  const script = nodePath.join(__dirname, 'agentChild.js');
  const measured = await measureProcess(process.execPath, ['--expose-gc', script, mode, String(count)]);
  return JSON.parse(measured.stdout) as ChildFigures;
}

/**
 * Creating and disposing a child agent (a whole foreground Agent call with a runner that answers
 * at once) against the baseline of a plain createAgent + dispose, 1,000 in a row per process,
 * alternating; RSS and heap before and after the run, after a GC, and after 1,000 more (RSS rises
 * while V8 sizes its heap in the first thousand; a leak keeps rising in the second, and shows in the heap).
 * The target: at most 2 ms per child, no growth.
 */
export async function agentBench(): Promise<void> {
  console.log('\n## Subagent create + dispose (1,000 in a row, fresh process each, alternating with the baseline)');
  const count = 1000;
  const rounds = 5;
  const sub: ChildFigures[] = [];
  const base: ChildFigures[] = [];
  for (let i = 0; i < rounds; i++) {
    sub.push(await run('subagent', count));
    base.push(await run('agent', count));
  }
  const row = (label: string, figures: ChildFigures[]) => [
    label,
    fmt(median(figures.map((f) => f.perCallMs)), 3),
    fmt(median(figures.map((f) => f.cpuPerCallMs)), 3),
    fmt(median(figures.map((f) => f.rssBeforeMb)), 1),
    fmt(median(figures.map((f) => f.rssAfterMb)), 1),
    fmt(median(figures.map((f) => f.rssAfterMb - f.rssBeforeMb)), 1),
    fmt(median(figures.map((f) => f.rssAfter2xMb - f.rssAfterMb)), 1),
    fmt(median(figures.map((f) => f.heapAfterMb - f.heapBeforeMb)), 2),
    fmt(median(figures.map((f) => f.heapAfter2xMb - f.heapAfterMb)), 2),
  ];
  console.log(
    table(['case', 'ms per create+dispose (median)', 'CPU ms per create+dispose', 'RSS before MB', 'RSS after MB', 'RSS growth MB', 'RSS growth, 2nd 1,000', 'heap growth MB', 'heap growth, 2nd 1,000'], [row('Agent call (child scope)', sub), row('baseline: createAgent + dispose', base)]),
  );
  const ratio = median(sub.map((f) => f.perCallMs)) / median(base.map((f) => f.perCallMs));
  console.log(`\nratio subagent / baseline: ${fmt(ratio, 2)}x; target ≤ 2 ms per child: ${median(sub.map((f) => f.perCallMs)) <= 2 ? 'met' : 'NOT met'}`);
}
