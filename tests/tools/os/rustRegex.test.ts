import { parseRustRegex, RegexSyntaxError, requiredLiterals, toJsRegex, UnsupportedRegexError } from '../../../src/tools/os/grep/rustRegex';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { writeFiles } from '../../helpers/tempDir';

const parse = (pattern: string, caseInsensitive = false, multiline = false) => parseRustRegex(pattern, { caseInsensitive, multiline });

function syntaxError(pattern: string): string {
  try {
    parse(pattern);
  } catch (error) {
    if (error instanceof RegexSyntaxError) return `${error.message} @${error.position}`;
    throw error;
  }
  return 'accepted';
}

describe('Rust regex syntax', () => {
  test.each([
    ['foo(', 'unclosed group @3'],
    ['foo)', 'unopened group @3'],
    ['[a', 'unclosed character class @0'],
    ['[]', 'unclosed character class @0'],
    ['*a', 'repetition operator missing expression @0'],
    ['a|*', 'repetition operator missing expression @2'],
    ['{', 'repetition operator missing expression @0'],
    ['a{', 'unclosed counted repetition @1'],
    ['a{x}', 'repetition quantifier expects a valid decimal @2'],
    ['a{1,2', 'unclosed counted repetition @1'],
    ['x{2,1}', 'invalid repetition count range, the start must be <= the end @1'],
    ['[z-a]', 'invalid character class range, the start must be <= the end @1'],
    ['[\\d-z]', 'invalid range boundary, must be a literal @1'],
    ['(?=a)', 'look-around, including look-ahead and look-behind, is not supported @0'],
    ['a(?<!b)', 'look-around, including look-ahead and look-behind, is not supported @1'],
    ['(a)\\1', 'backreferences are not supported @3'],
    ['\\k<n>', 'unrecognized escape sequence "\\k" @0'],
    ['\\', 'incomplete escape sequence: the pattern ends with a backslash @0'],
    ['(?z)', 'unrecognized flag @2'],
    ['(?x)a # comment', 'unclosed group: a (?x) comment must end with a newline @6'],
    ['\\x{110000}', 'hexadecimal literal is not a Unicode scalar value @0'],
    ['a\\nb', 'the literal "\\n" is not allowed in a regex unless multiline is true @0'],
    ['[\\n]', 'the literal "\\n" is not allowed in a regex unless multiline is true @0'],
  ])('%s → %s', (pattern, expected) => {
    expect(syntaxError(pattern)).toBe(expected);
  });

  test.each(['}', ']', 'x**', '[]a]', '[a-]', '()', 'a||b', '|a', '(?:)', '\\-\\:\\/\\#\\ ', '(?P<n>a)(?<m>b)', '[[:alpha:]]', '[[:foo:]]', '\\pL\\p{Greek}', '(?i)a', 'a{ 2 }', 'a|\\n', '\\b{start}\\<x\\>'])(
    '%s is accepted',
    (pattern) => {
      expect(syntaxError(pattern)).toBe('accepted');
    },
  );

  test('multiline mode allows a literal newline', () => {
    expect(() => parse('a\\nb', false, true)).not.toThrow();
  });
});

describe('translation to JavaScript', () => {
  const js = (pattern: string, ci = false, multiline = false) => toJsRegex(parse(pattern, ci, multiline));
  const test1 = (pattern: string, subject: string, ci = false) => {
    const { source, flags } = js(pattern, ci);
    return new RegExp(source, flags).test(subject);
  };

  test('Unicode-aware classes, ASCII under (?-u), and line anchors that ignore \\r', () => {
    expect(test1('^\\w+$', 'naïve')).toBe(true);
    expect(test1('^(?-u:\\w)+$', 'naïve')).toBe(false);
    expect(test1('^\\d+$', '١٢٣')).toBe(true);
    expect(test1('\\bé', 'café')).toBe(false);
    expect(test1('end$', 'end\r')).toBe(false);
    expect(test1('end.$', 'end\r')).toBe(true);
    expect(test1('[\\w&&[^\\d]]+x', '1x')).toBe(false);
    expect(test1('[a-z--[aeiou]]', 'e')).toBe(false);
    expect(test1('[a-c~~b-d]', 'b')).toBe(false);
    expect(test1('[a-c~~b-d]', 'd')).toBe(true);
  });

  test('flags: leading (?i), (?s), (?x), (?U)', () => {
    expect(js('(?i)abc')).toEqual({ source: 'abc', flags: 'iv' });
    expect(js('abc', true).flags).toBe('iv');
    expect(test1('(?s)a.b', 'a\nb')).toBe(true);
    expect(test1('a.b', 'a\nb')).toBe(false);
    expect(test1('(?x) a b # comment\n c', 'abc')).toBe(true);
    const lazy = js('(?U)a+');
    expect('aaa'.match(new RegExp(lazy.source, lazy.flags))![0]).toBe('a');
  });

  test('what the builtin engine cannot run is refused clearly', () => {
    expect(() => js('a(?i)b')).toThrow(UnsupportedRegexError);
    expect(() => js('(?i:a)b')).toThrow(/case-insensitivity that changes inside the pattern/);
    expect(() => js('(?R)a$')).toThrow(/CRLF mode/);
    expect(() => js('\\p{NoSuchProperty}')).toThrow(/Unicode class/);
  });
});

