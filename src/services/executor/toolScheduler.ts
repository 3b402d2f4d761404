import type { ToolAccesses } from '../../tool/accesses';
import { AccessIndex } from './accessIndex';

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
  /** Ready tasks this one was found to hold back: they are checked again when it finishes or is retargeted. */
  heldBack?: TaskEntry[];
}

/**
 * Orders the calls of one batch by their accesses. Tasks are added in call order. A task starts
 * when it is ready (its hooks and approval are done) and conflicts neither with a running task nor
 * with an earlier task that has not finished, so a conflicting call never overtakes an earlier one,
 * while independent calls run side by side, even past an earlier call that still waits for approval.
 *
 * The unfinished tasks are indexed by resource (AccessIndex), so a check costs the depth of the
 * task's paths, not the batch's size; a waiting task is checked again only when the task that
 * held it back finishes or is retargeted, the only events that can let it start.
 */
export class ToolScheduler {
  private readonly tasks: TaskEntry[] = [];
  private readonly index = new AccessIndex<TaskEntry>();

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
    const blocker = this.index.blockerOf(entry);
    if (!blocker) {
      this.markRunning(entry);
      return Promise.resolve();
    }
    entry.state = 'ready';
    return new Promise<void>((resolve) => {
      entry.start = resolve;
      (blocker.heldBack ??= []).push(entry);
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
    this.index.remove(entry);
    entry.accesses = accesses;
    entry.state = 'preparing';
    this.index.add(entry, accesses);
    const startable = this.whenStartable(entry);
    // Its old accesses may have held back tasks that can start now.
    this.release(entry);
    return startable;
  }

  /** The task finished, or will never run; later tasks may start. */
  finish(task: ScheduledTask): void {
    const entry = this.entry(task);
    if (entry.state === 'done') return;
    const wasWaiting = entry.state === 'ready';
    entry.state = 'done';
    this.index.remove(entry);
    if (wasWaiting) {
      // Release a caller still awaiting the start of a task that was given up (aborted while
      // queued). The task that held it back skips it, as it is no longer ready.
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

  private markRunning(entry: TaskEntry): void {
    entry.state = 'running';
    this.index.markRunning(entry);
  }

  /** Checks again, in call order, the tasks `entry` held back: each starts or waits for its next blocker. */
  private release(entry: TaskEntry): void {
    const heldBack = entry.heldBack;
    if (!heldBack) return;
    entry.heldBack = undefined;
    heldBack.sort((a, b) => a.index - b.index);
    for (const waiter of heldBack) {
      if (waiter.state !== 'ready') continue;
      const blocker = this.index.blockerOf(waiter);
      if (blocker) {
        (blocker.heldBack ??= []).push(waiter);
        continue;
      }
      this.markRunning(waiter);
      const start = waiter.start;
      waiter.start = undefined;
      start?.();
    }
  }
}
