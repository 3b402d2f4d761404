import { conflict, ToolAccesses, type ToolAccess, type ToolAccesses as Accesses } from '../../../src/tool/accesses';
import { ToolScheduler, type ScheduledTask } from '../../../src/services/executor/toolScheduler';
import { prng } from '../../helpers/prng';

/**
 * The scheduler indexes unfinished tasks by resource; these tests hold it to the rule it
 * implements, written out the straightforward way: a task may start when no other unfinished task
 * that is earlier than it, or running, conflicts with it (by `conflict()`), and fewer than
 * `maxRunning` tasks run. Random batches of
 * accesses (seeded: replay with TOOLHOST_FUZZ_SEED) are driven through the real scheduler and a
 * reference model that applies the rule to every waiting task after every event; after each
 * event both must run the same tasks, the event must have started the same ones, and the tasks it
 * let start must have been released in call order.
 */

const SEED = Number(process.env.TOOLHOST_FUZZ_SEED ?? 20261001);
const BATCHES = Number(process.env.TOOLHOST_FUZZ_CASES ?? 400);

type State = 'preparing' | 'ready' | 'running' | 'done';

interface ModelTask {
  readonly index: number;
  accesses: Accesses;
  state: State;
}

/** The rule, quadratic and obvious. */
function mayStart(task: ModelTask, tasks: readonly ModelTask[]): boolean {
  return !tasks.some((other) => other !== task && other.state !== 'done' && (other.index < task.index || other.state === 'running') && conflict(other.accesses, task.accesses));
}

/**
 * What the scheduler should do: after every event, every waiting task that may start does, in
 * call order, while fewer than `maxRunning` run.
 */
class ReferenceScheduler {
  readonly tasks: ModelTask[] = [];
  readonly started: number[] = [];

  constructor(private readonly maxRunning: number) {}

  add(accesses: Accesses): void {
    this.tasks.push({ index: this.tasks.length, accesses, state: 'preparing' });
  }

  ready(i: number): void {
    const task = this.tasks[i]!;
    task.state = this.running().length < this.maxRunning && mayStart(task, this.tasks) ? 'running' : 'ready';
    if (task.state === 'running') this.started.push(i);
  }

  retarget(i: number, accesses: Accesses): void {
    this.tasks[i]!.accesses = accesses;
    this.tasks[i]!.state = 'ready';
    this.pump();
  }

  finish(i: number): void {
    this.tasks[i]!.state = 'done';
    this.pump();
  }

  running(): number[] {
    return this.tasks.filter((t) => t.state === 'running').map((t) => t.index);
  }

  private pump(): void {
    for (const task of this.tasks) {
      if (task.state === 'ready' && this.running().length < this.maxRunning && mayStart(task, this.tasks)) {
        task.state = 'running';
        this.started.push(task.index);
      }
    }
  }
}

// Few names, so that paths and keys often meet; odd spellings that compare equal to others
// ('/a/', '\\a\\b', '//a'), relative and empty paths, the root, and both case spellings.
const PATHS = ['/', '/a', '/a/b', '/a/b/c', '/a/c', '/b', '/b/a', '/a/', '\\a\\b', '//a', '/A', '', 'a', 'a/b', 'C:\\a', 'C:/a/b'];
const KEYS = ['', '/', 'tasks', 'tasks/1', 'tasks/1/x', 'tasks/2', 'todo', '/tasks', 'tasks/'];

function generator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const access = (): ToolAccess => {
    const roll = random();
    if (roll < 0.55) return ToolAccesses.file(pick(['read', 'write', 'search'] as const), pick(PATHS), random() < 0.35);
    if (roll < 0.8) return pick([ToolAccesses.readState, ToolAccesses.writeState])(pick(KEYS));
    if (roll < 0.88) return ToolAccesses.process();
    if (roll < 0.94) return ToolAccesses.network();
    return { kind: 'all' };
  };
  const accesses = (): Accesses => Array.from({ length: pick([0, 1, 1, 1, 2, 2, 3]) }, access);
  return { pick, accesses, random };
}

