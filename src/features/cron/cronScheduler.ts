import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import type { IDisposable } from '../../base/lifecycle';
import { IClock } from '../../services/clock/clock';
import { IConfigService } from '../../services/config/config';
import type { ClockJump, CronTimerFiring, ICronScheduler } from './contract';
import { cronConfig } from './cronConfig';

/** A timer that runs this much earlier or later than the wall clock says it should means the clock jumped (or the machine slept). */
export const CLOCK_JUMP_TOLERANCE_MS = 60_000;

interface Entry {
  readonly key: string;
  readonly at: number;
  readonly fire: (firing: CronTimerFiring) => void;
  /** False once cancelled or moved: the heap drops it when it reaches the top. */
  live: boolean;
}

/**
 * ICronScheduler: a binary min-heap of entries by time (cancelled ones are dropped lazily) and one
 * IClock timer for the earliest. Scheduling an entry later than the armed timer sets no timer.
 */
@injectable()
export class CronScheduler implements ICronScheduler {
  private readonly entries = new Map<string, Entry>();
  private heap: Entry[] = [];
  private timer: IDisposable | undefined;
  /** The wall-clock time the armed timer is for. */
  private timerAt = 0;
  private readonly jumpEmitter = new Emitter<ClockJump>();
  readonly onClockJump = this.jumpEmitter.event;
  private readonly fireErrorEmitter = new Emitter<{ readonly key: string; readonly error: unknown }>();
  readonly onFireError = this.fireErrorEmitter.event;
  private disposed = false;

  constructor(
    @inject(IClock) private readonly clock: IClock,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get nextAt(): number | undefined {
    return this.peek()?.at;
  }

  schedule(key: string, at: number, fire: (firing: CronTimerFiring) => void): void {
    if (this.disposed) return;
    if (!Number.isFinite(at)) throw new Error(`CronScheduler.schedule: "at" must be a finite time in ms since the epoch, not ${at}.`);
    const previous = this.entries.get(key);
    if (previous) previous.live = false;
    const entry: Entry = { key, at, fire, live: true };
    this.entries.set(key, entry);
    this.push(entry);
    this.arm();
  }

  cancel(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.live = false;
    this.entries.delete(key);
    // Many cancelled entries: rebuild, so the heap stays proportional to what is live.
    if (this.heap.length > 64 && this.heap.length > 2 * this.entries.size) this.rebuild();
    if (this.entries.size === 0) this.disarm();
  }

  check(): void {
    if (this.disposed) return;
    this.disarm();
    this.runDue(this.clock.now());
    this.arm();
  }

  private wake(): void {
    this.timer = undefined;
    const now = this.clock.now();
    const driftMs = now - this.timerAt;
    if (Math.abs(driftMs) > CLOCK_JUMP_TOLERANCE_MS) this.jumpEmitter.fire({ expectedAt: this.timerAt, now, driftMs });
    this.runDue(now);
    this.arm();
  }

  private runDue(now: number): void {
    for (let top = this.peek(); top !== undefined && top.at <= now; top = this.peek()) {
      this.pop();
      top.live = false;
      this.entries.delete(top.key);
      try {
        top.fire({ scheduledAt: top.at, now });
      } catch (error) {
        this.fireErrorEmitter.fire({ key: top.key, error });
      }
    }
  }

  /** Sets the timer for the earliest entry, capped at the wake check; keeps an armed timer that is due no later. */
  private arm(): void {
    if (this.disposed) return;
    const next = this.peek();
    if (next === undefined) return this.disarm();
    const now = this.clock.now();
    const at = Math.min(next.at, now + this.config.section(cronConfig).wakeCheckMinutes * 60_000);
    if (this.timer && this.timerAt <= at) return;
    this.disarm();
    this.timerAt = at;
    this.timer = this.clock.setTimer(Math.max(0, at - now), () => this.wake());
  }

  private disarm(): void {
    this.timer?.dispose();
    this.timer = undefined;
  }

  private peek(): Entry | undefined {
    while (this.heap.length > 0 && !this.heap[0]!.live) this.pop();
    return this.heap[0];
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
      if (heap[child]!.at >= last.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }

  private rebuild(): void {
    const live = this.heap.filter((e) => e.live);
    this.heap = [];
    for (const entry of live) this.push(entry);
  }

  @preDestroy()
  dispose(): void {
    this.disposed = true;
    this.disarm();
    this.entries.clear();
    this.heap = [];
    this.jumpEmitter.dispose();
    this.fireErrorEmitter.dispose();
  }
}
