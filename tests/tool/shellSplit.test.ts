import { parseShellCommand } from '../../src/tool/shellSplit';

describe('parseShellCommand()', () => {
  test.each<[string, string[][], boolean]>([
    ['ls -la', [['ls', '-la']], false],
    ['git log --oneline && git status', [['git', 'log', '--oneline'], ['git', 'status']], false],
    ['cat a | wc -l', [['cat', 'a'], ['wc', '-l']], false],
    ['a; b || c & d', [['a'], ['b'], ['c'], ['d']], false],
    ['echo "a && b" \'c | d\'', [['echo', 'a && b', 'c | d']], false],
    ['echo a\\ b', [['echo', 'a b']], false],
    ['ls # a comment && rm x', [['ls']], false],
    ['echo $(rm -rf /)', [['echo', '$(rm', '-rf', '/)']], true],
    ['echo `id`', [['echo', '`id`']], true],
    ['echo "$(id)"', [['echo', '$(id)']], true],
    ['diff <(ls a) <(ls b)', [['diff', '<(ls', 'a)', '<(ls', 'b)']], true],
    ['(cd x && ls)', [['(cd', 'x'], ['ls)']], true],
    ['echo "unterminated', [['echo', 'unterminated']], true],
    ['&& ls', [['ls']], true],
  ])('%s', (input, words, opaque) => {
    const parsed = parseShellCommand(input);
    expect(parsed.commands.map((c) => c.words)).toEqual(words);
    expect(parsed.opaque).toBe(opaque);
  });

  test.each<[string, string[]]>([
    ['ls > out.txt', ['>']],
    ['ls >> out.txt', ['>>']],
    ['ls 2>/dev/null', ['2>']],
    ['ls 2>&1', ['2>&']],
    ['ls &> all.txt', ['&>']],
    ['sort < in.txt', ['<']],
    ['cat <<EOF', ['<<']],
    ['echo "a > b"', []],
  ])('redirections of %s', (input, redirects) => {
    expect(parseShellCommand(input).commands.flatMap((c) => c.redirects)).toEqual(redirects);
  });

  test('keeps each command text and the operator after it', () => {
    expect(parseShellCommand('git   status && npm  test | tee x').commands.map((c) => [c.text, c.next])).toEqual([
      ['git status', '&&'],
      ['npm test', '|'],
      ['tee x', ''],
    ]);
  });
});
