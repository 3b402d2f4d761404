import { Worker } from 'node:worker_threads';

/**
 * Modification times of many local files, read on a worker thread while the main thread walks
 * on: a synchronous stat costs the main thread a few microseconds (the syscall and the Stats
 * object), which for tens of thousands of matches is as much as the walk itself. The worker
 * lives for one listing; a small listing never starts one (its start costs more than it saves).
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, paths }) => {
  const mtimes = new Float64Array(paths.length);
  for (let i = 0; i < paths.length; i++) {
    let stat;
    try { stat = fs.statSync(paths[i], { throwIfNoEntry: false }); } catch { stat = undefined; }
    mtimes[i] = stat ? stat.mtimeMs : NaN;
  }
  parentPort.postMessage({ id, mtimes }, [mtimes.buffer]);
});
`;

export class MtimeWorker {
  private readonly worker = new Worker(SOURCE, { eval: true, stdout: false, stderr: false });
  private readonly waiting = new Map<number, (mtimes: Float64Array) => void>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor() {
    this.worker.unref();
    this.worker.on('message', ({ id, mtimes }: { id: number; mtimes: Float64Array }) => {
      this.waiting.get(id)?.(mtimes);
      this.waiting.delete(id);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the stat worker exited')));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const resolve of this.waiting.values()) resolve(new Float64Array(0));
    this.waiting.clear();
  }

  /** The modification times of absolute paths, NaN for one that is gone; undefined if the worker failed. */
  async mtimes(paths: readonly string[]): Promise<Float64Array | undefined> {
    if (this.failure) return undefined;
    const id = this.nextId++;
    const result = new Promise<Float64Array>((resolve) => this.waiting.set(id, resolve));
    this.worker.postMessage({ id, paths });
    const mtimes = await result;
    return mtimes.length === paths.length ? mtimes : undefined;
  }

  async dispose(): Promise<void> {
    await this.worker.terminate();
  }
}
