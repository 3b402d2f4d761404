import { PromptTemplateError, promptPlaceholders, renderPrompt } from '../../src/tool/renderPrompt';

describe('renderPrompt()', () => {
  test.each<[string, Record<string, string | number>, string]>([
    ['Up to ${MAX} lines.', { MAX: 2000 }, 'Up to 2000 lines.'],
    ['${A} and ${B}', { A: 'x', B: 'y' }, 'x and y'],
    ['${A}${A}', { A: '1' }, '11'],
    ['no placeholders', {}, 'no placeholders'],
    ['one pass: ${A}', { A: '${B}', B: 'never' }, 'one pass: ${B}'],
    ['$A and $ {A} are text', { A: 'x' }, '$A and $ {A} are text'],
    ['unused values are fine: ${A}', { A: 'a', B: 'b' }, 'unused values are fine: a'],
  ])('%s', (template, values, expected) => {
    expect(renderPrompt(template, values)).toBe(expected);
  });

  test('a placeholder without a value is an error, not silent text', () => {
    expect(() => renderPrompt('Max ${MAX_CHARS} and ${OTHER}', { MAX: 1 })).toThrow(PromptTemplateError);
    expect(() => renderPrompt('Max ${MAX_CHARS} and ${OTHER}', { MAX: 1 })).toThrow('Prompt template has no value for: ${MAX_CHARS}, ${OTHER}');
  });

  test('promptPlaceholders lists each name once', () => {
    expect(promptPlaceholders('${A} ${B_2} ${A} ${9x}')).toEqual(['A', 'B_2']);
  });
});
