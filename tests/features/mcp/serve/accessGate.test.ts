import { AccessGate } from '../../../../src/features/mcp/serve/accessGate';
import { ToolAccesses, type ToolAccesses as Accesses } from '../../../../src/tool/accesses';

const write = (path: string): Accesses => [ToolAccesses.writeFile(path)];
const read = (path: string): Accesses => [ToolAccesses.readFile(path)];

/** Acquires and records when each acquisition resolves (started or given up). */
function track(gate: AccessGate, log: string[], name: string, accesses: Accesses, signal?: AbortSignal) {
  const holder: { release?: () => void } = {};
  const done = gate.acquire(accesses, signal).then((release) => {
    log.push(release ? `start ${name}` : `gave up ${name}`);
    holder.release = release;
  });
  return { holder, done };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('AccessGate', () => {
  test('conflicting calls wait for the holder; readers of the same file share it', async () => {
    const gate = new AccessGate();
    const log: string[] = [];
    const a = track(gate, log, 'a', read('/f'));
    const b = track(gate, log, 'b', read('/f'));
    const c = track(gate, log, 'c', write('/f'));
    await Promise.all([a.done, b.done]);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    expect(gate.state).toEqual({ holding: 2, waiting: 1 });
    a.holder.release!();
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.holder.release!();
    await c.done;
    expect(log).toEqual(['start a', 'start b', 'start c']);
  });

  test('a later call never overtakes an earlier waiting call it conflicts with, but independent calls pass', async () => {
    const gate = new AccessGate();
    const log: string[] = [];
    const first = track(gate, log, 'first', write('/f'));
    await first.done;
    const second = track(gate, log, 'second', write('/f'));
    // Reading /f conflicts with the waiting writer, so it queues behind it.
    const third = track(gate, log, 'third', read('/f'));
    const other = track(gate, log, 'other', write('/g'));
    await other.done;
    expect(log).toEqual(['start first', 'start other']);
    first.holder.release!();
    await second.done;
    await settle();
    expect(log).toEqual(['start first', 'start other', 'start second']);
    second.holder.release!();
    await third.done;
    expect(log).toEqual(['start first', 'start other', 'start second', 'start third']);
  });

  test('`all` waits for everything and everything waits for it; no accesses never wait', async () => {
    const gate = new AccessGate();
    const log: string[] = [];
    const a = track(gate, log, 'a', ToolAccesses.all());
    await a.done;
    const b = track(gate, log, 'b', read('/x'));
    const none = track(gate, log, 'none', ToolAccesses.none());
    await none.done;
    expect(log).toEqual(['start a', 'start none']);
    a.holder.release!();
    await b.done;
    expect(log).toEqual(['start a', 'start none', 'start b']);
  });

  test('an aborted waiter leaves the queue and lets the calls behind it go', async () => {
    const gate = new AccessGate();
    const log: string[] = [];
    const holder = track(gate, log, 'holder', write('/a'));
    await holder.done;
    const controller = new AbortController();
    // Waits for the holder (it also writes /a) and blocks /b for the next one.
    const blocked = track(gate, log, 'blocked', [...write('/a'), ...write('/b')], controller.signal);
    const next = track(gate, log, 'next', write('/b'));
    await settle();
    expect(gate.state).toEqual({ holding: 1, waiting: 2 });
    controller.abort();
    await Promise.all([blocked.done, next.done]);
    expect(log).toEqual(['start holder', 'gave up blocked', 'start next']);
    expect(gate.state).toEqual({ holding: 2, waiting: 0 });
  });

  test('an already aborted signal gives up at once; releasing twice is harmless', async () => {
    const gate = new AccessGate();
    expect(await gate.acquire(write('/a'), AbortSignal.abort())).toBeUndefined();
    const release = (await gate.acquire(write('/a')))!;
    release();
    release();
    expect(gate.state).toEqual({ holding: 0, waiting: 0 });
  });
});
