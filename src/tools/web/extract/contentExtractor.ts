import { injectable, preDestroy } from 'inversify';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ContentExtractorError, type ExtractedDocument, type HtmlToMarkdownOptions, type IContentExtractor } from '../contract';
import { EXTRACTOR_WORKER_SOURCE, type ExtractorModules, type ExtractorRequest, type ExtractorResponse, SPLIT_MARK } from './extractorWorker';

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

/** Pages this long (characters of HTML) or longer are split between two workers (see WorkerContentExtractor). */
export const EXTRACTOR_SPLIT_CHARS = 1_000_000;

/**
 * The share of a split article's top-level blocks the second worker converts: it parses them
 * again before converting, so it takes less than half for both to finish together.
 */
const SPLIT_TAIL_FRACTION = 0.4;

interface Job {
  readonly request: ExtractorRequest & { readonly kind: 'page' };
  readonly options: HtmlToMarkdownOptions;
  readonly resolve: (document: ExtractedDocument) => void;
  readonly reject: (error: unknown) => void;
}

/** The job being converted: its workers, deadline, and the parts received so far. */
interface Running {
  readonly job: Job;
  readonly workers: Worker[];
  readonly timer: NodeJS.Timeout;
  readonly onAbort: () => void;
  readonly listeners: (() => void)[];
  page?: ExtractorResponse & { readonly kind: 'page' };
  tail?: string;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The blank lines tidied, once, on the whole Markdown (a split page's parts joined first). */
function tidyMarkdown(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}

/** A worker thread started on first use and ended after `idleMs()` without work. */
class WarmThread {
  private worker: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly start: () => Worker,
    private readonly idleMs: () => number,
    /** The thread failed or exited (not when ended here). */
    private readonly onLost: (worker: Worker, message: string) => void,
  ) {}

  /** The thread (started now if there is none), kept from idling out while it works. */
  acquire(): Worker {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (!this.worker) {
      const worker = this.start();
      worker.on('error', (error) => this.lost(worker, `The content extractor's worker failed: ${error.message}`));
      worker.on('exit', (code) => this.lost(worker, `The content extractor's worker exited (code ${code}).`));
      this.worker = worker;
    }
    this.worker.ref();
    return this.worker;
  }

  private lost(worker: Worker, message: string): void {
    if (this.worker === worker) this.worker = undefined;
    this.onLost(worker, message);
  }

  /** No work for now: an idle thread does not keep the process alive and is ended after idleMs. */
  release(): void {
    const worker = this.worker;
    if (!worker || this.idleTimer) return;
    worker.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.worker === worker) this.end();
    }, this.idleMs());
    this.idleTimer.unref();
  }

  /** Ends the thread now (a deadline, an abort, idle); the next acquire starts a fresh one. */
  end(): void {
    const worker = this.worker;
    this.worker = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (worker) void worker.terminate();
  }

  owns(worker: Worker): boolean {
    return this.worker === worker;
  }

  get exists(): boolean {
    return this.worker !== undefined;
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    clearTimeout(this.idleTimer);
    if (worker) await worker.terminate();
  }
}

/**
 * The default IContentExtractor: one warm worker thread per App, started on first use. Calls take
 * turns (a conversion is CPU-bound; two would only share the core), each under its own deadline
 * from when it starts; a conversion past its deadline, or aborted, ends its workers, and the next
 * call starts fresh ones. After EXTRACTOR_IDLE_MS without work a worker is ended too.
 *
 * A page of at least `splitAboveChars` characters uses a second warm worker: once Readability has
 * picked the article, the first worker hands the last SPLIT_TAIL_FRACTION of its top-level blocks
 * (as HTML) to the second, and both convert their part at once; the parts are joined in order into
 * the Markdown the whole page gives. Parse and Readability read the whole page and stay on one core.
 */
@injectable()
export class WorkerContentExtractor implements IContentExtractor {
  private readonly queue: Job[] = [];
  private running: Running | undefined;
  private nextId = 0;
  private modules: ExtractorModules | undefined;
  private disposed = false;
  private readonly primary = new WarmThread(() => this.startWorker(), () => this.idleMs, (worker, message) => this.lost(worker, message));
  private readonly second = new WarmThread(() => this.startWorker(), () => this.idleMs, (worker, message) => this.lost(worker, message));
  /** Workers started so far, both kinds (tests and the bench see warm reuse and restarts). */
  startedWorkers = 0;
  /** How long an idle worker is kept. */
  idleMs = EXTRACTOR_IDLE_MS;
  /** Pages converted in two parts so far (tests and the bench see that the split happened). */
  splitPages = 0;
  /** Pages this long or longer are split between two workers (Infinity: never; on one core, never by default). */
  splitAboveChars = availableParallelism() >= 2 ? EXTRACTOR_SPLIT_CHARS : Infinity;

