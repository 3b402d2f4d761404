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
    ['find . -exec rm {} \\;', [['find', '.', '-exec', 'rm', '{}', ';']], false],
    ['echo {a,b}.txt', [['echo', '{a,b}.txt']], false],
    ['{ ls; }', [['{', 'ls'], ['}']], true],
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

  test.each<[string, string[][], { op: string; fd?: string; target: string }[], boolean]>([
    ['ls 2>&1', [['ls']], [{ op: '>&', fd: '2', target: '1' }], false],
    ['ls > out.txt', [['ls']], [{ op: '>', target: 'out.txt' }], false],
    ['ls >out.txt -l', [['ls', '-l']], [{ op: '>', target: 'out.txt' }], false],
    ['grep x 2>/dev/null a.txt', [['grep', 'x', 'a.txt']], [{ op: '>', fd: '2', target: '/dev/null' }], false],
    ['cat < "in file"', [['cat']], [{ op: '<', target: 'in file' }], false],
    ['ls &>> log', [['ls']], [{ op: '&>>', target: 'log' }], false],
    ['echo x >&2', [['echo', 'x']], [{ op: '>&', target: '2' }], false],
    ['echo 2 > f', [['echo', '2']], [{ op: '>', target: 'f' }], false],
    ['ls >', [['ls']], [], true],
    ['ls > && rm x', [['ls'], ['rm', 'x']], [], true],
  ])('redirection targets of %s are not words', (input, words, redirections, opaque) => {
    const parsed = parseShellCommand(input);
    expect(parsed.commands.map((c) => c.words)).toEqual(words);
    expect(parsed.commands.flatMap((c) => c.redirections)).toEqual(redirections);
    expect(parsed.opaque).toBe(opaque);
  });

  test('keeps each command text and the operator after it', () => {
    expect(parseShellCommand('git   status && npm  test | tee x').commands.map((c) => [c.text, c.next])).toEqual([
      ['git status', '&&'],
      ['npm test', '|'],
      ['tee x', ''],
    ]);
  });
});
