import { type IDisposable, toDisposable } from './lifecycle';

/**
 * Keeps V8's young generation at the size it has while a hold is active. V8 doubles the
 * semi-spaces (1 MiB each at start, up to 16 on Node 20) whenever more bytes have survived
 * scavenges since the last growth than they hold, which loading the package and any big walk
 * or batch reach, and the grown space stays until the process ends. `toolhost run` holds it for
 * its whole life, from before the bundle is compiled (cli/runYoungGeneration.ts): on the 100k-file
 * bench corpus a builtin Grep's whole-process peak RSS fell from 144-169 to 112-123 MiB, at the
 * same time (`npm run bench -- grep-rss`), and 10,000 Reads from 138 to 121 MiB, at about 1.25x
 * the CPU time (`npm run bench -- executor`), all the more scavenges.
 *
 * A hold sets `--semi-space-growth-factor` to 1 (growing 1x is not growing); when the last one
 * ends V8's default of 2 is set back. What survived during a hold still counts towards V8's next
 * growth, so a short hold defers growing rather than avoids it: it pays for the life of a
 * process. V8 raises the flag to its floor of 2 whenever it sets up an isolate (a worker thread
 * starting) and only then, so base/workerThreads.ts sets the hold again once a thread is online
 * (a scavenge in the moments between may still grow the space once).
 * V8 flags are process-wide. Only on the V8 versions known to have the flag (an unknown flag
 * prints an error), else a hold does nothing.
 */
const FLAG = '--semi-space-growth-factor';
/** V8's default, and the floor it enforces when it sets up an isolate. */
const V8_DEFAULT_FACTOR = 2;
/** V8 majors with the flag: 11 (Node 20, where the effect was measured), 12 (Node 22), 13 (Node 24). */
const V8_MAJORS_WITH_FLAG: ReadonlySet<number> = new Set([11, 12, 13]);

/**
 * The holds of the process, shared by every copy of this module in it (the CLI's launcher
 * loads one before the bundle, which has its own): they all set the one V8 flag.
 */
const HOLDS = Symbol.for('toolhost.youngGenerationHolds');
type WithHolds = typeof globalThis & { [HOLDS]?: number };
const holds = (): number => (globalThis as WithHolds)[HOLDS] ?? 0;
const setHolds = (count: number): void => {
  (globalThis as WithHolds)[HOLDS] = count;
};

function supported(): boolean {
  return V8_MAJORS_WITH_FLAG.has(Number.parseInt(process.versions.v8, 10));
}

function setGrowthFactor(factor: number): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(`${FLAG}=${factor}`);
}

/** Stops the young generation from growing until the returned handle is disposed. Holds nest. */
export function holdYoungGenerationSize(): IDisposable {
  if (!supported()) return toDisposable(() => undefined);
  setHolds(holds() + 1);
  if (holds() === 1) setGrowthFactor(1);
  return toDisposable(() => {
    setHolds(holds() - 1);
    if (holds() === 0) setGrowthFactor(V8_DEFAULT_FACTOR);
  });
}

/** After a worker thread came online: sets the hold again if one is active (V8 undid it). */
export function reassertYoungGenerationHold(): void {
  if (holds() > 0) setGrowthFactor(1);
}

/** Whether a hold is active. */
export function youngGenerationHeld(): boolean {
  return holds() > 0;
}
