import { DiceScorer, findNearMatch, isWhitespaceCode, lineAt, linesOf, type NearMatch, stripReadPrefixes } from '../../../src/tools/edit/nearMatch';

const FILE = [
  'import { a } from "./a";', // 1
  '', // 2
  'export function run(items) {', // 3
  '    for (const item of items) {', // 4
  '        console.log(item);', // 5
  '    }', // 6
  '    return items.length;', // 7
  '}', // 8
  '',
].join('\n');

describe('findNearMatch', () => {
  test.each<[string, string, Partial<NearMatch> | undefined]>([
    ['CRLF where the file has LF', 'for (const item of items) {\r\n        console.log(item);', { kind: 'line-endings', startLine: 4, endLine: 5 }],
    ["Read's prefixes", '4\t    for (const item of items) {\n5\t        console.log(item);\n', { kind: 'line-numbers', startLine: 4, endLine: 5, lineNumberPrefixes: true }],
    ['padded prefixes', '   7\t    return items.length;', { kind: 'line-numbers', startLine: 7, endLine: 7 }],
    ['tabs for spaces', '\tfor (const item of items) {\n\t\tconsole.log(item);\n\t}', { kind: 'indentation', startLine: 4, endLine: 6, indentation: 'spaces-vs-tabs' }],
    ['too few spaces on inner lines', '    for (const item of items) {\n      console.log(item);\n    }', { kind: 'indentation', startLine: 4, endLine: 6, indentation: 'width' }],
    ['too much indentation on the first line only', '      return items.length;', { kind: 'indentation', startLine: 7, endLine: 7, indentation: 'width' }],
    ['trailing spaces on a line', 'console.log(item);   \n    }', { kind: 'trailing-whitespace', startLine: 5, endLine: 6 }],
    ['an extra blank line at the end', 'return items.length;\n}\n\n\n', { kind: 'trailing-whitespace', startLine: 7, endLine: 8 }],
    ['spaces inside a line', 'for(const item of items){', { kind: 'whitespace', startLine: 4, endLine: 4 }],
    ['a line break where the file has none', 'console.log(\nitem);', { kind: 'whitespace', startLine: 5, endLine: 5 }],
    ['indentation and trailing whitespace at once', '\tfor (const item of items) {  \n\t\tconsole.log(item);', { kind: 'whitespace', startLine: 4, endLine: 5 }],
    ['several lines with one changed', 'for (const item of items) {\n    console.log(thing);\n}', { kind: 'similar', startLine: 4, endLine: 6, identicalLines: 2, needleLines: 3 }],
    ['several lines, anchored by a later line', 'export function walk(items) {\n    for (const item of items) {', { kind: 'similar', startLine: 3, endLine: 4, identicalLines: 1, needleLines: 2 }],
    ['one line with a typo', 'return item.length;', { kind: 'similar', startLine: 7, endLine: 7, needleLines: 1 }],
    ['nothing like it', 'SELECT name FROM users', undefined],
    ['only whitespace', '   \n\t', undefined],
  ])('%s', (_name, needle, expected) => {
    const found = findNearMatch(FILE, needle);
    if (expected === undefined) expect(found).toBeUndefined();
    else expect(found).toMatchObject(expected);
  });

  test('a single-line similarity is reported with its score', () => {
    expect(findNearMatch(FILE, 'console.log(items);')).toEqual({
      kind: 'similar',
      startLine: 5,
      endLine: 5,
      lineNumberPrefixes: false,
      needleLines: 1,
      similarity: new DiceScorer('console.log(items);').score('console.log(item);'),
    });
  });

  test('a multi-line old_string whose lines are all new falls back to its longest line', () => {
    expect(findNearMatch(FILE, 'x\n    return items.lenth;\ny')).toMatchObject({ kind: 'similar', startLine: 6, endLine: 8, needleLines: 3 });
  });

  test('the similarity search stops at its budget', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `row ${i} of the table`).join('\n') + '\nneedle in a haystack\n';
    expect(findNearMatch(text, 'needle in the haystack')).toMatchObject({ startLine: 1001 });
    expect(findNearMatch(text, 'needle in the haystack', { similarityBudget: 1000 })).toBeUndefined();
  });

  test('whitespace matches map back to the right place after long runs of whitespace', () => {
    const text = 'a\n' + ' '.repeat(10_000) + '\n\n\t\tb  c\n';
    expect(findNearMatch(text, 'b c')).toMatchObject({ kind: 'whitespace', startLine: 4, endLine: 4 });
  });
});

describe('helpers', () => {
  test.each<[string, string | undefined]>([
    ['1\tfoo\n2\tbar', 'foo\nbar'],
    ['  10\tfoo\n  11\t\n', 'foo\n\n'],
    ['1\tfoo\nbar', undefined],
    ['foo', undefined],
    ['', undefined],
  ])('stripReadPrefixes(%j)', (input, expected) => {
    expect(stripReadPrefixes(input)).toBe(expected);
  });

  test('lineAt and linesOf', () => {
    expect([lineAt(FILE, 0), lineAt(FILE, FILE.indexOf('console')), lineAt(FILE, FILE.length)]).toEqual([1, 5, 9]);
    expect(linesOf(FILE, 4, 5)).toEqual(['    for (const item of items) {', '        console.log(item);']);
    expect(linesOf('a\nb', 2, 10)).toEqual(['b']);
    expect(linesOf('a\nb', 3, 4)).toEqual([]);
  });

  test('isWhitespaceCode agrees with /\\s/ on every UTF-16 code unit', () => {
    const wrong: number[] = [];
    for (let c = 0; c <= 0xffff; c++) if (isWhitespaceCode(c) !== /\s/.test(String.fromCharCode(c))) wrong.push(c);
    expect(wrong).toEqual([]);
  });

  test.each<[string, string, number]>([
    ['night', 'nacht', 0.25],
    ['same', 'same', 1],
    ['ab', 'cd', 0],
    ['aaaa', 'aa', 2 / 4],
  ])('DiceScorer(%j).score(%j) = %d', (a, b, score) => {
    expect(new DiceScorer(a).score(b)).toBeCloseTo(score, 10);
  });
});
