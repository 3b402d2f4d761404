import { type IDisposable, toDisposable } from '../../base/lifecycle';

export interface OrderedHook<L> {
  readonly listener: L;
  /** Named in the error when the listener throws. */
  readonly name: string;
  readonly order: number;
}

export interface OrderedHookOptions {
  /** Defaults to the function's name, else "anonymous". */
  readonly name?: string;
  /** Lower runs first; defaults to the list's default order. */
  readonly order?: number;
}

/**
 * Listeners kept sorted by order; equal orders keep registration order. The list is replaced on
 * every change, never mutated, so a snapshot a call iterates is not changed by listeners added or
 * removed while it runs.
 */
export class OrderedHooks<L extends (...args: never[]) => unknown> {
  private hooks: readonly OrderedHook<L>[] = [];

  constructor(private readonly defaultOrder = 0) {}

  add(listener: L, options: OrderedHookOptions = {}): IDisposable {
    const hook: OrderedHook<L> = { listener, name: options.name ?? (listener.name || 'anonymous'), order: options.order ?? this.defaultOrder };
    const at = this.hooks.findIndex((h) => h.order > hook.order);
    this.hooks = at < 0 ? [...this.hooks, hook] : [...this.hooks.slice(0, at), hook, ...this.hooks.slice(at)];
    return toDisposable(() => (this.hooks = this.hooks.filter((h) => h !== hook)));
  }

  /** The listeners in the order they run. */
  get snapshot(): readonly OrderedHook<L>[] {
    return this.hooks;
  }

  get isEmpty(): boolean {
    return this.hooks.length === 0;
  }
}
