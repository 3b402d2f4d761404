import { describeLines, spellingsFor } from '../../../src/tools/edit/editTool';
import { countLineBreaks, detectLineEndings, findOccurrences, firstInvalidUtf8, lineNumbersAt, withLineEndings } from '../../../src/tools/edit/editText';

const b = (s: string) => Buffer.from(s, 'utf8');

test.each<[string, string]>([
  ['', 'none'],
  ['one line', 'none'],
  ['a\nb\n', 'lf'],
  ['a\r\nb\r\n', 'crlf'],
  ['a\r\nb', 'crlf'],
  ['a\r\nb\nc', 'mixed'],
  ['a\rb\rc', 'none'],
  ['\n', 'lf'],
  ['\r\n', 'crlf'],
])('detectLineEndings(%j) = %s', (text, style) => {
  expect(detectLineEndings(b(text))).toBe(style);
});

test.each<[string, 'lf' | 'crlf', string]>([
  ['a\nb', 'crlf', 'a\r\nb'],
  ['a\r\nb', 'crlf', 'a\r\nb'],
  ['a\r\nb\nc', 'crlf', 'a\r\nb\r\nc'],
  ['a\r\nb', 'lf', 'a\nb'],
  ['a\rb', 'lf', 'a\rb'],
  ['a\rb\n', 'crlf', 'a\rb\r\n'],
])('withLineEndings(%j, %s)', (text, style, expected) => {
  expect(withLineEndings(text, style)).toBe(expected);
});

test.each<[string, string, { overlapping?: boolean; limit?: number }, number[]]>([
  ['abcabc', 'abc', {}, [0, 3]],
  ['aaaa', 'aa', {}, [0, 2]],
  ['aaaa', 'aa', { overlapping: true }, [0, 1, 2]],
  ['aaaa', 'aa', { overlapping: true, limit: 2 }, [0, 1]],
  ['abc', 'x', {}, []],
  ['abc', '', {}, []],
  ['é€é', '€', {}, [2]],
])('findOccurrences(%j, %j, %j)', (haystack, needle, options, offsets) => {
  expect(findOccurrences(b(haystack), b(needle), options)).toEqual(offsets);
});

test('lineNumbersAt counts lines up to each offset in one pass', () => {
  const text = b('a\nbb\n\nccc\nd');
  expect(lineNumbersAt(text, [0, 1, 2, 4, 5, 6, 9, 10, 11])).toEqual([1, 1, 2, 2, 3, 4, 4, 5, 5]);
  expect(lineNumbersAt(text, [])).toEqual([]);
  expect(lineNumbersAt(text, [6, 6])).toEqual([4, 4]);
});

test('countLineBreaks', () => {
  expect([countLineBreaks(''), countLineBreaks('a'), countLineBreaks('a\nb\n'), countLineBreaks('\r\n\r\n')]).toEqual([0, 0, 2, 2]);
});

test.each<[string, number[], number]>([
  ['ascii', [0x61, 0x62], -1],
  ['two-byte é', [0xc3, 0xa9], -1],
  ['euro sign', [0xe2, 0x82, 0xac], -1],
  ['emoji', [0xf0, 0x9f, 0x8e, 0x89], -1],
  ['Latin-1 é', [0x61, 0xe9, 0x62], 1],
  ['a stray continuation byte', [0x61, 0x80], 1],
  ['an overlong two-byte form', [0xc0, 0xaf], 0],
  ['an overlong three-byte form', [0xe0, 0x80, 0xaf], 0],
  ['a surrogate', [0xed, 0xa0, 0x80], 0],
  ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
  ['an invalid lead byte', [0x61, 0xff], 1],
  ['a sequence cut at the end', [0x61, 0xe2, 0x82], 1],
  ['a sequence cut by ASCII', [0xe2, 0x41, 0x42], 0],
])('firstInvalidUtf8: %s', (_name, bytes, offset) => {
  expect(firstInvalidUtf8(Buffer.from(bytes))).toBe(offset);
});

test('firstInvalidUtf8 agrees with TextDecoder on random bytes', () => {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let trial = 0; trial < 2000; trial++) {
    const bytes = Buffer.from(Array.from({ length: 1 + (next() % 12) }, () => [0x41, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x8e, 0x89, 0x80, 0xff, 0xed, 0xa0][next() % 14]!));
    let valid = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      valid = false;
    }
    expect([bytes.toString('hex'), firstInvalidUtf8(bytes) === -1]).toEqual([bytes.toString('hex'), valid]);
  }
});

test.each<[string, string, string, Parameters<typeof spellingsFor>[2], string[]]>([
  ['CRLF file', 'a\nb', 'c\nd', 'crlf', ['a\r\nb|c\r\nd|crlf']],
  ['LF file', 'a\r\nb', 'c\r\nd', 'lf', ['a\nb|c\nd|lf']],
  ['LF file, nothing to convert', 'a\nb', 'c', 'lf', ['a\nb|c|']],
  ['no line break in the file', 'a', 'c\r\nd', 'none', ['a|c\nd|lf']],
  ['mixed file', 'a\nb', 'c\nd', 'mixed', ['a\nb|c\nd|', 'a\r\nb|c\r\nd|crlf']],
  ['mixed file, CRLF sent', 'a\r\nb', 'c', 'mixed', ['a\r\nb|c|', 'a\nb|c|lf']],
])('spellingsFor: %s', (_name, oldString, newString, style, expected) => {
  expect(spellingsFor(oldString, newString, style).map((s) => `${s.oldText}|${s.newText}|${s.converted ?? ''}`)).toEqual(expected);
});

test.each<[number[], string]>([
  [[4], 'line 4'],
  [[1, 1, 1], 'line 1'],
  [[1, 3, 3, 5], 'lines 1, 3, 5'],
  [Array.from({ length: 14 }, (_, i) => i + 1), 'lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 4 more'],
])('describeLines(%j)', (lines, text) => {
  expect(describeLines(lines)).toBe(text);
});
