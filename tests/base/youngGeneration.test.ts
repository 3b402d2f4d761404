import { runHoldsYoungGeneration } from '../../src/cli/runYoungGeneration';
import { runIsolated } from '../helpers/isolated';

/**
 * base/youngGeneration.ts in a fresh process (its young generation starts small): while a hold is
 * active, allocating keeps the new space at its size; a worker thread starting undoes the hold
 * (the control), which a thread started by base/workerThreads.ts sets again once online; the
 * young generation grows again once the last hold ended; and two copies of the module (the CLI's
 * launcher loads one, its bundle another) share the holds.
 */
interface Sizes {
  readonly start: number;
  readonly held: number;
  readonly afterThreadStarted: number;
  readonly afterBareWorker: number;
  readonly heldByOtherCopy: boolean;
  readonly heldAfterDispose: boolean;
  readonly released: number;
}

const BODY = `
  const v8 = require('node:v8');
  const { Worker } = require('node:worker_threads');
  const young = load('base/youngGeneration.js');
  const { startWorkerThread } = load('base/workerThreads.js');
  const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  // Survivors: objects that live across a few scavenges, what makes V8 grow the new space.
  const churn = () => { let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 2e5) keep = []; } };
  const online = (worker) => new Promise((resolve) => worker.once('online', () => setImmediate(() => resolve(worker.terminate()))));
  // Garbage only, so the first scavenges commit the second semi-space without growing it.
  let length = 0;
  for (let i = 0; i < 2e5; i++) length += JSON.stringify({ i, pad: 'x'.repeat(i % 50) }).length;
  const start = newSpace();
  const hold = young.holdYoungGenerationSize();
  // Started before anything survived: V8 undoes the hold as the thread's isolate is set up, and a
  // scavenge in the moments before 'online' would grow a space that has survivors to count.
  await online(startWorkerThread('setTimeout(() => {}, 50)'));
  churn();
  const afterThreadStarted = newSpace();
  churn();
  const held = newSpace();
  // The control: a thread started another way lets the new space grow during the hold.
  let afterBareWorker = -1;
  if (input.control) { await online(new Worker('setTimeout(() => {}, 50)', { eval: true })); churn(); afterBareWorker = newSpace(); }
  // A second copy of the module, as the CLI's bundle has.
  delete require.cache[Object.keys(require.cache).find((file) => file.endsWith('/base/youngGeneration.js'))];
  if (load('base/youngGeneration.js') === young) throw new Error('not a second copy');
  const heldByOtherCopy = load('base/youngGeneration.js').youngGenerationHeld();
  hold.dispose();
  const heldAfterDispose = young.youngGenerationHeld();
  churn();
  return { length, start, held, afterThreadStarted, afterBareWorker, heldByOtherCopy, heldAfterDispose, released: newSpace() };
`;

test('a hold keeps the new space at its size across a worker thread starting, for every copy of the module, until it ends', async () => {
  const sizes = await runIsolated<Sizes>(BODY, { control: false });
  expect(sizes.held).toBe(sizes.start);
  expect(sizes.afterThreadStarted).toBe(sizes.start);
  expect(sizes.heldByOtherCopy).toBe(true);
  expect(sizes.heldAfterDispose).toBe(false);
  expect(sizes.released).toBeGreaterThan(sizes.start);
});

test('the control: a worker thread started without base/workerThreads.ts during a hold lets V8 grow the new space', async () => {
  const sizes = await runIsolated<Sizes>(BODY, { control: true });
  expect(sizes.afterThreadStarted).toBe(sizes.start);
  expect(sizes.afterBareWorker).toBeGreaterThan(sizes.start);
});

test.each([
  [['run', 'batch.json'], '', true],
  [['run', '--json', 'batch.json'], '--require ./probe.js', true],
  [['run', 'batch.json'], '--max-semi-space-size=16', false],
  [['run', 'batch.json'], '--min_semi_space_size=2', false],
  [['run', 'batch.json'], '--semi-space-growth-factor=4', false],
  [['tools', '--json'], '', false],
  [['mcp', 'serve'], '', false],
  [[], '', false],
])('toolhost %j with node flags %j holds the young generation: %s', (argv, nodeFlags, holds) => {
  expect(runHoldsYoungGeneration(argv, nodeFlags)).toBe(holds);
});
