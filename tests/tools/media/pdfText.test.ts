import { PdfTextError } from '../../../src/tools/media/pdfText';
import { WorkerPdfTextExtractor } from '../../../src/tools/media/workerPdfTextExtractor';
import { makePdf } from './pdfFixture';

describe('WorkerPdfTextExtractor (unpdf in a worker thread)', () => {
  let extractor: WorkerPdfTextExtractor;
  beforeEach(() => {
    extractor = new WorkerPdfTextExtractor();
  });
  afterEach(() => extractor.dispose());

  const threePages = makePdf([['Alpha one', 'alpha (two)'], ['Bravo page'], ['Charlie page']]);

  test('the text of each page, and only the pages asked for', async () => {
    expect(await extractor.extract(threePages, { first: 1, deadlineMs: 20_000 })).toEqual({
      totalPages: 3,
      pages: [
        { page: 1, text: 'Alpha one\nalpha (two)' },
        { page: 2, text: 'Bravo page' },
        { page: 3, text: 'Charlie page' },
      ],
    });
    expect(await extractor.extract(threePages, { first: 2, last: 9, deadlineMs: 20_000 })).toEqual({
      totalPages: 3,
      pages: [
        { page: 2, text: 'Bravo page' },
        { page: 3, text: 'Charlie page' },
      ],
    });
  });

  test('the caller keeps its buffer (the worker gets a copy)', async () => {
    // Its own ArrayBuffer (not Node's shared pool, which is never transferred): a transfer would detach it.
    const bytes = new Uint8Array(makePdf([['Kept']]));
    const length = bytes.byteLength;
    await extractor.extract(bytes, { first: 1, deadlineMs: 20_000 });
    expect(bytes.byteLength).toBe(length);
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
  });

  test('a page past the end, an encrypted PDF and a damaged one are typed errors with messages', async () => {
    await expect(extractor.extract(threePages, { first: 4, deadlineMs: 20_000 })).rejects.toEqual(new PdfTextError('past-end', 'Page 4 is past the end (3 pages).'));
    await expect(extractor.extract(makePdf([['Secret']], { encrypt: true }), { first: 1, deadlineMs: 20_000 })).rejects.toEqual(
      new PdfTextError('encrypted', 'The PDF is encrypted; it cannot be read without its password.'),
    );
    await expect(extractor.extract(Buffer.from('%PDF-1.4\nnot really\n'), { first: 1, deadlineMs: 20_000 })).rejects.toMatchObject({ code: 'invalid' });
    // The worker survived all three and still answers.
    expect((await extractor.extract(threePages, { first: 3, last: 3, deadlineMs: 20_000 })).pages).toEqual([{ page: 3, text: 'Charlie page' }]);
  });

  test('at the deadline the worker is terminated, and the next call starts a fresh one', async () => {
    const big = makePdf(Array.from({ length: 400 }, (_, i) => [`Page ${i + 1} `.repeat(40)]));
    await extractor.extract(threePages, { first: 1, deadlineMs: 20_000 });
    expect(extractor.hasWorker).toBe(true);
    const error = await extractor.extract(big, { first: 1, deadlineMs: 5 }).catch((e: unknown) => e);
    expect(error).toEqual(new PdfTextError('timeout', "Extracting the PDF's text took longer than 5 ms (media.pdfTimeoutMs) and was stopped. Ask for fewer pages."));
    expect(extractor.hasWorker).toBe(false);
    expect((await extractor.extract(threePages, { first: 2, last: 2, deadlineMs: 20_000 })).pages).toEqual([{ page: 2, text: 'Bravo page' }]);
  });

  test('an abort ends the job with the signal reason', async () => {
    const controller = new AbortController();
    const big = makePdf(Array.from({ length: 400 }, (_, i) => [`Page ${i + 1}`]));
    const job = extractor.extract(big, { first: 1, deadlineMs: 20_000, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(job).rejects.toThrow('stop');
  });

  test('without unpdf installed, a clear error', async () => {
    const missing = new WorkerPdfTextExtractor(() => undefined);
    await expect(missing.extract(threePages, { first: 1, deadlineMs: 1000 })).rejects.toEqual(
      new PdfTextError('unavailable', 'PDF reading is unavailable: the unpdf package is not installed (npm install unpdf@1.7.0).'),
    );
    await missing.dispose();
  });
});
