import { type IDisposable, toDisposable } from './lifecycle';

/** Subscribe with a listener; the returned disposable unsubscribes. */
export type Event<T> = (listener: (value: T) => void) => IDisposable;

/** Told about a listener that threw, with the listener itself (to name it). */
export type ListenerErrorHandler<T> = (error: unknown, listener: (value: T) => void) => void;

/**
 * A synchronous event source. A listener that throws does not stop the others: the error is
 * handed to `onListenerError` (default: rethrown on a microtask so it is visible but contained).
 * A handler that throws itself is ignored, so `fire` never throws.
 */
export class Emitter<T> implements IDisposable {
  private listeners: Array<(value: T) => void> = [];
  private disposed = false;

  constructor(private readonly onListenerError: ListenerErrorHandler<T> = reportUnexpected) {}

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return toDisposable(() => undefined);
    this.listeners.push(listener);
    return toDisposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };

  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  fire(value: T): void {
    for (const listener of this.listeners.slice()) {
      try {
        listener(value);
      } catch (error) {
        try {
          this.onListenerError(error, listener);
        } catch {
          // The handler is the last place an error can go; fire() must not throw into the code that fired.
        }
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}

function reportUnexpected(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

/** Resolves with the next value of an event. */
export function nextEvent<T>(event: Event<T>): Promise<T> {
  return new Promise((resolve) => {
    const sub = event((value) => {
      sub.dispose();
      resolve(value);
    });
  });
}
