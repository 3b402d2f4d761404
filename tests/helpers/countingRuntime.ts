import * as fsp from 'node:fs/promises';
import { createLocalRuntime } from '../../src/services/runtime/localRuntime';
import type { Runtime, RuntimeFs } from '../../src/services/runtime/runtime';

/** The local runtime, counting the reads, and the bytes read, through file handles it opens. */
export function countingRuntime(): { runtime: Runtime; bytesRead: () => number; reads: () => number; reset: () => void } {
  let total = 0;
  let reads = 0;
  const base = createLocalRuntime();
  const open: RuntimeFs['open'] = async (...args: Parameters<RuntimeFs['open']>) => {
    const handle = await fsp.open(...args);
    const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<{ bytesRead: number; buffer: Buffer }>;
    return Object.assign(Object.create(handle) as typeof handle, {
      read: async (...readArgs: unknown[]) => {
        const result = await read(...readArgs);
        total += result.bytesRead;
        reads++;
        return result;
      },
      close: () => handle.close(),
    });
  };
  return {
    runtime: { ...base, name: 'counting', fs: { ...base.fs!, open } },
    bytesRead: () => total,
    reads: () => reads,
    reset: () => {
      total = 0;
      reads = 0;
    },
  };
}
