import { injectable, preDestroy } from 'inversify';
import type { Worker } from 'node:worker_threads';
import { ContentExtractorError, type ExtractedDocument, type HtmlToMarkdownOptions, type IContentExtractor } from '../contract';
import { EXTRACTOR_WORKER_SOURCE, type ExtractorModules, type ExtractorRequest, type ExtractorResponse } from './extractorWorker';
import { startWorkerThread } from '../../../base/workerThreads';

/** An idle worker is ended after this long (as the Grep worker pool does); the next call starts a new one. */
export const EXTRACTOR_IDLE_MS = 30_000;

function resolveModules(): ExtractorModules {
  return {
    linkedom: require.resolve('linkedom'),
    readability: require.resolve('@mozilla/readability'),
    turndown: require.resolve('turndown'),
    gfm: require.resolve('turndown-plugin-gfm'),
  };
}

interface Job {
  readonly request: ExtractorRequest;
  readonly options: HtmlToMarkdownOptions;
  readonly resolve: (document: ExtractedDocument) => void;
  readonly reject: (error: unknown) => void;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The default IContentExtractor: one warm worker thread per App, started on first use. Calls take
 * turns (a conversion is CPU-bound; two would only share the core), each under its own deadline
 * from when it starts; a conversion past its deadline, or aborted, ends the worker, and the next
 * call starts a fresh one. After EXTRACTOR_IDLE_MS without work the worker is ended too.
 */
@injectable()
export class WorkerContentExtractor implements IContentExtractor {
  private worker: Worker | undefined;
  private readonly queue: Job[] = [];
  private running: { readonly job: Job; readonly worker: Worker; readonly timer: NodeJS.Timeout; readonly onAbort: () => void } | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private nextId = 0;
  private modules: ExtractorModules | undefined;
  private disposed = false;
  /** Workers started so far (tests and the bench see warm reuse and restarts). */
  startedWorkers = 0;
  /** How long an idle worker is kept. */
  idleMs = EXTRACTOR_IDLE_MS;

  htmlToMarkdown(html: string, options: HtmlToMarkdownOptions): Promise<ExtractedDocument> {
    if (this.disposed) return Promise.reject(new ContentExtractorError('failed', 'The content extractor was disposed.'));
    options.signal?.throwIfAborted();
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const job: Job = { request: { id: ++this.nextId, html, baseUrl: options.baseUrl, mainContent: options.mainContent }, options, resolve, reject };
      this.queue.push(job);
      options.signal?.addEventListener(
        'abort',
        () => {
          const at = this.queue.indexOf(job);
          if (at >= 0) {
            this.queue.splice(at, 1);
            reject(options.signal!.reason);
          }
        },
        { once: true },
      );
      this.pump();
    });
  }

  private pump(): void {
    if (this.running || this.disposed) return;
    const job = this.queue.shift();
    if (!job) {
      this.scheduleIdle();
      return;
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    let worker: Worker;
    try {
      worker = this.workerThread();
    } catch (error) {
      job.reject(new ContentExtractorError('failed', `The content extractor could not start its worker thread: ${(error as Error).message}`));
      this.pump();
      return;
    }
    const finish = (outcome: () => void) => {
      if (this.running?.job !== job) return;
      clearTimeout(this.running.timer);
      job.options.signal?.removeEventListener('abort', this.running.onAbort);
      worker.off('message', onMessage);
      this.running = undefined;
      outcome();
      this.pump();
    };
    const onMessage = (response: ExtractorResponse) => {
      if (response.id !== job.request.id) return;
      finish(() => {
        if (response.ok) {
          job.resolve({ markdown: response.markdown, extracted: response.extracted, textChars: response.textChars, ...(response.title !== undefined ? { title: response.title } : {}) });
        } else {
          job.reject(new ContentExtractorError('failed', `Converting the page failed: ${response.message}`));
        }
      });
    };
    const timer = setTimeout(() => {
      this.endWorker(worker);
      finish(() => job.reject(new ContentExtractorError('deadline', `Converting the page took longer than ${seconds(job.options.deadlineMs)} and was stopped.`)));
    }, job.options.deadlineMs);
    const onAbort = () => {
      this.endWorker(worker);
      finish(() => job.reject(job.options.signal!.reason));
    };
    this.running = { job, worker, timer, onAbort };
    job.options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage);
    worker.ref();
    worker.postMessage(job.request);
  }

  private workerThread(): Worker {
    if (this.worker) return this.worker;
    this.modules ??= resolveModules();
    const worker = startWorkerThread(EXTRACTOR_WORKER_SOURCE, { workerData: { modules: this.modules }, stdout: false, stderr: false });
    this.startedWorkers++;
    const failed = (message: string) => {
      if (this.worker === worker) this.worker = undefined;
      if (this.running?.worker === worker) {
        const { job, timer, onAbort } = this.running;
        clearTimeout(timer);
        job.options.signal?.removeEventListener('abort', onAbort);
        this.running = undefined;
        job.reject(new ContentExtractorError('failed', message));
        this.pump();
      }
    };
    worker.on('error', (error) => failed(`The content extractor's worker failed: ${error.message}`));
    worker.on('exit', (code) => failed(`The content extractor's worker exited (code ${code}).`));
    this.worker = worker;
    return worker;
  }

  private endWorker(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }

  private scheduleIdle(): void {
    const worker = this.worker;
    if (!worker || this.idleTimer) return;
    // An idle worker does not keep the process alive.
    worker.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.worker === worker && !this.running) this.endWorker(worker);
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** Whether a worker thread exists now (warm or busy). */
  get hasWorker(): boolean {
    return this.worker !== undefined;
  }

  @preDestroy()
  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    for (const job of this.queue.splice(0)) job.reject(new ContentExtractorError('failed', 'The content extractor was disposed.'));
    const worker = this.worker;
    this.worker = undefined;
    if (this.running) {
      const { job, timer } = this.running;
      clearTimeout(timer);
      this.running = undefined;
      job.reject(new ContentExtractorError('failed', 'The content extractor was disposed.'));
    }
    if (worker) await worker.terminate();
  }
}
