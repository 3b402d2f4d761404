import picomatch from 'picomatch';
import { rewriteGlobBackslashes } from '../../src/tool/globBackslashes';

const bs = (n: number) => '\\'.repeat(n);

describe('rewriteGlobBackslashes', () => {
  test.each([
    ['*.ts', '*.ts'],
    ['a\\*b', 'a\\*b'],
    [`a${bs(2)}`, 'a[\\\\-\\\\]'],
    [`a${bs(4)}`, 'a[\\\\-\\\\][\\\\-\\\\]'],
    [`a${bs(3)}*`, 'a[\\\\-\\\\]\\*'],
    ['a\\d', 'ad'],
    [`[${bs(4)}]x`, '[\\\\]x'],
    [`[ab${bs(2)}`, '\\[ab[\\\\-\\\\]'],
  ])('%j → %j', (glob, rewritten) => {
    expect(rewriteGlobBackslashes(glob)).toBe(rewritten);
  });

  test.each([`a${bs(1)}`, `a${bs(3)}`, `a${bs(5)}`, bs(1001)])('%j ends in a backslash that escapes nothing: undefined', (glob) => {
    expect(rewriteGlobBackslashes(glob)).toBeUndefined();
  });

  // [glob, matches, does not match]: picomatch reads the rewritten glob as git reads the original.
  test.each([
    [`a${bs(2)}`, ['a\\'], ['a', 'a\\\\', 'a[\\]']],
    [`**/a${bs(4)}`, ['a\\\\', 'd/a\\\\'], ['a\\', 'a\\\\\\']],
    [`a${bs(4)}b`, ['a\\\\b'], ['a\\b']],
    [`a${bs(3)}b`, ['a\\b'], ['ab', 'a\\\\b']],
    ['a\\d', ['ad'], ['a7']],
    [`*.[ch]${bs(4)}`, ['x.c\\\\'], ['x.c\\', 'x.c']],
    [`[ab${bs(2)}]x`, ['ax', '\\x'], ['[x']],
    [`x${bs(1000)}`, [`x${bs(500)}`], [`x${bs(499)}`]],
  ])('%j', (glob, yes, no) => {
    const rewritten = rewriteGlobBackslashes(glob)!;
    const matcher = picomatch(rewritten, { dot: true, posix: true });
    const regex = picomatch.makeRe(rewritten, { dot: true, nonegate: true, noextglob: true });
    for (const path of yes) expect([path, matcher(path), regex.test(path)]).toEqual([path, true, true]);
    for (const path of no) expect([path, matcher(path), regex.test(path)]).toEqual([path, false, false]);
  });
});
