import * as v8 from 'node:v8';

/** A batch of at least this many calls keeps the launcher's heap setting. */
export const LARGE_BATCH_CALLS = 1_000;

/**
 * The launcher (scripts/cliLauncher.js) starts `run` with --heap-growing-percent=100: the old
 * generation may grow to 2x what survived the last full collection before the next one, instead
 * of V8's up to 4x. A batch of thousands of calls promotes short-lived garbage at a steady rate
 * (each call's resolution, buffers and promises outlive a young-generation collection or two while
 * the calls around it run), and with 4x the process held ~30 MiB of it on 10,000 Reads. The flag
 * is process-wide, and under it one Grep grows its workers' heaps more (+18 MiB peak on the bench
 * corpus), so a small batch gets V8's default back. Left alone when the user chose a value.
 * Measured with `npm run bench -- executor`.
 */
export function fitHeapToBatch(calls: number): void {
  if (calls >= LARGE_BATCH_CALLS) return;
  if (`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`.includes('heap-growing-percent')) return;
  v8.setFlagsFromString('--heap-growing-percent=0');
}
