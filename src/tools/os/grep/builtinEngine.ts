import type { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import { errorMessage } from '../../../base/errors';
import { isSensitivePath } from '../../../tool/sensitivePaths';
import { FilteredListing } from '../search/filteredListing';
import { IgnoreTree } from '../search/ignoreTree';
import { searchGlobAllows } from '../search/searchGlob';
import { localSearchFs } from '../search/searchPaths';
import { GrepCollector, type GrepEngine, GrepEngineError, type GrepFileResult, type GrepLimits, type GrepLine, type GrepOutcome, type GrepSearch } from './grepEngine';
import { GREP_WORKER_SOURCE, LINE_CUT, LINE_MATCH, type WorkerFileResult, type WorkerRequest, type WorkerResponse, type WorkerSpec } from './grepWorker';
import { INVALID_UTF8_TEXT, requiredLiterals, toJsRegex, UnsupportedRegexError } from './rustRegex';
import { startWorkerThread } from '../../../base/workerThreads';

/** Files per message to a worker: fewer, larger messages; still small enough to share a walk between workers. */
export const BATCH_FILES = 128;
const MAX_BATCHES_PER_WORKER = 2;
const WALK_CONCURRENCY = 8;
/** Windows of the builtin worker (it takes at most half its 1 MiB read buffer). */
export const WINDOW_BYTES = 64 * 1024;
const IDLE_WORKER_MS = 30_000;
const WORKER_YOUNG_GENERATION_MB = 4;

/** Matches file names against the globs of a ripgrep file type. */
export function compileFileTypeMatcher(globs: readonly string[]): (name: string) => boolean {
  return picomatch([...globs], { dot: true, nonegate: true, noextglob: true });
}

interface PoolWaiter {
  readonly want: number;
  readonly signal: AbortSignal;
  readonly grant: (workers: Worker[]) => void;
  readonly fail: (error: Error) => void;
}

/**
 * The worker threads of the builtin engine, one bounded set per App (`grep.workers`). A search
 * waits in a queue until a worker is free, so a batch of many calls never starts more threads
 * than the bound; workers are kept for a while between calls (starting one costs tens of
 * milliseconds), idle ones do not keep the process alive, and dispose() ends them all. A worker
 * that is terminated (a search that timed out in the middle of a regex) counts against the bound
 * until it has exited; a new one takes its place when a search needs it.
 */
export class GrepWorkerPool {
  private readonly idle: Worker[] = [];
  /** Every thread started and not yet exited, busy, idle or terminating. */
  private readonly live = new Set<Worker>();
  private readonly terminating = new Set<Worker>();
  private readonly queue: PoolWaiter[] = [];
  /** One abort listener per signal with waiters (the calls of a batch share one signal). */
  private readonly watched = new Map<AbortSignal, () => void>();
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly maxWorkers: () => number) {}

  /** Threads that exist now (busy, idle or terminating): never more than the bound. */
  get size(): number {
    return this.live.size;
  }

  /** Searches waiting for a worker. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Up to `want` workers, as soon as at least one is free (first come, first served). Rejects
   * with the signal's reason when it aborts first, and with GrepEngineError once disposed.
   */
  acquire(want: number, signal: AbortSignal): Promise<Worker[]> {
    if (this.disposed) return Promise.reject(new GrepEngineError('The Grep worker pool was disposed.'));
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<Worker[]>((grant, fail) => {
      this.queue.push({ want: Math.max(1, want), signal, grant, fail });
      this.watch(signal);
      this.pump();
    });
  }

  /** Gives workers back after a search that left them idle (no batch outstanding). */
  release(workers: readonly Worker[]): void {
    for (const worker of workers) {
      if (!this.live.has(worker) || this.terminating.has(worker)) continue;
      // Over the bound (grep.workers was lowered) or disposed: end it instead of keeping it.
      if (this.disposed || this.live.size - this.terminating.size > this.maxWorkers()) {
        this.discard(worker);
        continue;
      }
      this.keepIdle(worker);
    }
    this.pump();
  }

  /** Terminates a worker (a stuck or failed one); it leaves the bound once it has exited. */
  discard(worker: Worker): void {
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    if (!this.live.has(worker) || this.terminating.has(worker)) return;
    this.terminating.add(worker);
    void worker.terminate();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idle.length = 0;
    for (const waiter of this.queue.splice(0)) {
      this.unwatch(waiter.signal);
      waiter.fail(new GrepEngineError('The Grep worker pool was disposed.'));
    }
    await Promise.all([...this.live].map((worker) => worker.terminate()));
    this.live.clear();
    this.terminating.clear();
  }

  private watch(signal: AbortSignal): void {
    if (this.watched.has(signal)) return;
    const onAbort = () => {
      this.watched.delete(signal);
      const aborted = this.queue.filter((w) => w.signal === signal);
      for (const waiter of aborted) this.queue.splice(this.queue.indexOf(waiter), 1);
      for (const waiter of aborted) waiter.fail(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.watched.set(signal, onAbort);
  }

  /** Stops listening to a signal no waiter uses any more. */
  private unwatch(signal: AbortSignal): void {
    const onAbort = this.watched.get(signal);
    if (!onAbort || this.queue.some((w) => w.signal === signal)) return;
    signal.removeEventListener('abort', onAbort);
    this.watched.delete(signal);
  }

  /** Grants free workers to the searches at the head of the queue. */
  private pump(): void {
    if (this.disposed) return;
    const max = this.maxWorkers();
    // grep.workers was lowered: idle threads beyond it are ended.
    while (this.idle.length > 0 && this.live.size - this.terminating.size > max) this.discard(this.idle[0]!);
    while (this.queue.length > 0) {
      // Busy and terminating threads count against the bound; idle ones are handed out first.
      const capacity = Math.max(0, max - (this.live.size - this.idle.length));
      if (capacity === 0) return;
      const waiter = this.queue.shift()!;
      this.unwatch(waiter.signal);
      const workers: Worker[] = [];
      try {
        while (workers.length < Math.min(waiter.want, capacity)) workers.push(this.idle.pop() ?? this.start());
      } catch (error) {
        for (const worker of workers) this.keepIdle(worker);
        waiter.fail(new GrepEngineError(`The builtin search could not start a worker thread: ${errorMessage(error)}`));
        continue;
      }
      for (const worker of workers) worker.ref();
      waiter.grant(workers);
    }
  }

  private keepIdle(worker: Worker): void {
    worker.unref();
    this.idle.push(worker);
    if (!this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        for (const idle of this.idle.splice(0)) this.discard(idle);
      }, IDLE_WORKER_MS);
      this.idleTimer.unref();
    }
  }

  private start(): Worker {
    // A small young generation: a worker allocates fast (paths, decoded files) and would otherwise
    // grow it to V8's default bound, tens of MiB of peak RSS each, for no speed gain measured.
    const worker = startWorkerThread(GREP_WORKER_SOURCE, { stdout: false, stderr: false, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    // A worker that fails is ended; the search that used it reports the error.
    worker.on('error', () => this.discard(worker));
    worker.on('exit', () => {
      this.live.delete(worker);
      this.terminating.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.pump();
    });
    this.live.add(worker);
    return worker;
  }
}

let jobCounter = 0;

/** Grep in Node: a walk on the main thread feeding batches of files to worker threads. */
export class BuiltinGrepEngine implements GrepEngine {
  readonly name = 'builtin' as const;

  constructor(
    private readonly pool: GrepWorkerPool,
    private readonly workerCount: number,
  ) {}

  async run(search: GrepSearch, limits: GrepLimits): Promise<GrepOutcome> {
    let js;
    try {
      js = toJsRegex(search.regex);
    } catch (error) {
      if (error instanceof UnsupportedRegexError) {
        throw new GrepEngineError(`The builtin search engine cannot run this pattern: ${error.message}. Simplify the pattern, or install ripgrep (rg).`);
      }
      throw error;
    }
    const spec: WorkerSpec = {
      source: js.source,
      flags: js.flags,
      multiline: search.regex.multiline,
      mode: search.mode,
      before: search.before,
      after: search.after,
      maxLineChars: search.maxLineChars,
      pageEnd: limits.pageEnd,
      maxKeptChars: limits.maxOutputBytes,
      prefilter: requiredLiterals(search.regex),
      windowBytes: WINDOW_BYTES,
      invalidUtf8: INVALID_UTF8_TEXT,
    };
    const jobId = ++jobCounter;
    const cancel = new SharedArrayBuffer(4);
    const cancelFlag = new Int32Array(cancel);
    let workers: Worker[];
    try {
      workers = await this.pool.acquire(search.file ? 1 : this.workerCount, limits.signal);
    } catch (error) {
      // Aborted while waiting for a worker: nothing was searched.
      if (limits.signal.aborted) return { files: [], totals: { files: 0, count: 0 }, unreadable: [], stopped: 'aborted' };
      throw error;
    }
    const unreadable: string[] = [];
    let stopped: GrepOutcome['stopped'];
    let failure: Error | undefined;
    const stop = (reason: NonNullable<GrepOutcome['stopped']>): void => {
      if (stopped) return;
      stopped = reason;
      Atomics.store(cancelFlag, 0, 1);
      wake();
    };
    const collector = new GrepCollector(limits.maxOutputBytes, () => stop('cap'), search.mode, limits.pageEnd);

    const outstanding = new Map<Worker, number>(workers.map((w) => [w, 0]));
    let pendingBatches = 0;
    let batchCounter = 0;
    let waiters: Array<() => void> = [];
    const wake = (): void => {
      const current = waiters;
      waiters = [];
      for (const resolve of current) resolve();
    };
    const onMessage = (worker: Worker) => (response: WorkerResponse) => {
      if (response.jobId !== jobId) return;
      outstanding.set(worker, (outstanding.get(worker) ?? 1) - 1);
      pendingBatches--;
      unreadable.push(...response.unreadable);
      for (const file of response.files) {
        if (collector.full) break;
        collector.add(toFileResult(file));
      }
      collector.addCountedOnly(response.countedOnly.files, response.countedOnly.count);
      wake();
    };
    const onError = (error: Error) => {
      failure ??= error;
      stop('aborted');
    };
    const listeners = workers.map((worker) => {
      const message = onMessage(worker);
      worker.on('message', message);
      worker.on('error', onError);
      const exit = () => onError(new Error('a search worker stopped unexpectedly'));
      worker.on('exit', exit);
      return () => {
        worker.off('message', message);
        worker.off('error', onError);
        worker.off('exit', exit);
      };
    });
    for (const worker of workers) worker.postMessage({ type: 'job', jobId, spec, cancel } satisfies WorkerRequest);

    const dispatch = async (paths: string[]): Promise<void> => {
      for (;;) {
        if (stopped) return;
        let best: Worker | undefined;
        for (const [worker, count] of outstanding) {
          if (count < MAX_BATCHES_PER_WORKER && (!best || count < outstanding.get(best)!)) best = worker;
        }
        if (best) {
          outstanding.set(best, outstanding.get(best)! + 1);
          pendingBatches++;
          best.postMessage({ type: 'batch', jobId, batchId: ++batchCounter, paths } satisfies WorkerRequest);
          return;
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };

    // The time limit counts from here, when the search has its workers, not while it waited for them.
    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    const onAbort = () => stop('aborted');
    limits.signal.addEventListener('abort', onAbort, { once: true });
    if (limits.signal.aborted) stop('aborted');
    try {
      if (search.file) await dispatch([search.file]);
      else await this.walk(search, dispatch, () => stopped !== undefined, unreadable);
      // Once stopped, nothing more is awaited: a worker can be stuck in one regex for minutes.
      while (pendingBatches > 0 && !failure && !stopped) await new Promise<void>((resolve) => waiters.push(resolve));
    } finally {
      clearTimeout(timer);
      limits.signal.removeEventListener('abort', onAbort);
      listeners.forEach((off) => off());
      // A worker still holding a batch is terminated (the pool starts another when needed); the rest are reused.
      const busy = failure ? workers : workers.filter((w) => outstanding.get(w)! > 0);
      busy.forEach((w) => this.pool.discard(w));
      this.pool.release(workers.filter((w) => !busy.includes(w)));
    }
    if (failure) throw new GrepEngineError(`The builtin search failed: ${failure.message}`);
    return { files: collector.files, totals: collector.totals, unreadable, ...(stopped ? { stopped } : {}) };
  }

  private async walk(search: GrepSearch, dispatch: (paths: string[]) => Promise<void>, isStopped: () => boolean, unreadable: string[]): Promise<void> {
    const root = search.root;
    const tree = await IgnoreTree.open(root, localSearchFs, { enabled: !search.includeIgnored });
    const listing = new FilteredListing(localSearchFs, tree);
    const glob = search.glob;
    const typeMatches = search.typeGlobs ? compileFileTypeMatcher(search.typeGlobs) : undefined;
    const prefix = root === '/' ? 1 : root.length + 1;
    let batch: string[] = [];
    const pending: string[] = [root];
    let inFlight = 0;

    const visit = async (dir: string): Promise<void> => {
      let entries;
      try {
        // In name order (Node lists a folder sorted: libuv's scandir sorts by bytes).
        entries = (await listing.list(dir)).entries;
      } catch {
        unreadable.push(dir);
        return;
      }
      const folders: string[] = [];
      for (const entry of entries) {
        if (isStopped()) return;
        const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
        const rel = path.slice(prefix);
        if (entry.isDirectory()) {
          if (glob && !searchGlobAllows(glob, rel, true)) continue;
          folders.push(path);
          continue;
        }
        if (glob && !searchGlobAllows(glob, rel, false)) continue;
        if (typeMatches && !typeMatches(entry.name)) continue;
        if (isSensitivePath(path)) continue;
        batch.push(path);
        if (batch.length >= BATCH_FILES) {
          const full = batch;
          batch = [];
          await dispatch(full);
        }
      }
      // Largest first, so the stack gives the smallest next: files reach the workers roughly in
      // the path order of a page, and once a worker's page is full most later matches sort after
      // it and are only counted, not sent with their lines (a common pattern over the bench
      // corpus: 665 of its 27,000 matching files; 8,000 with the folders taken largest first).
      for (let i = folders.length - 1; i >= 0; i--) pending.push(folders[i]!);
    };

    await new Promise<void>((resolve) => {
      const pump = (): void => {
        while (!isStopped() && inFlight < WALK_CONCURRENCY && pending.length > 0) {
          const dir = pending.pop()!;
          inFlight++;
          void visit(dir).finally(() => {
            inFlight--;
            pump();
          });
        }
        if (inFlight === 0 && (pending.length === 0 || isStopped())) resolve();
      };
      pump();
    });
    if (batch.length > 0 && !isStopped()) await dispatch(batch);
  }
}

/**
 * A content result of the builtin engine, kept packed as the worker sent it: its lines are
 * unpacked only when shown (most results of a big search fall outside the page).
 */
class BuiltinContentFile implements GrepFileResult {
  private unpacked: GrepLine[] | undefined;

  constructor(
    readonly path: string,
    readonly count: number,
    private readonly packed: NonNullable<WorkerFileResult['lines']>,
  ) {}

  /** As GrepCollector counts unpacked lines: their text and 16 per line. */
  get weight(): number {
    return this.packed.text.length + this.packed.marks.length * 8;
  }

  get lines(): readonly GrepLine[] {
    if (!this.unpacked) {
      const { text, marks } = this.packed;
      const lines: GrepLine[] = [];
      let start = 0;
      for (let i = 0; i < marks.length; i += 2) {
        const end = i + 2 < marks.length ? text.indexOf('\n', start) : text.length;
        const flags = marks[i + 1]!;
        lines.push({ n: marks[i]!, text: text.slice(start, end), match: (flags & LINE_MATCH) !== 0, cut: (flags & LINE_CUT) !== 0 });
        start = end + 1;
      }
      this.unpacked = lines;
    }
    return this.unpacked;
  }
}

function toFileResult(file: WorkerFileResult): GrepFileResult {
  if (file.lines) return new BuiltinContentFile(file.path, file.count, file.lines);
  return file.mtimeMs === undefined ? { path: file.path, count: file.count } : { path: file.path, count: file.count, mtimeMs: file.mtimeMs };
}
