import * as nodePath from 'node:path';
import { Worker } from 'node:worker_threads';
import { WINDOW_BYTES } from '../../../src/tools/os/grep/builtinEngine';
import { GREP_WORKER_SOURCE, type WorkerResponse, type WorkerSpec } from '../../../src/tools/os/grep/grepWorker';
import { INVALID_UTF8_TEXT, parseRustRegex, requiredLiterals, toJsRegex } from '../../../src/tools/os/grep/rustRegex';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';

let dir: string;
let worker: Worker;

beforeEach(() => {
  dir = makeTempDir();
  // A small heap: enough for the worker, not for a big file decoded whole.
  worker = new Worker(GREP_WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 4 } });
});

afterEach(async () => {
  await worker.terminate();
  removeDir(dir);
});

function spec(mode: WorkerSpec['mode'], pageEnd: number): WorkerSpec {
  const regex = parseRustRegex('needle', { caseInsensitive: false, multiline: false });
  const js = toJsRegex(regex);
  return {
    source: js.source,
    flags: js.flags,
    multiline: false,
    mode,
    before: 0,
    after: 0,
    maxLineChars: 500,
    pageEnd,
    prefilter: requiredLiterals(regex),
    windowBytes: WINDOW_BYTES,
    invalidUtf8: INVALID_UTF8_TEXT,
  };
}

/** Sends one job and its batches, in order: the files of each answer as [name, count, has lines]. */
async function search(jobSpec: WorkerSpec, batches: string[][]): Promise<Array<Array<[string, number, boolean]>>> {
  const answers: Array<Array<[string, number, boolean]>> = [];
  for (const [i, names] of batches.entries()) {
    const answer = new Promise<WorkerResponse>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (i === 0) worker.postMessage({ type: 'job', jobId: 1, spec: jobSpec, cancel: new SharedArrayBuffer(4) });
    worker.postMessage({ type: 'batch', jobId: 1, batchId: i + 1, paths: names.map((name) => nodePath.join(dir, name)) });
    answers.push((await answer).files.map((f) => [nodePath.basename(f.path), f.count, f.lines !== undefined]));
  }
  return answers;
}

describe('the Grep worker in content mode', () => {
  test('sends lines only for the files its own results can show on the page (page end 2, one match per file)', async () => {
    writeFiles(dir, { 'a.txt': 'needle\n', 'b.txt': 'needle\n', 'c.txt': 'needle\n', 'd.txt': 'x\nneedle\n', 'A.txt': 'needle\n' });
    expect(await search(spec('content', 2), [['b.txt', 'a.txt', 'c.txt'], ['d.txt', 'A.txt']])).toEqual([
      [
        ['b.txt', 1, true],
        ['a.txt', 1, true],
        // a and b hold the page: c comes after both.
        ['c.txt', 1, false],
      ],
      [
        ['d.txt', 1, false],
        // Before both in path order: it may be on the page.
        ['A.txt', 1, true],
      ],
    ]);
  });

  test('with no page end (head_limit 0) every file comes with its lines', async () => {
    writeFiles(dir, { 'a.txt': 'needle\n', 'b.txt': 'needle\nneedle\n', 'c.txt': 'needle\n' });
    expect(await search(spec('content', Infinity), [['a.txt', 'b.txt', 'c.txt']])).toEqual([
      [
        ['a.txt', 1, true],
        ['b.txt', 2, true],
        ['c.txt', 1, true],
      ],
    ]);
  });

  test('a big file is searched in windows: its text is never decoded whole (which an 8 MiB heap could not hold)', async () => {
    // 8 MB of text (below the 8 MiB up to which the worker once read files whole), 10.6 MB as one two-byte string.
    const lines = Array.from({ length: 190_000 }, (_, i) => `ligne ${String(i).padStart(6, '0')} ${'é'.repeat(14)}`);
    lines[189_998] = 'a needle near the end';
    writeFiles(dir, { 'big.txt': lines.join('\n') + '\n' });
    expect(await search(spec('content', 250), [['big.txt']])).toEqual([[['big.txt', 1, true]]]);
    expect(await search({ ...spec('count_matches', Infinity) }, [['big.txt']])).toEqual([[['big.txt', 1, false]]]);
  });
});
