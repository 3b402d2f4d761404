import * as fsp from 'node:fs/promises';
import { isLocalDisk, type RuntimeFs } from '../../../src/base/fs/runtimeFs';

describe('isLocalDisk', () => {
  const open: RuntimeFs['open'] = (...args: Parameters<RuntimeFs['open']>) => fsp.open(...args);
  test.each<[string, RuntimeFs, boolean]>([
    ['node:fs/promises itself', fsp, true],
    ['a copy of its functions (what a namespace import may be)', { ...fsp }, true],
    ['one operation wrapped (a counting or stalling runtime)', { ...fsp, open }, false],
  ])('%s', (_label, fs, expected) => {
    expect(isLocalDisk(fs)).toBe(expected);
  });
});
