/**
 * The PDF worker thread's source, run with `new Worker(PDF_WORKER_SOURCE, {eval: true})` so it
 * is the same from compiled code, the CLI bundle and ts-jest. It loads unpdf (pdf.js) from the
 * absolute path the main thread resolved, once, and answers one job at a time.
 */

export interface PdfWorkerJob {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly first: number;
  readonly last: number | null;
}

export type PdfWorkerReply =
  | { readonly id: number; readonly ok: true; readonly totalPages: number; readonly pages: { page: number; text: string }[] }
  | { readonly id: number; readonly ok: false; readonly code: 'encrypted' | 'invalid' | 'past-end' | 'failed'; readonly message: string; readonly totalPages?: number };

export const PDF_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
let unpdf;
function pageText(content) {
  let text = '';
  for (const item of content.items) {
    if (typeof item.str !== 'string') continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text.replace(/[ \t]+\n/g, '\n').trimEnd();
}
parentPort.on('message', async (job) => {
  let pdf;
  try {
    unpdf = unpdf || require(workerData.unpdfPath);
    // verbosity 0: pdf.js warnings ("Indexing all PDF objects") would reach the host's stdout.
    pdf = await unpdf.getDocumentProxy(job.bytes, { verbosity: 0 });
    const total = pdf.numPages;
    if (job.first > total) {
      parentPort.postMessage({ id: job.id, ok: false, code: 'past-end', totalPages: total, message: 'past the end' });
      return;
    }
    const last = Math.min(job.last === null ? total : job.last, total);
    const pages = [];
    for (let n = job.first; n <= last; n++) {
      const page = await pdf.getPage(n);
      pages.push({ page: n, text: pageText(await page.getTextContent()) });
      page.cleanup();
    }
    parentPort.postMessage({ id: job.id, ok: true, totalPages: total, pages });
  } catch (error) {
    const name = error && error.name;
    const code = name === 'PasswordException' ? 'encrypted' : name === 'InvalidPDFException' || name === 'FormatError' ? 'invalid' : 'failed';
    parentPort.postMessage({ id: job.id, ok: false, code, message: String((error && error.message) || error) });
  } finally {
    if (pdf) await pdf.destroy().catch(() => undefined);
  }
});
`;
