import { conflict, type ToolAccesses } from '../../tool/accesses';

type TaskState = 'preparing' | 'ready' | 'running' | 'done';

export interface ScheduledTask {
  readonly index: number;
  readonly accesses: ToolAccesses;
}

interface TaskEntry extends ScheduledTask {
  // Changed only by `retarget`.
  accesses: ToolAccesses;
  state: TaskState;
  start?: () => void;
}

/**
 * Orders the calls of one batch by their accesses. Tasks are added in call order. A task starts
 * when it is ready (its hooks and approval are done) and conflicts neither with a running task nor
 * with an earlier task that has not finished, so a conflicting call never overtakes an earlier one,
 * while independent calls run side by side, even past an earlier call that still waits for approval.
 */
export class ToolScheduler {
  private readonly tasks: TaskEntry[] = [];
  /** Tasks not yet done, in call order (a Set keeps insertion order and deletes in O(1)). */
  private readonly unfinished = new Set<TaskEntry>();
  /** Ready tasks blocked by a conflict, in call order. */
  private waiting: TaskEntry[] = [];

  /** Registers a task in call order; it starts only after `whenStartable`. */
  add(accesses: ToolAccesses): ScheduledTask {
    const task: TaskEntry = { index: this.tasks.length, accesses, state: 'preparing' };
    this.tasks.push(task);
    this.unfinished.add(task);
    return task;
  }

  /** Marks the task ready; resolves when it may start. The caller then runs it and calls `finish`. */
  whenStartable(task: ScheduledTask): Promise<void> {
    const entry = this.entry(task);
    if (entry.state !== 'preparing') throw new Error(`Task ${task.index} is already ${entry.state}.`);
    if (this.canStart(entry)) {
      entry.state = 'running';
      return Promise.resolve();
    }
    entry.state = 'ready';
    return new Promise<void>((resolve) => {
      entry.start = resolve;
      let at = this.waiting.length;
      while (at > 0 && this.waiting[at - 1]!.index > entry.index) at--;
      this.waiting.splice(at, 0, entry);
    });
  }

  /**
   * A running task now touches other resources (it was resolved again right before it ran): it
   * takes its place again with the new accesses, as if it had just become ready. Resolves when it
   * may start; the caller finishes the task in any case.
   */
  retarget(task: ScheduledTask, accesses: ToolAccesses): Promise<void> {
    const entry = this.entry(task);
    if (entry.state !== 'running') throw new Error(`Task ${task.index} is ${entry.state}, not running.`);
    entry.accesses = accesses;
    entry.state = 'preparing';
    const startable = this.whenStartable(entry);
    // Its old accesses may have held back tasks that can start now.
    this.pump();
    return startable;
  }

  /** The task finished, or will never run; later tasks may start. */
  finish(task: ScheduledTask): void {
    const entry = this.entry(task);
    if (entry.state === 'done') return;
    const wasWaiting = entry.state === 'ready';
    entry.state = 'done';
    this.unfinished.delete(entry);
    if (wasWaiting) {
      this.waiting = this.waiting.filter((t) => t !== entry);
      // Release a caller still awaiting the start of a task that was given up (aborted while queued).
      entry.start?.();
      entry.start = undefined;
    }
    this.pump();
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

  private pump(): void {
    if (this.waiting.length === 0) return;
    const still: TaskEntry[] = [];
    for (const task of this.waiting) {
      if (this.canStart(task)) {
        task.state = 'running';
        const start = task.start;
        task.start = undefined;
        start?.();
      } else {
        still.push(task);
      }
    }
    this.waiting = still;
  }

  private canStart(task: TaskEntry): boolean {
    // A call that touches nothing conflicts with nothing.
    if (task.accesses.length === 0) return true;
    for (const other of this.unfinished) {
      if (other === task || other.accesses.length === 0) continue;
      if (other.index > task.index && other.state !== 'running') continue;
      if (conflict(other.accesses, task.accesses)) return false;
    }
    return true;
  }
}
