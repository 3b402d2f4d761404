import { decodeAnsiC, parseShellCommand } from '../../src/tool/shellSplit';

describe('parseShellCommand()', () => {
  test.each<[string, string[][], boolean]>([
    ['ls -la', [['ls', '-la']], false],
    ['git log --oneline && git status', [['git', 'log', '--oneline'], ['git', 'status']], false],
    ['cat a | wc -l', [['cat', 'a'], ['wc', '-l']], false],
    ['a; b || c & d', [['a'], ['b'], ['c'], ['d']], false],
    ['echo "a && b" \'c | d\'', [['echo', 'a && b', 'c | d']], false],
    ['echo a\\ b', [['echo', 'a b']], false],
    ['ls # a comment && rm x', [['ls']], false],
    // Inner commands come first (they run first) and make the line opaque.
    ['echo $(rm -rf /)', [['rm', '-rf', '/'], ['echo', '$(rm -rf /)']], true],
    ['echo `id`', [['id'], ['echo', '`id`']], true],
    ['echo "$(id)"', [['id'], ['echo', '$(id)']], true],
    ['echo "a `rm \\"x\\"` b"', [['rm', 'x'], ['echo', 'a `rm \\"x\\"` b']], true],
    ['echo $(echo $(rm y))', [['rm', 'y'], ['echo', '$(rm y)'], ['echo', '$(echo $(rm y))']], true],
    ['diff <(ls a) <(ls b)', [['ls', 'a'], ['ls', 'b'], ['diff', '<(ls a)', '<(ls b)']], true],
    ['(cd x && ls)', [['cd', 'x'], ['ls']], true],
    ['echo "unterminated', [['echo', 'unterminated']], true],
    ['&& ls', [['ls']], true],
    ['ls &&', [['ls']], true],
    ['ls ; ; ls', [['ls'], ['ls']], true],
    ['ls |\n wc', [['ls'], ['wc']], false],
    ['find . -exec rm {} \\;', [['find', '.', '-exec', 'rm', '{}', ';']], false],
    ['echo {a,b}.txt', [['echo', '{a,b}.txt']], false],
    // Keywords are not commands; what they start is.
    ['{ ls; }', [['ls']], true],
    ['if true; then rm x; else ls; fi', [['true'], ['rm', 'x'], ['ls']], true],
    // The redirection after `done` is the loop's: a command of its own without words.
    ['while read f; do rm "$f"; done < list', [['read', 'f'], ['rm', '$f'], []], true],
    ['for f in a $(ls); do rm $f; done', [['ls'], ['rm', '$f']], true],
    ['! time -p rm x', [['rm', 'x']], true],
    ['f() { rm x; }; f', [['rm', 'x'], ['f']], true],
    ['function g { rm y; }', [['rm', 'y']], true],
    ['X=1 if', [['X=1', 'if']], false],
    ['echo if then', [['echo', 'if', 'then']], false],
    ["'if' true", [['if', 'true']], false],
  ])('%j', (input, words, opaque) => {
    const parsed = parseShellCommand(input);
    expect(parsed.commands.map((c) => c.words)).toEqual(words);
    expect(parsed.opaque).toBe(opaque);
  });

  test('an ANSI-C quoted word is read with its escapes, so an escaped quote does not hide what follows', () => {
    const parsed = parseShellCommand("git status $'a\\'b' ; touch pwned #'");
    expect(parsed.commands.map((c) => c.words)).toEqual([
      ['git', 'status', "a'b"],
      ['touch', 'pwned'],
    ]);
    expect(parsed.commands.map((c) => c.text)).toEqual(["git status $'a\\'b'", 'touch pwned']);
    expect(parsed.opaque).toBe(false);
  });

  test.each<[string, string]>([
    ["$'a\\'b'", "a'b"],
    ["$'a\\\\b'", 'a\\b'],
    ["$'\\n\\t\\r\\a\\b\\e\\E\\f\\v'", '\n\t\r\x07\b\x1b\x1b\f\v'],
    ["$'\\\"\\?'", '"?'],
    ["$'\\101\\0101\\1234\\777'", 'A\b1S4\xff'],
    ["$'\\x41\\x4g\\x'", 'A\x04g\\x'],
    ["$'\\u00e9\\U0001F600\\u'", 'é😀\\u'],
    ["$'\\cA\\c?\\c'", '\x01\x7f\\c'],
    ["$'\\z\\8'", '\\z\\8'],
    ["x$'a\\0b'y", 'xay'],
    ["$'a\\x00b'", 'a'],
    ['$"x y"', 'x y'],
    ['"$\'x\'"', "$'x'"],
  ])('the word %s is %j', (input, value) => {
    const parsed = parseShellCommand(`echo ${input}`);
    expect(parsed.commands.map((c) => c.words)).toEqual([['echo', value]]);
  });

  test('decodeAnsiC() follows bash: up to three octal digits, a NUL ends the string', () => {
    expect(decodeAnsiC('\\0101')).toBe('\b1');
    expect(decodeAnsiC('a\\u0000b')).toBe('a');
    expect(decodeAnsiC('\\c\\\\x')).toBe('\x1cx');
  });

  const none = { substitution: false, brace: false, glob: false, tilde: false };
  test.each<[string, Partial<typeof none>]>([
    ['plain', {}],
    ["'$x'", {}],
    ['\\$x', {}],
    ['a$', {}],
    ['"$"', {}],
    ['$x', { substitution: true }],
    ['"${x}y"', { substitution: true }],
    ['a$(b)', { substitution: true }],
    ['$1', { substitution: true }],
    ['$-', { substitution: true }],
    ['{a,b}', { brace: true }],
    ['x{1..3}', { brace: true }],
    ['{a}', {}],
    ['{}', {}],
    ["{a','b}", {}],
    ['*.ts', { glob: true }],
    ['a?', { glob: true }],
    ['[ab]', { glob: true }],
    ['[', {}],
    ['"*"', {}],
    ['~/x', { tilde: true }],
    ['a=~/x', { tilde: true }],
    ['a=b:~', { tilde: true }],
    ['a~', {}],
    ["'~'", {}],
  ])('the expansions of %s', (input, expansions) => {
    expect(parseShellCommand(`echo ${input}`).commands.at(-1)!.expansions[1]).toEqual({ ...none, ...expansions });
  });

  test.each<[string, number]>([
    ['X=1 Y=2 rm x', 2],
    ['X+=1 rm', 1],
    ['rm X=1', 0],
    ["'X'=1 rm", 0],
    ['X=1', 1],
    ['> f X=1 rm', 1],
  ])('%s has %i assignments in front', (input, assignments) => {
    expect(parseShellCommand(input).commands[0]!.assignments).toBe(assignments);
  });

  test.each<[string]>([
    ['echo $((1 + 2))'],
    ['((x++))'],
    ['echo $[1+2]'],
    ['case $x in a) rm y;; esac'],
    ['[[ -f x ]] && rm x'],
    ['coproc rm x'],
    ['a=(1 2)'],
    ['a[$(id)]=1'],
    ["x='a[$(rm y)]'; test -v \"$x\""],
    ['echo ${!x}'],
    ['echo ${x:1}'],
    ['echo ${a[0]}'],
    ['cat <<EOF\n$(rm x)\nEOF'],
    ['echo ' + '$('.repeat(40) + ')'.repeat(40)],
    // Where a command word may be, bash reads `name[…]` to its `]`, blanks included.
    ['x[ a ] b'],
    ['X=1 y[1 + 2]=3 ls'],
    // Line continuations are removed before bash reads `$x` or `&&`.
    ['echo $\\\nx'],
    ['ls &\\\n& rm x'],
  ])('%j cannot be read completely', (input) => {
    const parsed = parseShellCommand(input);
    expect(parsed).toMatchObject({ opaque: true, incomplete: true });
  });

  test.each<[string, string[][]]>([
    ["cat <<'EOF'\n$(rm x)\nEOF\nls", [['cat'], ['ls']]],
    ['cat <<-EOF\n\tbody\n\tEOF\nls', [['cat'], ['ls']]],
    ['echo ${x:-$(rm z)}', [['rm', 'z'], ['echo', '${x:-$(rm z)}']]],
  ])('%j is read completely (opaque)', (input, words) => {
    const parsed = parseShellCommand(input);
    expect(parsed.commands.map((c) => c.words)).toEqual(words);
    expect(parsed).toMatchObject({ opaque: true, incomplete: false });
  });

  test.each<[string]>([['ls > 2>f'], ['ls > {v}>f'], ['ls 2> >f']])('%j is a syntax error: the first redirection has no target', (input) => {
    expect(parseShellCommand(input)).toMatchObject({ opaque: true, incomplete: false });
  });

  test.each<[string, string, { opaque: boolean; incomplete: boolean }]>([
    ['brackets', 'echo ' + '['.repeat(200_000) + '$(', { opaque: true, incomplete: true }],
    ['braces', 'echo ' + '{,'.repeat(100_000) + '}', { opaque: false, incomplete: false }],
    ['nested ${…}', 'echo ' + '${x:-'.repeat(50_000), { opaque: true, incomplete: true }],
    ['nested quotes in ${…}', 'echo "' + '${x:-"'.repeat(50_000), { opaque: true, incomplete: true }],
    ['nested $(…)', 'echo ' + '$('.repeat(50_000), { opaque: true, incomplete: true }],
    ['nested backticks', 'echo ' + '`\\'.repeat(10_000), { opaque: true, incomplete: false }],
  ])('adversarial input (%s) is read without deep recursion or quadratic work', (_, input, flags) => {
    expect(parseShellCommand(input)).toMatchObject(flags);
  });

  test('a very long line is read in one pass', () => {
    const line = Array.from({ length: 20_000 }, (_, i) => `echo ${i}`).join(' && ');
    const parsed = parseShellCommand(line);
    expect(parsed.commands).toHaveLength(20_000);
    expect(parsed.commands[19_999]!.words).toEqual(['echo', '19999']);
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
    ["echo '2'>f", [['echo', '2']], [{ op: '>', target: 'f' }], false],
    ['exec {fd}>/dev/null', [['exec']], [{ op: '>', fd: '{fd}', target: '/dev/null' }], false],
    ['cat <<< "a b"', [['cat']], [{ op: '<<<', target: 'a b' }], false],
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
    expect(parseShellCommand('ls  2>/dev/null >  f\\\n  -l').commands.map((c) => c.text)).toEqual(['ls 2>/dev/null > f -l']);
  });
});
