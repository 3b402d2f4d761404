import { Emitter } from '../../src/base/event';
import { DisposableStore, toDisposable } from '../../src/base/lifecycle';
import { closestMatch, editDistance, formatBytes, formatCount } from '../../src/base/strings';
import { RerunUntilStable } from '../../src/base/rerunUntilStable';

describe('closestMatch()', () => {
  test.each<[string, string[], string | undefined]>([
    ['raed', ['read', 'tools'], 'read'],
    ['Raed', ['Read', 'Grep'], 'Read'],
    ['read', ['Read', 'Grep'], 'Read'],
    ['maxChar', ['maxChars', 'maxLines'], 'maxChars'],
    ['Grpe', ['Read', 'Grep'], 'Grep'],
    ['xyz', ['Read', 'Grep'], undefined],
    ['Bash', [], undefined],
  ])('%s among %j → %s', (input, candidates, expected) => {
    expect(closestMatch(input, candidates)).toBe(expected);
  });

  test.each<[string, string, number]>([
    ['', 'abc', 3],
    ['abc', 'abc', 0],
    ['abc', 'acb', 1],
    ['kitten', 'sitting', 3],
  ])('editDistance(%s, %s) = %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

test('formatBytes', () => {
  expect([formatBytes(10), formatBytes(2048), formatBytes(12_800_000), formatBytes(3 * 1024 ** 3)]).toEqual(['10 B', '2.0 KB', '12 MB', '3.0 GB']);
});

describe('Emitter', () => {
  test('a throwing listener does not stop the others; unsubscribing works', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<number>((e) => errors.push(e));
    const seen: number[] = [];
    emitter.event(() => {
      throw new Error('boom');
    });
    const sub = emitter.event((n) => seen.push(n));
    emitter.fire(1);
    sub.dispose();
    emitter.fire(2);
    expect(seen).toEqual([1]);
    expect(errors).toHaveLength(2);
  });

  test('the error handler is told which listener threw; a handler that throws does not make fire() throw', () => {
    const named: string[] = [];
    const emitter = new Emitter<number>((_error, listener) => {
      named.push(listener.name);
      throw new Error('handler broke');
    });
    const seen: number[] = [];
    emitter.event(function failing() {
      throw new Error('boom');
    });
    emitter.event((n) => seen.push(n));
    expect(() => emitter.fire(1)).not.toThrow();
    expect(named).toEqual(['failing']);
    expect(seen).toEqual([1]);
  });
});

test('DisposableStore disposes in reverse order, once, and reports failures after running all', () => {
  const order: string[] = [];
  const store = new DisposableStore();
  store.add(toDisposable(() => order.push('a')));
  store.add(
    toDisposable(() => {
      order.push('b');
      throw new Error('b failed');
    }),
  );
  store.add(toDisposable(() => order.push('c')));
  expect(() => store.dispose()).toThrow('b failed');
  store.dispose();
  expect(order).toEqual(['c', 'b', 'a']);
  store.add(toDisposable(() => order.push('late')));
  expect(order).toEqual(['c', 'b', 'a', 'late']);
});

test('formatCount groups thousands', () => {
  expect([0, 999, 1000, 1234567, -50000, 12.5].map(formatCount)).toEqual(['0', '999', '1,000', '1,234,567', '-50,000', '12.5']);
});

describe('RerunUntilStable', () => {
  test('a run asked for during a pass becomes one more pass, not a nested one', () => {
    const log: string[] = [];
    let depth = 0;
    let asks = 2;
    const runner: RerunUntilStable = new RerunUntilStable(() => {
      depth++;
      log.push(`pass at depth ${depth}`);
      if (asks-- > 0) {
        runner.run();
        runner.run();
      }
      depth--;
    });
    runner.run();
    expect(log).toEqual(['pass at depth 1', 'pass at depth 1', 'pass at depth 1']);
  });

  test('passes stop after the bound even when every pass asks again', () => {
    let passes = 0;
    const runner: RerunUntilStable = new RerunUntilStable(() => {
      passes++;
      runner.run();
    }, 4);
    runner.run();
    expect(passes).toBe(4);
    runner.run();
    expect(passes).toBe(8);
  });

  test('a pass that throws leaves the runner usable', () => {
    let fail = true;
    let passes = 0;
    const runner = new RerunUntilStable(() => {
      passes++;
      if (fail) throw new Error('boom');
    });
    expect(() => runner.run()).toThrow('boom');
    fail = false;
    runner.run();
    expect(passes).toBe(2);
  });
});
