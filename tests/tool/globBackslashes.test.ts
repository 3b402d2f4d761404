import picomatch from 'picomatch';
import { rewriteGlobBackslashes } from '../../src/tool/globBackslashes';
import { runIsolated } from '../helpers/isolated';

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

  test.each([`a${bs(1)}`, `a${bs(3)}`, `a${bs(5)}`, bs(101)])('%j ends in a backslash that escapes nothing: undefined', (glob) => {
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
    [`x${bs(100)}`, [`x${bs(50)}`], [`x${bs(49)}`]],
  ])('%j', (glob, yes, no) => {
    const rewritten = rewriteGlobBackslashes(glob)!;
    const matcher = picomatch(rewritten, { dot: true, posix: true });
    const regex = picomatch.makeRe(rewritten, { dot: true, nonegate: true, noextglob: true });
    for (const path of yes) expect([path, matcher(path), regex.test(path)]).toEqual([path, true, true]);
    for (const path of no) expect([path, matcher(path), regex.test(path)]).toEqual([path, false, false]);
  });
});

describe('the other patterns picomatch sees complete (in a child process killed on a hang)', () => {
  test('path rules: a literal rule for a path ending in backslashes, and rules ending in 4, 5, 8 or 1000', async () => {
    const results = await runIsolated<boolean[]>(
      `
      const { literalRule, matchPathRule, parseRule } = load('index.js');
      const ctx = { cwd: '/work' };
      const out = [];
      for (const path of input.paths) out.push(matchPathRule(parseRule(literalRule('Read', path)).args, path, ctx));
      for (const [rule, path] of input.rules) out.push(matchPathRule(rule, path, ctx));
      return out;
      `,
      {
        paths: [`/tmp/x${bs(1)}`, `/tmp/x${bs(2)}`, `/tmp/x${bs(4)}`],
        rules: [
          [`/tmp/x${bs(4)}`, `/tmp/x${bs(2)}`],
          [`/tmp/x${bs(5)}`, `/tmp/x${bs(2)}`],
          [`!/tmp/x${bs(5)}`, `/tmp/x${bs(2)}`],
          [`x${bs(8)}`, `/work/x${bs(4)}`],
          [`/tmp/x${bs(1000)}`, `/tmp/x${bs(500)}`],
          [`/tmp/x${bs(1000)}`, `/tmp/x${bs(499)}`],
        ],
      },
    );
    expect(results).toEqual([true, true, true, true, false, true, true, true, false]);
  });

  test('tool policy globs over MCP names ending in 4, 5, 8 or 1000 backslashes', async () => {
    const results = await runIsolated<boolean[]>(
      `
      const { isToolActive } = load('index.js');
      return input.map(([pattern, name]) => isToolActive({ tools: [pattern] }, name, 'mcp'));
      `,
      [
        [`mcp__{a,b}__x${bs(4)}`, `mcp__a__x${bs(2)}`],
        [`mcp__{a,b}__x${bs(5)}`, `mcp__a__x${bs(2)}`],
        [`mcp__{a,b}__x${bs(8)}`, `mcp__b__x${bs(4)}`],
        [`mcp__{a,b}__x${bs(1000)}`, 'mcp__a__x'],
      ],
    );
    expect(results).toEqual([true, false, true, false]);
  });
});
