import { byteForm, GlobAutomaton, globToRegex, GlobSyntaxError } from '../../../../src/tools/os/search/globRegex';
import { prng } from '../../../helpers/prng';

/**
 * GlobAutomaton must accept exactly what the glob's regex accepts (the regex is the form the
 * ignore and glob differential tests check against git and rg); it exists for the globs whose
 * regex backtracks for long on a name that almost matches.
 */
const PIECES = ['a', 'b', 'é', '.', '/', '*', '**', '**/', '/**', '?', '[ab]', '[!a]', '[a-c]', '[é]', '{a,b}', '{,a}', '{a*,b/}', '{*.a,**/b}', '\\*', '*a', 'a*'];
const PATH_CHARS = ['a', 'b', 'c', 'é', '.', '/', '*', 'x'];

describe('GlobAutomaton', () => {
  test('accepts what the regex accepts: 3,000 generated globs, 40 generated paths each', () => {
    const rnd = prng(20261203);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
    let compiled = 0;
    let accepted = 0;
    for (let g = 0; g < 3000; g++) {
      const glob = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(PIECES)).join('');
      let regex: RegExp;
      let automaton: GlobAutomaton;
      try {
        regex = new RegExp(globToRegex(glob, { allowUnclosedClass: false }).source);
        const linear = globToRegex(glob, { allowUnclosedClass: false, linear: true }).matcher;
        expect(linear).toBeInstanceOf(GlobAutomaton);
        automaton = linear as GlobAutomaton;
      } catch (error) {
        if (error instanceof GlobSyntaxError) continue;
        throw error;
      }
      compiled++;
      for (let p = 0; p < 40; p++) {
        const path = byteForm(Array.from({ length: Math.floor(rnd() * 10) }, () => pick(PATH_CHARS)).join(''));
        const expected = regex.test(path);
        if (automaton.test(path) !== expected) throw new Error(`glob ${JSON.stringify(glob)} on ${JSON.stringify(path)}: the regex says ${expected}`);
        if (expected) accepted++;
      }
    }
    // The generator must produce mostly valid globs, and paths that they match.
    expect(compiled).toBeGreaterThan(2500);
    expect(accepted).toBeGreaterThan(5000);
  });

  test.each([
    ['*a*a*a*a*a*a*b', 'a'.repeat(255), false],
    ['*a*a*a*a*a*a*b', `${'a'.repeat(254)}b`, true],
    [`${'*'.repeat(5000)}x`, 'a'.repeat(255), false],
    ['**/*a*a*a*a*b/**', `${'a/'.repeat(100)}${'a'.repeat(200)}`, false],
  ])('a glob whose regex backtracks for long (%#) gets the automaton, which answers at once', (glob, path, expected) => {
    const compiled = globToRegex(glob, { allowUnclosedClass: false });
    expect(compiled.matcher).toBeInstanceOf(GlobAutomaton);
    expect(compiled.matcher.test(path)).toBe(expected);
  });

  test.each(['*.ts', '**/*.ts', 'src/**/*.test.ts', '**/*.{ts,tsx}', '*', 'node_modules'])('the common glob %s stays a regex (the fast path)', (glob) => {
    expect(globToRegex(glob, { allowUnclosedClass: false }).matcher).toBeInstanceOf(RegExp);
  });
});
