import type { ToolAccesses } from '../../tool/accesses';
import { AccessIndex } from './accessIndex';

type TaskState = 'preparing' | 'ready' | 'running' | 'done';

const NO_ACCESSES: ToolAccesses = [];

export interface ScheduledTask {
  readonly index: number;
  readonly accesses: ToolAccesses;
}

interface TaskEntry extends ScheduledTask {
  // Changed only by `retarget`.
  accesses: ToolAccesses;
  state: TaskState;
  start?: () => void;
  /** Ready tasks this one was found to hold back: they are checked again when it finishes or is retargeted. */
  heldBack?: TaskEntry[];
}

export interface ToolSchedulerOptions {
  /** At most this many tasks run at once; a task that conflicts with nothing waits for a free slot, earliest first. */
  readonly maxRunning?: number;
}

/**
 * Orders the calls of one batch by their accesses. Tasks are added in call order. A task starts
 * when it is ready (its hooks and approval are done) and conflicts neither with a running task nor
 * with an earlier task that has not finished, so a conflicting call never overtakes an earlier one,
 * while independent calls run side by side, even past an earlier call that still waits for approval
 * (up to `maxRunning` at once, so a huge batch does not hold every call's files and buffers at once).
 *
 * The unfinished tasks are indexed by resource (AccessIndex), so a check costs the depth of the
 * task's paths, not the batch's size; a waiting task is checked again only when the task that
 * held it back finishes or is retargeted, the only events that can let it start.
 */
export class ToolScheduler {
  private readonly tasks: TaskEntry[] = [];
  private readonly index = new AccessIndex<TaskEntry>();
  private readonly maxRunning: number;
  private runningCount = 0;
  /** Ready tasks that conflict with nothing but found no free slot. */
  private readonly queued = new TaskHeap();

  constructor(options: ToolSchedulerOptions = {}) {
    const maxRunning = options.maxRunning ?? Infinity;
    if (!(maxRunning >= 1)) throw new Error(`maxRunning must be at least 1, not ${String(maxRunning)}.`);
    this.maxRunning = maxRunning;
  }

  /** Registers a task in call order; it starts only after `whenStartable`. */
  add(accesses: ToolAccesses): ScheduledTask {
    const task: TaskEntry = { index: this.tasks.length, accesses, state: 'preparing' };
    this.tasks.push(task);
    this.index.add(task, accesses);
    return task;
  }

  /** Marks the task ready; resolves when it may start. The caller then runs it and calls `finish`. */
  whenStartable(task: ScheduledTask): Promise<void> {
    const entry = this.entry(task);
    if (entry.state !== 'preparing') throw new Error(`Task ${task.index} is already ${entry.state}.`);
    if (this.runningCount < this.maxRunning && !this.index.blockerOf(entry)) {
      this.markRunning(entry);
      return Promise.resolve();
    }
    return this.wait(entry);
  }

  /**
   * A running task now touches other resources (it was resolved again right before it ran): it
   * gives up its slot and takes its place again with the new accesses, as if it had just become
   * ready. Resolves when it may start; the caller finishes the task in any case.
   */
  retarget(task: ScheduledTask, accesses: ToolAccesses): Promise<void> {
    const entry = this.entry(task);
    if (entry.state !== 'running') throw new Error(`Task ${task.index} is ${entry.state}, not running.`);
    this.index.remove(entry);
    entry.accesses = accesses;
    this.runningCount--;
    this.index.add(entry, accesses);
    const startable = this.wait(entry);
    // It competes for its slot in call order; its old accesses may have held back tasks that can start now.
    this.release(entry);
    return startable;
  }

  /** The task finished, or will never run; later tasks may start. */
  finish(task: ScheduledTask): void {
    const entry = this.entry(task);
    if (entry.state === 'done') return;
    const was = entry.state;
    entry.state = 'done';
    this.index.remove(entry);
    // The batch keeps its entries until it ends; a finished one need not keep its accesses.
    entry.accesses = NO_ACCESSES;
    if (was === 'running') this.runningCount--;
    if (was === 'ready') {
      // Release a caller still awaiting the start of a task that was given up (aborted while
      // queued). Whatever held it back skips it, as it is no longer ready.
      entry.start?.();
      entry.start = undefined;
    }
    this.release(entry);
  }

  /** Indexes of running tasks, in call order (diagnostics and tests). */
  running(): number[] {
    return this.tasks.filter((t) => t.state === 'running').map((t) => t.index);
  }

  private entry(task: ScheduledTask): TaskEntry {
    const entry = this.tasks[task.index];
    if (!entry || entry !== task) throw new Error('Unknown task.');
    return entry;
  }

  /** The task waits for the task that holds it back, or else for a slot. */
  private wait(entry: TaskEntry): Promise<void> {
    entry.state = 'ready';
    return new Promise<void>((resolve) => {
      entry.start = resolve;
      const blocker = this.index.blockerOf(entry);
      if (blocker) (blocker.heldBack ??= []).push(entry);
      else this.queued.push(entry);
    });
  }

  private markRunning(entry: TaskEntry): void {
    entry.state = 'running';
    this.runningCount++;
    this.index.markRunning(entry);
  }

  /**
   * After `entry` finished or was retargeted: the tasks it held back, and those waiting for a
   * slot, are checked in call order; each starts while slots are free, waits for its next
   * blocker, or waits for a slot.
   */
  private release(entry: TaskEntry): void {
    const heldBack = entry.heldBack ?? [];
    entry.heldBack = undefined;
    heldBack.sort((a, b) => a.index - b.index);
    let next = 0;
    for (;;) {
      const fromQueue = this.runningCount < this.maxRunning ? this.queued.peek() : undefined;
      const held = heldBack[next];
      if (!held && !fromQueue) return;
      let waiter: TaskEntry;
      if (held && (!fromQueue || held.index < fromQueue.index)) {
        waiter = held;
        next++;
      } else waiter = this.queued.pop()!;
      if (waiter.state !== 'ready') continue;
      const blocker = this.index.blockerOf(waiter);
      if (blocker) (blocker.heldBack ??= []).push(waiter);
      else if (this.runningCount >= this.maxRunning) this.queued.push(waiter);
      else {
        this.markRunning(waiter);
        const start = waiter.start;
        waiter.start = undefined;
        start?.();
      }
    }
  }
}

/** A binary min-heap of tasks by call order. */
class TaskHeap {
  private readonly items: TaskEntry[] = [];

  peek(): TaskEntry | undefined {
    return this.items[0];
  }

  push(task: TaskEntry): void {
    const items = this.items;
    let at = items.push(task) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (items[parent]!.index <= task.index) break;
      items[at] = items[parent]!;
      at = parent;
    }
    items[at] = task;
  }

  pop(): TaskEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && items[right]!.index < items[left]!.index ? right : left;
      if (items[child]!.index >= last.index) break;
      items[at] = items[child]!;
      at = child;
    }
    items[at] = last;
    return top;
  }
}
