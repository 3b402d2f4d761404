import { OrderedHooks } from '../../../src/services/executor/orderedHooks';

type Listener = () => void;
const names = (hooks: OrderedHooks<Listener>) => hooks.snapshot.map((h) => `${h.name}@${h.order}`);

describe('OrderedHooks', () => {
  test('sorted by order; equal orders keep registration order; the default order applies', () => {
    const hooks = new OrderedHooks<Listener>(100);
    hooks.add(() => undefined, { name: 'a' });
    hooks.add(() => undefined, { name: 'b', order: -1 });
    hooks.add(() => undefined, { name: 'c', order: 100 });
    hooks.add(() => undefined, { name: 'd', order: 0 });
    hooks.add(() => undefined, { name: 'e', order: -1 });
    expect(names(hooks)).toEqual(['b@-1', 'e@-1', 'd@0', 'a@100', 'c@100']);
  });

  test('the name defaults to the function name, else "anonymous"', () => {
    const hooks = new OrderedHooks<Listener>();
    function planGuard() {}
    hooks.add(planGuard);
    hooks.add((() => () => undefined)());
    expect(names(hooks)).toEqual(['planGuard@0', 'anonymous@0']);
  });

  test('dispose removes only that listener, once', () => {
    const hooks = new OrderedHooks<Listener>();
    const same: Listener = () => undefined;
    const first = hooks.add(same, { name: 'first' });
    hooks.add(same, { name: 'second' });
    first.dispose();
    first.dispose();
    expect(names(hooks)).toEqual(['second@0']);
    expect(hooks.isEmpty).toBe(false);
  });

  test('a snapshot does not change when listeners are added or removed later', () => {
    const hooks = new OrderedHooks<Listener>();
    const sub = hooks.add(() => undefined, { name: 'a' });
    const snapshot = hooks.snapshot;
    hooks.add(() => undefined, { name: 'b', order: -1 });
    sub.dispose();
    expect(snapshot.map((h) => h.name)).toEqual(['a']);
    expect(names(hooks)).toEqual(['b@-1']);
  });
});
