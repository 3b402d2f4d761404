import { injectable } from 'inversify';
import { comparablePath } from '../../../tool/accessPaths';
import type { IFileWriteLocks } from '../contract';

/**
 * One chain of waiting writers per path: a writer runs when the one before it settled. An entry
 * lives only while someone holds or waits for it, so the table stays as small as the writes in flight.
 */
@injectable()
export class FileWriteLocks implements IFileWriteLocks {
  private readonly tails = new Map<string, Promise<void>>();

  get lockedPaths(): readonly string[] {
    return [...this.tails.keys()];
  }

  async withLock<T>(path: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const key = comparablePath(path);
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      await untilOrAborted(previous, signal);
      return await work();
    } finally {
      release();
      // Settles only after `mine`: if nobody queued behind, the entry goes.
      void tail.then(() => {
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    }
  }
}

function untilOrAborted(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    void wait.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
