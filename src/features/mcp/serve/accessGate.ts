import { conflict, type ToolAccesses } from '../../../tool/accesses';

interface Entry {
  readonly accesses: ToolAccesses;
  start?: () => void;
}

/**
 * Orders calls of *different* executor batches that touch the same resources (the executor's
 * scheduler orders calls within one batch only). A call holds the gate from the moment it may run
 * until it finishes. It may start when its accesses conflict (DESIGN §4) with no holder and with
 * no call that arrived earlier and still waits: a conflicting call never overtakes an earlier one,
 * independent calls pass side by side, and a call that touches nothing never waits.
 */
export class AccessGate {
  private readonly holders = new Set<Entry>();
  private waiting: Entry[] = [];

  /**
   * Resolves with a release function once the call may run, or with `undefined` when `signal`
   * aborts first (the caller then does not run). Call the release function exactly when the call
   * has finished; calling it twice is harmless.
   */
  acquire(accesses: ToolAccesses, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    const entry: Entry = { accesses };
    if (this.canStart(entry, this.waiting.length)) return Promise.resolve(this.hold(entry));
    return new Promise((resolve) => {
      const onAbort = () => {
        this.waiting = this.waiting.filter((e) => e !== entry);
        resolve(undefined);
        // A later call may have waited only for this one.
        this.pump();
      };
      entry.start = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.hold(entry));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Calls holding the gate and calls waiting for it (diagnostics and tests). */
  get state(): { readonly holding: number; readonly waiting: number } {
    return { holding: this.holders.size, waiting: this.waiting.length };
  }

  private hold(entry: Entry): () => void {
    this.holders.add(entry);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders.delete(entry);
      this.pump();
    };
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const entry = this.waiting[i]!;
      if (this.canStart(entry, i)) {
        this.waiting.splice(i, 1);
        const start = entry.start;
        entry.start = undefined;
        start?.();
      } else {
        i++;
      }
    }
  }

  /** `before`: how many waiting entries arrived earlier than this one. */
  private canStart(entry: Entry, before: number): boolean {
    if (entry.accesses.length === 0) return true;
    for (const holder of this.holders) {
      if (holder.accesses.length > 0 && conflict(holder.accesses, entry.accesses)) return false;
    }
    for (let i = 0; i < before; i++) {
      const earlier = this.waiting[i]!;
      if (earlier.accesses.length > 0 && conflict(earlier.accesses, entry.accesses)) return false;
    }
    return true;
  }
}
