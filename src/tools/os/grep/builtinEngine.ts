import { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import { isSensitivePath } from '../../../tool/sensitivePaths';
import { FilteredListing } from '../search/filteredListing';
import { IgnoreTree } from '../search/ignoreTree';
import { searchGlobAllows } from '../search/searchGlob';
import { localSearchFs } from '../search/searchPaths';
import { GrepCollector, type GrepEngine, GrepEngineError, type GrepFileResult, type GrepLimits, type GrepOutcome, type GrepSearch } from './grepEngine';
import { GREP_WORKER_SOURCE, type WorkerRequest, type WorkerResponse, type WorkerSpec } from './grepWorker';
import { requiredLiterals, toJsRegex, UnsupportedRegexError } from './rustRegex';

const BATCH_FILES = 48;
const MAX_BATCHES_PER_WORKER = 2;
const WALK_CONCURRENCY = 8;
const BIG_FILE_BYTES = 8 * 1024 * 1024;
const WINDOW_BYTES = 1024 * 1024;
const IDLE_WORKER_MS = 30_000;

/** Matches file names against the globs of a ripgrep file type. */
export function compileFileTypeMatcher(globs: readonly string[]): (name: string) => boolean {
  return picomatch([...globs], { dot: true, nonegate: true, noextglob: true });
}

/**
 * Worker threads for the builtin engine, kept for a while between calls (starting one costs tens
 * of milliseconds). Idle workers do not keep the process alive; all are ended by dispose().
 */
export class GrepWorkerPool {
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly keepIdle: () => number) {}

  get size(): number {
    return this.live.size;
  }

  acquire(count: number): Worker[] {
    if (this.disposed) throw new GrepEngineError('The Grep worker pool was disposed.');
    const workers: Worker[] = [];
    while (workers.length < count && this.idle.length > 0) workers.push(this.idle.pop()!);
    while (workers.length < count) {
      const worker = new Worker(GREP_WORKER_SOURCE, { eval: true, stdout: false, stderr: false });
      // A worker that fails is removed; the job that used it reports the error.
      worker.on('error', () => this.discard(worker));
      worker.on('exit', () => this.live.delete(worker));
      this.live.add(worker);
      workers.push(worker);
    }
    for (const worker of workers) worker.ref();
    return workers;
  }

  release(workers: readonly Worker[]): void {
    for (const worker of workers) {
      if (!this.live.has(worker)) continue;
      if (this.disposed || this.idle.length >= this.keepIdle()) {
        this.discard(worker);
        continue;
      }
      worker.unref();
      this.idle.push(worker);
    }
    if (this.idle.length > 0 && !this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        for (const worker of this.idle.splice(0)) this.discard(worker);
      }, IDLE_WORKER_MS);
      this.idleTimer.unref();
    }
  }

  discard(worker: Worker): void {
    this.live.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    void worker.terminate();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idle.length = 0;
    await Promise.all([...this.live].map((worker) => worker.terminate()));
    this.live.clear();
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
      prefilter: requiredLiterals(search.regex),
      bigFileBytes: BIG_FILE_BYTES,
      windowBytes: WINDOW_BYTES,
    };
    const jobId = ++jobCounter;
    const cancel = new SharedArrayBuffer(4);
    const cancelFlag = new Int32Array(cancel);
    const workers = this.pool.acquire(search.file ? 1 : this.workerCount);
    const unreadable: string[] = [];
    let stopped: GrepOutcome['stopped'];
    let failure: Error | undefined;
    const stop = (reason: NonNullable<GrepOutcome['stopped']>): void => {
      if (stopped) return;
      stopped = reason;
      Atomics.store(cancelFlag, 0, 1);
      wake();
    };
    const collector = new GrepCollector(limits.maxOutputBytes, () => stop('cap'));

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

    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    const onAbort = () => stop('aborted');
    limits.signal.addEventListener('abort', onAbort, { once: true });
    if (limits.signal.aborted) stop('aborted');
    try {
      if (search.file) await dispatch([search.file]);
      else await this.walk(search, dispatch, () => stopped !== undefined, unreadable);
      while (pendingBatches > 0 && !failure) await new Promise<void>((resolve) => waiters.push(resolve));
    } finally {
      clearTimeout(timer);
      limits.signal.removeEventListener('abort', onAbort);
      listeners.forEach((off) => off());
      if (failure) workers.forEach((w) => this.pool.discard(w));
      else this.pool.release(workers);
    }
    if (failure) throw new GrepEngineError(`The builtin search failed: ${failure.message}`);
    return { files: collector.files, unreadable, ...(stopped ? { stopped } : {}) };
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
        entries = (await listing.list(dir)).entries;
      } catch {
        unreadable.push(dir);
        return;
      }
      for (const entry of entries) {
        if (isStopped()) return;
        const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
        const rel = path.slice(prefix);
        if (entry.isDirectory()) {
          if (glob && !searchGlobAllows(glob, rel, true)) continue;
          pending.push(path);
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

function toFileResult(file: { path: string; count: number; lines?: Array<[number, string, number, number]> }): GrepFileResult {
  if (!file.lines) return { path: file.path, count: file.count };
  return {
    path: file.path,
    count: file.count,
    lines: file.lines.map(([n, text, match, cut]) => ({ n, text, match: match === 1, cut: cut === 1 })),
  };
}
