import { abortWith, deadlineSignal } from '../../src/base/abort';
import { randomBase36 } from '../../src/base/strings';

describe('abortWith', () => {
  test('a source that aborts later aborts the target with its reason; the target aborting leaves the source alone', () => {
    const source = new AbortController();
    const target = new AbortController();
    abortWith(target, source.signal);
    expect(target.signal.aborted).toBe(false);
    const reason = new Error('stop');
    source.abort(reason);
    expect(target.signal.aborted).toBe(true);
    expect(target.signal.reason).toBe(reason);

    const other = new AbortController();
    const follower = new AbortController();
    abortWith(follower, other.signal);
    follower.abort(new Error('own'));
    expect(other.signal.aborted).toBe(false);
  });

  test('a source aborted already aborts the target at once', () => {
    const source = new AbortController();
    source.abort('gone');
    const target = new AbortController();
    abortWith(target, source.signal)();
    expect([target.signal.aborted, target.signal.reason]).toEqual([true, 'gone']);
  });

  test('once unfollowed, the source aborting does not reach the target, and no listener stays on the source', () => {
    const source = new AbortController();
    const target = new AbortController();
    let listeners = 0;
    const add = source.signal.addEventListener.bind(source.signal);
    const remove = source.signal.removeEventListener.bind(source.signal);
    source.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      listeners++;
      add(...args);
    };
    source.signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
      listeners--;
      remove(...args);
    };
    const unfollow = abortWith(target, source.signal);
    expect(listeners).toBe(1);
    unfollow();
    expect(listeners).toBe(0);
    source.abort();
    expect(target.signal.aborted).toBe(false);
  });
});

describe('deadlineSignal', () => {
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('the deadline aborts it with a TimeoutError (or the reason given), and says so', async () => {
    const source = new AbortController();
    const deadline = deadlineSignal(source.signal, 10);
    expect([deadline.signal.aborted, deadline.timedOut]).toEqual([false, false]);
    await wait(40);
    expect([deadline.signal.aborted, deadline.timedOut, (deadline.signal.reason as DOMException).name]).toEqual([true, true, 'TimeoutError']);
    expect(source.signal.aborted).toBe(false);
    const own = deadlineSignal(source.signal, 10, () => new Error('agent.timeoutS'));
    await wait(40);
    expect([own.timedOut, (own.signal.reason as Error).message]).toEqual([true, 'agent.timeoutS']);
  });

  test('the source aborting first is not a timeout, even once the deadline has passed', async () => {
    const source = new AbortController();
    const deadline = deadlineSignal(source.signal, 10);
    source.abort('stopped');
    await wait(40);
    expect([deadline.signal.reason, deadline.timedOut]).toEqual(['stopped', false]);
  });

  test('disposed, neither the deadline nor the source aborts it', async () => {
    const source = new AbortController();
    const deadline = deadlineSignal(source.signal, 10);
    deadline.dispose();
    source.abort();
    await wait(40);
    expect([deadline.signal.aborted, deadline.timedOut]).toEqual([false, false]);
  });
});

describe('randomBase36', () => {
  test.each([1, 8, 4095, 4096, 5000])('%i characters of 0-9a-z, across refills of the pool', (length) => {
    const ids = Array.from({ length: 3 }, () => randomBase36(length));
    for (const id of ids) expect(id).toMatch(new RegExp(`^[0-9a-z]{${length}}$`));
    if (length >= 8) expect(new Set(ids).size).toBe(3);
  });

  test('ids drawn one after another do not repeat (10,000 of 8 characters)', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => randomBase36(8)));
    expect(ids.size).toBe(10_000);
  });
});
