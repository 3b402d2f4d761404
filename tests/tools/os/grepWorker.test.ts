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
    maxKeptChars: 10 * 1024 * 1024,
    prefilter: requiredLiterals(regex),
    windowBytes: WINDOW_BYTES,
    invalidUtf8: INVALID_UTF8_TEXT,
  };
}

/** Sends one job and its batches, in order: the files of each answer as [name, count, has lines], then the counted-only ones as {files, count} when there are some. */
type Answer = Array<[string, number, boolean] | WorkerResponse['countedOnly']>;
async function search(jobSpec: WorkerSpec, batches: string[][]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const [i, names] of batches.entries()) {
    const answer = new Promise<WorkerResponse>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (i === 0) worker.postMessage({ type: 'job', jobId: 1, spec: jobSpec, cancel: new SharedArrayBuffer(4) });
    worker.postMessage({ type: 'batch', jobId: 1, batchId: i + 1, paths: names.map((name) => nodePath.join(dir, name)) });
    const { files, countedOnly } = await answer;
    answers.push([...files.map((f): [string, number, boolean] => [nodePath.basename(f.path), f.count, f.lines !== undefined]), ...(countedOnly.files > 0 ? [countedOnly] : [])]);
  }
  return answers;
}

/** One file searched in content mode: its count and its kept lines as [number, text, flags (1 match, 2 cut)]. */
async function keptLines(jobSpec: WorkerSpec, name: string): Promise<{ count: number; lines: Array<[number, string, number]> }> {
  const answer = new Promise<WorkerResponse>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  worker.postMessage({ type: 'job', jobId: 1, spec: jobSpec, cancel: new SharedArrayBuffer(4) });
  worker.postMessage({ type: 'batch', jobId: 1, batchId: 1, paths: [nodePath.join(dir, name)] });
  const [file] = (await answer).files;
  const texts = file!.lines!.text.split('\n');
  return { count: file!.count, lines: texts.map((text, i) => [file!.lines!.marks[2 * i]!, text, file!.lines!.marks[2 * i + 1]!]) };
}

describe('the Grep worker in content mode', () => {
  test('sends only the files its own results can show on the page, the others counted (page end 2, one match per file)', async () => {
    writeFiles(dir, { 'a.txt': 'needle\n', 'b.txt': 'needle\n', 'c.txt': 'needle\n', 'd.txt': 'x\nneedle\n', 'A.txt': 'needle\n' });
    expect(await search(spec('content', 2), [['b.txt', 'a.txt', 'c.txt'], ['d.txt', 'A.txt']])).toEqual([
      [
        ['b.txt', 1, true],
        ['a.txt', 1, true],
        // a and b hold the page: c comes after both.
        { files: 1, count: 1 },
      ],
      [
        // Before both in path order: it may be on the page; d is not.
        ['A.txt', 1, true],
        { files: 1, count: 1 },
      ],
    ]);
  });

  test('count_matches sends the files a page of that many files can show, the others counted; files_with_matches sends every file (it pages by date; it stops at the first match of a file)', async () => {
    writeFiles(dir, { 'a.txt': 'needle\nneedle\n', 'b.txt': 'needle\n', 'c.txt': 'needle\nneedle\nneedle\n', 'A.txt': 'needle\n' });
    expect(await search(spec('count_matches', 2), [['b.txt', 'a.txt', 'c.txt'], ['A.txt']])).toEqual([
      [['b.txt', 1, false], ['a.txt', 2, false], { files: 1, count: 3 }],
      [['A.txt', 1, false]],
    ]);
    expect(await search(spec('files_with_matches', 1), [['b.txt', 'a.txt', 'c.txt']])).toEqual([[['b.txt', 1, false], ['a.txt', 1, false], ['c.txt', 1, false]]]);
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

  // Every third line matches (1, 4, 7, …); 30 lines are read whole, 30,000 (390 KB) in windows
  // within the read buffer, 120,000 (1.6 MB) in windows read twice.
  test.each([30, 30_000, 120_000])('a file of %i lines keeps the lines of only its first page-end matches, with their context, and counts them all', async (total) => {
    const lines = Array.from({ length: total }, (_, i) => (i % 3 === 0 ? `needle ${String(i + 1).padStart(6, '0')}` : `filler ${String(i + 1).padStart(6, '0')}`));
    writeFiles(dir, { 'f.txt': lines.join('\n') + '\n' });
    const matches = Math.ceil(total / 3);
    // Matches 1 and 4 are kept, with one line of context each side; line 6 is the context of match 7, which no page of 2 shows.
    expect(await keptLines({ ...spec('content', 2), before: 1, after: 1 }, 'f.txt')).toEqual({
      count: matches,
      lines: [
        [1, 'needle 000001', 1],
        [2, 'filler 000002', 0],
        [3, 'filler 000003', 0],
        [4, 'needle 000004', 1],
        [5, 'filler 000005', 0],
      ],
    });
    // A match in the context of the last kept one is kept as a match (the page shows it as context).
    expect(await keptLines({ ...spec('content', 1), after: 3 }, 'f.txt')).toEqual({
      count: matches,
      lines: [
        [1, 'needle 000001', 1],
        [2, 'filler 000002', 0],
        [3, 'filler 000003', 0],
        [4, 'needle 000004', 1],
      ],
    });
    // With no page end, lines are kept until they reach the character budget (the collector's).
    expect(await keptLines({ ...spec('content', Infinity), maxKeptChars: 30 }, 'f.txt')).toEqual({
      count: matches,
      lines: [
        [1, 'needle 000001', 1],
        [4, 'needle 000004', 1],
        [7, 'needle 000007', 1],
      ],
    });
  });

  test('in multiline mode too, only the lines of the first page-end matches are kept', async () => {
    writeFiles(dir, { 'm.txt': Array.from({ length: 300 }, (_, i) => `needle ${i + 1}\nend ${i + 1}`).join('\n') + '\n' });
    const regex = parseRustRegex('needle \\d+\\nend', { caseInsensitive: false, multiline: true });
    const js = toJsRegex(regex);
    const multiline = { ...spec('content', 2), source: js.source, flags: js.flags, multiline: true, prefilter: requiredLiterals(regex) };
    expect(await keptLines(multiline, 'm.txt')).toEqual({
      count: 600,
      lines: [
        [1, 'needle 1', 1],
        [2, 'end 1', 1],
      ],
    });
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
