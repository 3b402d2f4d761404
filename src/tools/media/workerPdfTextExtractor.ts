import type { Worker } from 'node:worker_threads';
import { injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import { withDeadline } from './deadline';
import { type IPdfTextExtractor, type PdfText, PdfTextError, type PdfTextRequest } from './pdfText';
import { PDF_WORKER_SOURCE, type PdfWorkerJob, type PdfWorkerReply } from './pdfWorker';
import { startWorkerThread } from '../../base/workerThreads';

/** An idle worker is ended after this long; starting one (and loading pdf.js) costs ~250 ms. */
export const PDF_WORKER_IDLE_MS = 30_000;
/** pdf.js on a hostile file can grow without bound; the worker dies instead of the host. */
const PDF_WORKER_HEAP_MB = 512;

/** Where unpdf is, for the worker's require; undefined when it is not installed. */
function resolveUnpdf(): string | undefined {
  try {
    return require.resolve('unpdf');
  } catch {
    return undefined;
  }
}

/**
 * The default IPdfTextExtractor: one worker thread per App, one job at a time (a PDF call waits
 * for the one before), kept warm between calls, terminated at a job's deadline or abort (the next
 * job starts a fresh one), ended after PDF_WORKER_IDLE_MS idle and on dispose.
 */
@injectable()
export class WorkerPdfTextExtractor implements IPdfTextExtractor {
  private worker: Worker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  private nextId = 0;
  private disposed = false;

  constructor(private readonly unpdfPath: () => string | undefined = resolveUnpdf) {}

  /** Whether a worker thread exists now (tests). */
  get hasWorker(): boolean {
    return this.worker !== undefined;
  }

  extract(bytes: Uint8Array, request: PdfTextRequest): Promise<PdfText> {
    const job = this.queue.then(() => this.run(bytes, request));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private async run(bytes: Uint8Array, request: PdfTextRequest): Promise<PdfText> {
    request.signal?.throwIfAborted();
    if (this.disposed) throw new PdfTextError('unavailable', 'PDF reading stopped: the toolhost App was disposed.');
    const worker = this.acquire();
    const id = ++this.nextId;
    const reply = new Promise<PdfWorkerReply>((resolve, reject) => {
      const onMessage = (message: PdfWorkerReply) => {
        if (message.id !== id) return;
        cleanup();
        resolve(message);
      };
      const onExit = (code: number) => {
        cleanup();
        reject(new PdfTextError('failed', `The PDF reader stopped (exit code ${code}); the file may be too large or damaged.`));
      };
      const onError = (error: Error) => {
        cleanup();
        reject(new PdfTextError('failed', `The PDF reader failed: ${errorMessage(error)}`));
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      worker.on('error', onError);
    });
    // A copy the worker owns: the caller's buffer stays usable.
    const copy = new Uint8Array(bytes);
    const message: PdfWorkerJob = { id, bytes: copy, first: request.first, last: request.last ?? null };
    worker.postMessage(message, [copy.buffer]);
    let answer: PdfWorkerReply;
    try {
      answer = await withDeadline(
        reply,
        request.deadlineMs,
        () => new PdfTextError('timeout', `Extracting the PDF's text took longer than ${request.deadlineMs} ms (media.pdfTimeoutMs) and was stopped. Ask for fewer pages.`),
        request.signal,
      );
    } catch (error) {
      // pdf.js may still be spinning: the thread goes, the next call starts a fresh one.
      this.drop(worker);
      throw error;
    }
    this.release(worker);
    if (answer.ok) return { totalPages: answer.totalPages, pages: answer.pages };
    if (answer.code === 'past-end') {
      const total = answer.totalPages ?? 0;
      throw new PdfTextError('past-end', `Page ${request.first} is past the end (${total} page${total === 1 ? '' : 's'}).`);
    }
    if (answer.code === 'encrypted') throw new PdfTextError('encrypted', 'The PDF is encrypted; it cannot be read without its password.');
    if (answer.code === 'invalid') throw new PdfTextError('invalid', `The file is not a valid PDF (${answer.message}).`);
    throw new PdfTextError('failed', `The PDF's text cannot be extracted: ${answer.message}`);
  }

  private acquire(): Worker {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.worker) {
      this.worker.ref();
      return this.worker;
    }
    const unpdfPath = this.unpdfPath();
    if (unpdfPath === undefined) throw new PdfTextError('unavailable', 'PDF reading is unavailable: the unpdf package is not installed (npm install unpdf@1.7.0).');
    const worker = startWorkerThread(PDF_WORKER_SOURCE, {
      workerData: { unpdfPath },
      stdout: false,
      stderr: false,
      resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB },
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    // Reported to the job through its own listener; this one keeps an idle failure from throwing.
    worker.on('error', () => undefined);
    this.worker = worker;
    return worker;
  }

  private release(worker: Worker): void {
    if (this.worker !== worker) return;
    worker.unref();
    this.idleTimer = setTimeout(() => this.drop(worker), PDF_WORKER_IDLE_MS);
    this.idleTimer.unref();
  }

  private drop(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }

  @preDestroy()
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
