import { checkScope } from '../../../src/features/tower/towerScope';

describe('checkScope()', () => {
  test.each(['src/parser/**', 'src/**/*.test.*', 'packages/*/src/**/*.{ts,tsx}', '**/a/**/b/**', 'lib/*a*b*c', 'lib/\\*\\*\\*\\*x*', 'a**b**c**d/x'])('%j is a scope', (glob) => {
    expect(() => checkScope('M', [glob])).not.toThrow();
  });

  test.each([
    ['lib/*a*b*c*', 'has too many wildcards'],
    ['src/*a*a*a*a*b/**', 'has too many wildcards'],
    ['**/a/**/b/**/c/**', 'has too many wildcards'],
    ['**', 'is the whole repository'],
    ['../x/**', 'must be relative to the repository root'],
  ])('%j is refused: %s', (glob, reason) => {
    expect(() => checkScope('M', [glob])).toThrow(reason);
  });
});
