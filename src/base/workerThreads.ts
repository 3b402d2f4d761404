import type { Worker, WorkerOptions } from 'node:worker_threads';
import { nodeBuiltins } from './nodeBuiltins';
import { reassertYoungGenerationHold } from './youngGeneration';

/**
 * Starts a worker thread from its source (`eval`). Every thread of the package starts here:
 * setting up the thread's V8 isolate undoes a young-generation hold, which is set again once the
 * thread is online (base/youngGeneration.ts).
 */
export function startWorkerThread(source: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const worker = new (nodeBuiltins.workerThreads().Worker)(source, { ...options, eval: true });
  worker.once('online', reassertYoungGenerationHold);
  return worker;
}
