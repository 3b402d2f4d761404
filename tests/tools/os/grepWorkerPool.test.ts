import { createHook } from 'node:async_hooks';
import { Worker } from 'node:worker_threads';
import { BATCH_FILES } from '../../../src/tools/os/grep/builtinEngine';
import { IGrepEngineService } from '../../../src/tools/os/grep/grepEngineSelection';
import { FilteredListing } from '../../../src/tools/os/search/filteredListing';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { waitFor } from '../../helpers/async';
import { writeFiles } from '../../helpers/tempDir';

/**
 * The builtin Grep engine's worker threads: a search stuck in one regex is ended by its time
 * limit (the worker is terminated and replaced), the threads of an App are bounded by
 * grep.workers however many calls run at once, and time spent waiting for a worker does not
 * count against a call's time limit.
 */
const fx = useAgent({ builtins: true });

/** Worker threads alive in this process, counted by Node's own resource tracking, and the most seen at once. */
function trackWorkerThreads(): { readonly live: number; readonly peak: number; stop(): void } {
  const ids = new Set<number>();
  let peak = 0;
  const hook = createHook({
    init(id, type) {
      if (type !== 'WORKER') return;
      ids.add(id);
      peak = Math.max(peak, ids.size);
    },
    destroy(id) {
      ids.delete(id);
    },
  }).enable();
  return {
    get live() {
      return ids.size;
    },
    get peak() {
      return peak;
    },
    stop: () => hook.disable(),
  };
}

/** `(a+)+$` on a long run of `a` not followed by the end backtracks for minutes in a JavaScript regex. */
const CATASTROPHIC = '(a+)+$';
const LONG_LINE = `${'a'.repeat(100_000)}!\n`;
const NOTHING_FOUND = (pattern: string) =>
  `No matches for "${pattern}" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.`;

test('a regex that backtracks for minutes on one long line ends at the time limit; its worker is terminated and replaced', async () => {
  writeFiles(fx.dir, { 'slow.txt': LONG_LINE });
  // Warm the pool first, under a limit no loaded machine reaches: a worker that is still starting
  // when the limit passes holds no file and is rightly kept, which made this test depend on how
  // fast a fresh worker thread starts. Then the short limit the test is about.
  fx.open({ config: { grep: { engine: 'builtin', timeoutMs: 60_000 } } });
  expect(text(await callTool(fx.agent, 'Grep', { pattern: 'a!' }))).toBe('slow.txt');
  fx.app.config.update({ grep: { timeoutMs: 200 } });
  const terminated: number[] = [];
  const terminate = Worker.prototype.terminate;
  const spy = jest.spyOn(Worker.prototype, 'terminate').mockImplementation(function (this: Worker) {
    terminated.push(this.threadId);
    return terminate.call(this);
  });
  try {
    const result = await callTool(fx.agent, 'Grep', { pattern: CATASTROPHIC });
    expect(result).toEqual({
      output: `Grep timed out after 0.2 s; the results below are partial and the totals are lower bounds. Narrow the path, glob or pattern.\n${NOTHING_FOUND(CATASTROPHIC)}`,
      truncated: true,
    });
    // The worker that held the stuck file was terminated, the other one kept.
    expect(terminated).toHaveLength(1);
    // The next call gets a worker again.
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'a!' }))).toBe('slow.txt');
  } finally {
    spy.mockRestore();
  }
});

test('what was found before the time limit is reported with it', async () => {
  // One worker, batches of BATCH_FILES files in walk order: the small files of the top folder go
  // out first (two batches, both finished), the stuck file of the subfolder last.
  const files: Record<string, string> = { 'z/slow.txt': LONG_LINE };
  const small = Array.from({ length: 2 * BATCH_FILES }, (_, i) => `a${String(i).padStart(3, '0')}.txt`);
  for (const name of small) files[name] = 'aaa\n';
  writeFiles(fx.dir, files);
  fx.open({ config: { grep: { engine: 'builtin', timeoutMs: 4_000, workers: 1 } } });
  const out = text(await callTool(fx.agent, 'Grep', { pattern: CATASTROPHIC, output_mode: 'count_matches', head_limit: 0 }));
  expect(out.split('\n')).toEqual([
    'Grep timed out after 4 s; the results below are partial and the totals are lower bounds. Narrow the path, glob or pattern.',
    `Found ${2 * BATCH_FILES} occurrences in ${2 * BATCH_FILES} files.`,
    ...small.map((name) => `${name}:1`),
  ]);
});