describe('ToolScheduler agrees with the quadratic rule', () => {
  test(`random batches (seed ${SEED}): after every event the same tasks run, and the event started the same ones (those it released in call order)`, async () => {
    const gen = generator(prng(SEED));
    const seen = { waited: 0, concurrent: 0, retargets: 0, givenUp: 0, events: 0 };
    for (let batch = 0; batch < BATCHES; batch++) {
      const size = 2 + Math.floor(gen.random() * 14);
      const maxRunning = gen.pick([Infinity, Infinity, 1, 2, 3]);
      const scheduler = new ToolScheduler({ maxRunning });
      const reference = new ReferenceScheduler(maxRunning);
      const handles: ScheduledTask[] = [];
      const started: number[] = [];
      const givenUp = new Set<number>();
      const onStart = (i: number) => () => {
        if (!givenUp.has(i)) started.push(i);
      };
      for (let i = 0; i < size; i++) {
        const accesses = gen.accesses();
        handles.push(scheduler.add(accesses));
        reference.add(accesses);
      }
      const trace: string[] = [];
      for (;;) {
        const open = reference.tasks.filter((t) => t.state !== 'done');
        if (open.length === 0) break;
        const task = gen.pick(open);
        const i = task.index;
        if (task.state === 'preparing') {
          if (gen.random() < 0.08) {
            trace.push(`finish ${i} (never ready)`);
            scheduler.finish(handles[i]!);
            reference.finish(i);
          } else {
            trace.push(`ready ${i}`);
            void scheduler.whenStartable(handles[i]!).then(onStart(i));
            reference.ready(i);
            if (reference.tasks[i]!.state === 'ready') seen.waited++;
          }
        } else if (task.state === 'ready') {
          // Only a waiting task that is given up (aborted while queued) finishes before it runs.
          if (gen.random() > 0.1) continue;
          trace.push(`finish ${i} (given up)`);
          givenUp.add(i);
          seen.givenUp++;
          scheduler.finish(handles[i]!);
          reference.finish(i);
        } else if (gen.random() < 0.12) {
          const accesses = gen.accesses();
          trace.push(`retarget ${i} to ${JSON.stringify(accesses)}`);
          seen.retargets++;
          void scheduler.retarget(handles[i]!, accesses).then(onStart(i));
          reference.retarget(i, accesses);
        } else {
          trace.push(`finish ${i}`);
          scheduler.finish(handles[i]!);
          reference.finish(i);
        }
        seen.events++;
        await new Promise((resolve) => setImmediate(resolve));
        if (reference.running().length > 1) seen.concurrent++;
        // The event's own task resolves when its promise is awaited; the tasks it let start
        // resolve at once, in call order.
        const now = started.splice(0);
        const expected = reference.started.splice(0);
        const released = now.filter((t) => t !== i);
        const sorted = (list: number[]) => [...list].sort((a, b) => a - b).join();
        if (scheduler.running().join() !== reference.running().join() || sorted(now) !== sorted(expected) || released.join() !== sorted(released)) {
          throw new Error(
            `batch ${batch} (maxRunning ${maxRunning}): running [${scheduler.running().join()}], this event started [${now.join()}]; ` +
              `the rule runs [${reference.running().join()}], starts [${expected.join()}]\n` +
              `accesses: ${JSON.stringify(reference.tasks.map((t) => t.accesses))}\n${trace.join('\n')}`,
          );
        }
      }
    }
    // Not hollow: tasks waited for conflicts, ran side by side, were retargeted and given up.
    expect(seen.waited).toBeGreaterThan(BATCHES);
    expect(seen.concurrent).toBeGreaterThan(BATCHES);
    expect(seen.retargets).toBeGreaterThan(BATCHES / 4);
    expect(seen.givenUp).toBeGreaterThan(BATCHES / 10);
  });

  test('each access is read once, when its task is added, however many tasks the batch holds', async () => {
    // The quadratic scan compared every task with every unfinished one; the index parses each
    // access once. Getters count how often the scheduler looks at an access.
    let reads = 0;
    const counted = (op: 'read' | 'write', path: string): ToolAccess => ({
      kind: 'file',
      get op() {
        reads++;
        return op;
      },
      get path() {
        reads++;
        return path;
      },
    });
    const scheduler = new ToolScheduler();
    const n = 2000;
    // Distinct files, and every tenth one also written by the next task, so some wait.
    const tasks = Array.from({ length: n }, (_, i) => scheduler.add([counted(i % 10 === 1 ? 'write' : 'read', `/repo/d${i % 7}/f${i - (i % 10 === 1 ? 1 : 0)}`)]));
    const startable = tasks.map((task) => scheduler.whenStartable(task));
    for (const task of tasks) scheduler.finish(task);
    await Promise.all(startable);
    expect(reads).toBe(2 * n);
  });
});
