import { type IDisposable, toDisposable } from '../../src/base/lifecycle';
import type { IClock } from '../../src/services/clock/clock';

interface FakeTimer {
  readonly due: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * An IClock a test moves by hand, with the two clocks a real machine has: the wall clock (`now()`)
 * and elapsed time, which timers follow. `advance` moves both and runs the timers that come due;
 * `jump` moves the wall clock alone, as a sleep or a clock change does. It counts the timers set.
 */
export class FakeClock implements IClock {
  private wall: number;
  private elapsed = 0;
  private seq = 0;
  private timers: FakeTimer[] = [];
  /** Timers set so far. */
  created = 0;
  /** The most timers armed at one time. */
  maxArmed = 0;

  constructor(start: number) {
    this.wall = start;
  }

  now(): number {
    return this.wall;
  }

  setTimer(delayMs: number, callback: () => void): IDisposable {
    const timer: FakeTimer = { due: this.elapsed + Math.max(0, delayMs), seq: ++this.seq, callback };
    this.timers.push(timer);
    this.created++;
    this.maxArmed = Math.max(this.maxArmed, this.timers.length);
    return toDisposable(() => (this.timers = this.timers.filter((t) => t !== timer)));
  }

  /** Timers armed now. */
  get armed(): number {
    return this.timers.length;
  }

  /** When the next timer runs, by the wall clock; undefined when none is armed. */
  get nextTimerAt(): number | undefined {
    const next = this.earliest();
    return next && this.wall + (next.due - this.elapsed);
  }

  /** Moves both clocks by `ms`, running each timer that comes due in order, and awaiting `settle` after each. */
  async advance(ms: number, settle: () => Promise<void> = async () => undefined): Promise<void> {
    const end = this.elapsed + ms;
    for (let next = this.earliest(); next !== undefined && next.due <= end; next = this.earliest()) {
      this.wall += next.due - this.elapsed;
      this.elapsed = next.due;
      this.timers = this.timers.filter((t) => t !== next);
      next.callback();
      await settle();
    }
    this.wall += end - this.elapsed;
    this.elapsed = end;
    await settle();
  }

  /** Advances to the wall-clock time `at` (see advance). */
  advanceTo(at: number, settle?: () => Promise<void>): Promise<void> {
    return this.advance(at - this.wall, settle);
  }

  /** Moves the wall clock alone (the machine slept, or the clock was set): armed timers do not notice. */
  jump(ms: number): void {
    this.wall += ms;
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    return best;
  }
}