test('100 small Grep calls in one batch all succeed, none times out, and the threads never exceed grep.workers', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 10; i++) files[`f${i}.txt`] = `word${i}\n`;
  writeFiles(fx.dir, files);
  // A limit far above what 100 tiny searches need: under a loaded CI machine none may time out.
  fx.open({ config: { grep: { engine: 'builtin', workers: 3, timeoutMs: 120_000 } } });
  const threads = trackWorkerThreads();
  try {
    const calls = Array.from({ length: 100 }, (_, i) => ({ id: `call_${i}`, name: 'Grep', arguments: { pattern: `word${i % 10}$` } }));
    const results = await fx.agent.executor.execute(calls);
    expect(results.map((r) => [r.toolCallId, r.outcome, r.isError, r.output])).toEqual(calls.map((c, i) => [c.id, 'executed', false, `f${i % 10}.txt`]));
    expect(threads.peak).toBeLessThanOrEqual(3);
    // The tracking saw the threads (the bound was used, not bypassed).
    expect(threads.peak).toBeGreaterThan(0);
  } finally {
    threads.stop();
  }
});

test('a lowered grep.workers ends the threads beyond it', async () => {
  writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`d${i % 4}/f${i}.txt`, 'needle\n'])));
  fx.open({ config: { grep: { engine: 'builtin', workers: 3 } } });
  const engines = fx.app.get(IGrepEngineService);
  expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'count_matches', head_limit: 1 })).split('\n')[0]).toBe('Found 200 occurrences in 200 files.');
  expect(engines.builtinWorkers).toEqual({ live: 3, waiting: 0 });
  fx.app.config.update({ grep: { engine: 'builtin', workers: 1 } });
  expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'count_matches', head_limit: 1 })).split('\n')[0]).toBe('Found 200 occurrences in 200 files.');
  await waitFor(() => engines.builtinWorkers.live === 1, { what: 'the threads beyond grep.workers to exit' });
});

test('an abort ends a call waiting for a worker, and one whose worker is stuck in a regex', async () => {
  writeFiles(fx.dir, { 'slow.txt': LONG_LINE, 'b.txt': 'needle\n' });
  fx.open({ config: { grep: { engine: 'builtin', workers: 1, timeoutMs: 600_000 } } });
  const engines = fx.app.get(IGrepEngineService);
  const batches: unknown[] = [];
  const postMessage = Worker.prototype.postMessage;
  const spy = jest.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, message: { type?: string }) {
    if (message.type === 'batch') batches.push(message);
    return postMessage.call(this, message);
  });
  try {
    const stuck = new AbortController();
    const first = callTool(fx.agent, 'Grep', { pattern: CATASTROPHIC }, stuck.signal);
    // The files went to the only worker, which is now in the regex for minutes.
    await waitFor(() => batches.length === 1, { what: 'the first call to hand its files to the worker' });
    const waiting = new AbortController();
    const second = callTool(fx.agent, 'Grep', { pattern: 'needle' }, waiting.signal);
    await waitFor(() => engines.builtinWorkers.waiting === 1, { what: 'the second call to wait for the worker' });
    expect(engines.builtinWorkers.live).toBe(1);
    waiting.abort();
    expect(await second).toEqual({ output: 'Grep was aborted before it finished.', isError: true });
    stuck.abort();
    expect(await first).toEqual({ output: 'Grep was aborted before it finished.', isError: true });
    // The stuck worker was replaced: a new call runs.
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle' }))).toBe('b.txt');
    expect(engines.builtinWorkers).toEqual({ live: 1, waiting: 0 });
  } finally {
    spy.mockRestore();
  }
});

test('the walk lists the folders below a folder smallest first, so that files reach the workers roughly in page order', async () => {
  writeFiles(fx.dir, Object.fromEntries(['c/1.txt', 'a/2.txt', 'b/3.txt', 'b/d/4.txt', 'b/c/5.txt'].map((name) => [name, 'needle\n'])));
  fx.open({ config: { grep: { engine: 'builtin' } } });
  const listed: string[] = [];
  const list = FilteredListing.prototype.list;
  const spy = jest.spyOn(FilteredListing.prototype, 'list').mockImplementation(function (this: FilteredListing, dir: string) {
    listed.push(dir.slice(fx.dir.length));
    return list.call(this, dir);
  });
  try {
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'count_matches' })).split('\n')[0]).toBe('Found 5 occurrences in 5 files.');
  } finally {
    spy.mockRestore();
  }
  // The root's folders start in name order (all at once: the walk lists 8 at a time); b's after b.
  expect(listed.slice(0, 4)).toEqual(['', '/a', '/b', '/c']);
  expect(listed.slice(4).sort()).toEqual(['/b/c', '/b/d']);
  expect(listed.indexOf('/b/c')).toBeLessThan(listed.indexOf('/b/d'));
});
