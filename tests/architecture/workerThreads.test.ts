import * as fs from 'node:fs';
import * as nodePath from 'node:path';

const SRC = nodePath.resolve(__dirname, '../../src');
const HELPER = 'base/workerThreads.ts';

/** A worker thread constructed in code (not in a comment): `new Worker(` or `new (….Worker)(`. */
const STARTS_A_THREAD = /^(?!\s*(?:\/\/|\/\*|\*)).*new\s+(?:\(\s*[\w.()]*\bWorker\s*\)|Worker\s*\()/m;

/** The files of `dir` (relative to SRC) that start a worker thread themselves. */
function threadStarters(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = nodePath.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, 'utf8');
    // BullMQ's Worker is a queue consumer, not a thread.
    if (/from 'bullmq'/.test(text) && !/worker_threads/.test(text)) continue;
    if (STARTS_A_THREAD.test(text)) found.push(nodePath.relative(SRC, file).split(nodePath.sep).join('/'));
  }
  return found.sort();
}

/**
 * Worker threads start only through base/workerThreads.ts, which sets a young-generation hold
 * again once the thread is online (V8 undoes it when it sets up the thread's isolate).
 */
test('only base/workerThreads.ts starts worker threads', () => {
  expect(threadStarters(SRC)).toEqual([HELPER]);
});

test('the check finds a thread started directly, in either spelling, and not one named in a comment', () => {
  expect(STARTS_A_THREAD.test("const w = new Worker(source, { eval: true });")).toBe(true);
  expect(STARTS_A_THREAD.test("  const w = new (nodeBuiltins.workerThreads().Worker)(source, { eval: true });")).toBe(true);
  expect(STARTS_A_THREAD.test(" * `new Worker(GREP_WORKER_SOURCE, {eval: true})`, so it works")).toBe(false);
  expect(STARTS_A_THREAD.test('/** The source, for `new Worker(source, {eval: true})`. */')).toBe(false);
  expect(STARTS_A_THREAD.test('const w = startWorkerThread(source);')).toBe(false);
});