describe('required literals (the byte prefilter)', () => {
  test.each([
    ['XMLHttpRequestUpload', false, [['XMLHttpRequestUpload']]],
    ['class\\s+\\w+error', true, [['class'], ['error']]],
    ['function\\s+\\w+Sync\\(', false, [['function'], ['Sync(']]],
    ['todo|fixme', true, [['todo', 'fixme']]],
    ['(foo|bar)baz', false, [['foo', 'bar'], ['baz']]],
    ['ab?cd', false, [['cd']]],
    ['a(bc)*de', false, [['de']]],
    ['x+yz', false, [['yz']]],
    ['\\w+', false, []],
    ['caf\u00e9', true, []],
    ['caf\u00e9', false, [['caf\u00e9']]],
  ])('%s (-i: %s)', (pattern, ci, sets) => {
    expect(requiredLiterals(parse(pattern as string, ci as boolean)).sets).toEqual(sets);
  });
});

describe('the builtin engine agrees with ripgrep on patterns', () => {
  const fx = useAgent({ builtins: true });
  const patterns = [
    '\\d+',
    '\\w+@\\w+\\.\\w+',
    '[^a-z ]',
    '\\bfoo\\b',
    '^\\s*$',
    'a{2,3}',
    '(a|b)+c',
    '[[:alpha:]]+\\d',
    '\\p{Greek}+',
    '\\pL{6,}',
    '[\\w&&[^\\d]]+_',
    '[a-z--[aeiou]]{4}',
    '^.$',
    '\\x41',
    '\\u{e9}',
    '(?x) f o o  ',
    '\\<bar\\>',
    '\\Boo',
    'z$',
    '(?-u:\\w)+\\s',
    '\\t',
    '(?i)STRASSE|ΣΊΣΥΦΟΣ',
    'é|ü',
    '^[^\\p{ASCII}]',
    '\\S+\\s\\S+$',
  ];

  test('every pattern gives the same content and counts with both engines', async () => {
    writeFiles(fx.dir, {
      'sample.txt': [
        'foo bar baz',
        'foobar barfoo',
        'mail me: a.b@example.com or x@y.org',
        '',
        '   ',
        'aaa aab abc bbc',
        'Σίσυφος and ΣΊΣΥΦΟΣ',
        'naïve café über',
        'UPPER lower 123 ٤٥٦',
        'x1 y22 z333',
        'tab\there',
        'ends with z',
        'Straße STRASSE strasse',
        'snake_case_name camelCase',
        'a',
        'windows line\r',
        'ÄÖÜ umlauts',
      ].join('\n') + '\n',
    });
    const results: Record<string, string[]> = { ripgrep: [], builtin: [] };
    for (const engine of ['ripgrep', 'builtin'] as const) {
      fx.open({ config: { grep: { engine } } });
      for (const pattern of patterns) {
        results[engine]!.push(`${pattern}\n${text(await callTool(fx.agent, 'Grep', { pattern, output_mode: 'content', head_limit: 0 }))}`);
        results[engine]!.push(`${pattern}\n${text(await callTool(fx.agent, 'Grep', { pattern, output_mode: 'count_matches' }))}`);
      }
      await fx.app.dispose();
    }
    expect(results.builtin).toEqual(results.ripgrep);
  });
});