  htmlToMarkdown(html: string, options: HtmlToMarkdownOptions): Promise<ExtractedDocument> {
    if (this.disposed) return Promise.reject(new ContentExtractorError('failed', 'The content extractor was disposed.'));
    options.signal?.throwIfAborted();
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const job: Job = { request: { id: ++this.nextId, kind: 'page', html, baseUrl: options.baseUrl, mainContent: options.mainContent }, options, resolve, reject };
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
      this.primary.release();
      return;
    }
    let worker: Worker;
    try {
      worker = this.primary.acquire();
    } catch (error) {
      job.reject(new ContentExtractorError('failed', `The content extractor could not start its worker thread: ${(error as Error).message}`));
      this.pump();
      return;
    }
    const timer = setTimeout(() => {
      this.endWorkers();
      this.finish(job, () => job.reject(new ContentExtractorError('deadline', `Converting the page took longer than ${seconds(job.options.deadlineMs)} and was stopped.`)));
    }, job.options.deadlineMs);
    const onAbort = () => {
      this.endWorkers();
      this.finish(job, () => job.reject(job.options.signal!.reason));
    };
    const running: Running = { job, workers: [worker], timer, onAbort, listeners: [] };
    this.running = running;
    job.options.signal?.addEventListener('abort', onAbort, { once: true });
    this.listen(running, worker, (response) => {
      if (response.kind === 'tail') this.convertTail(running, response.html);
      else if (response.kind === 'page') {
        running.page = response;
        this.complete(running);
      } else if (response.kind === 'error') this.finish(job, () => job.reject(new ContentExtractorError('failed', `Converting the page failed: ${response.message}`)));
    });
    const split = job.request.html.length >= this.splitAboveChars;
    worker.postMessage(split ? { ...job.request, splitTail: SPLIT_TAIL_FRACTION } : job.request);
  }

  /** `onResponse` for the responses to this job from `worker`, until the job finishes. */
  private listen(running: Running, worker: Worker, onResponse: (response: ExtractorResponse) => void): void {
    const onMessage = (response: ExtractorResponse) => {
      if (this.running === running && response.id === running.job.request.id) onResponse(response);
    };
    worker.on('message', onMessage);
    running.listeners.push(() => worker.off('message', onMessage));
  }

  private convertTail(running: Running, html: string): void {
    const { job } = running;
    let worker: Worker;
    try {
      worker = this.second.acquire();
    } catch (error) {
      this.finish(job, () => job.reject(new ContentExtractorError('failed', `The content extractor could not start its second worker thread: ${(error as Error).message}`)));
      return;
    }
    running.workers.push(worker);
    this.listen(running, worker, (response) => {
      if (response.kind === 'blocks') {
        running.tail = response.markdown;
        this.complete(running);
      } else if (response.kind === 'error') this.finish(job, () => job.reject(new ContentExtractorError('failed', `Converting the page failed: ${response.message}`)));
    });
    worker.postMessage({ id: job.request.id, kind: 'blocks', html } satisfies ExtractorRequest);
  }

  /** Resolves the job once every part is in. */
  private complete(running: Running): void {
    const { page, tail, job } = running;
    if (!page || (page.split && tail === undefined)) return;
    const markdown = tidyMarkdown(page.split ? page.markdown + tail! : page.markdown);
    if (page.split) this.splitPages++;
    this.finish(job, () => job.resolve({ markdown, extracted: page.extracted, textChars: page.textChars, ...(page.title !== undefined ? { title: page.title } : {}) }));
  }

  private finish(job: Job, outcome: () => void): void {
    const running = this.running;
    if (running?.job !== job) return;
    clearTimeout(running.timer);
    job.options.signal?.removeEventListener('abort', running.onAbort);
    for (const off of running.listeners) off();
    this.running = undefined;
    this.second.release();
    outcome();
    this.pump();
  }

  /** Ends the running job's workers (a deadline or an abort). */
  private endWorkers(): void {
    for (const worker of this.running?.workers ?? []) {
      if (this.primary.owns(worker)) this.primary.end();
      if (this.second.owns(worker)) this.second.end();
    }
  }

  private lost(worker: Worker, message: string): void {
    const running = this.running;
    if (running?.workers.includes(worker)) {
      this.endWorkers();
      this.finish(running.job, () => running.job.reject(new ContentExtractorError('failed', message)));
    }
  }

  private startWorker(): Worker {
    this.modules ??= resolveModules();
    const worker = new Worker(EXTRACTOR_WORKER_SOURCE, { eval: true, workerData: { modules: this.modules, splitMark: SPLIT_MARK }, stdout: false, stderr: false });
    this.startedWorkers++;
    return worker;
  }

  /** Whether the first worker thread exists now (warm or busy). */
  get hasWorker(): boolean {
    return this.primary.exists;
  }

  /** Whether the second worker (for split pages) exists now. */
  get hasSecondWorker(): boolean {
    return this.second.exists;
  }

  @preDestroy()
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const job of this.queue.splice(0)) job.reject(new ContentExtractorError('failed', 'The content extractor was disposed.'));
    const running = this.running;
    if (running) {
      clearTimeout(running.timer);
      running.job.options.signal?.removeEventListener('abort', running.onAbort);
      for (const off of running.listeners) off();
      this.running = undefined;
      running.job.reject(new ContentExtractorError('failed', 'The content extractor was disposed.'));
    }
    await Promise.all([this.primary.dispose(), this.second.dispose()]);
  }
}
