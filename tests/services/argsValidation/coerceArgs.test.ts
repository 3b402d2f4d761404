import { coerceArgs } from '../../../src/services/argsValidation/coerceArgs';

const number = { type: 'number' };
const integer = { type: 'integer' };

describe('coerceArgs', () => {
  test.each<[string, object, string, number]>([
    ['an integer', integer, '3', 3],
    ['a negative number', number, '-2.5', -2.5],
    ['a number with trailing zeros', number, '1.50', 1.5],
    ['an exponent', number, '1e3', 1000],
    ['a tiny number', number, '0.0000001', 1e-7],
    ['the largest safe integer', integer, '9007199254740991', 9007199254740991],
    ['a large number that a double holds exactly', number, '10000000000000000000000', 1e22],
  ])('%s converts when the double holds the written value', (_name, schema, text, expected) => {
    expect(coerceArgs(text, schema)).toBe(expected);
  });

  test.each<[string, string, object]>([
    ['a 20-digit integer', '12345678901234567890', number],
    ['an integer past the safe range', '9007199254740993', integer],
    ['more digits than a double keeps', '0.12345678901234567890123', number],
    ['a fraction for an integer', '1.5', integer],
    ['not JSON number text', '0x10', number],
    ['a leading zero', '012', number],
    ['infinity', '1e999', number],
  ])('%s stays a string', (_name, text, schema) => {
    expect(coerceArgs(text, schema)).toBe(text);
  });

  test('booleans, nested properties and arrays', () => {
    const schema = { type: 'object', properties: { on: { type: 'boolean' }, n: { type: 'array', items: number }, s: { type: 'string' } } };
    expect(coerceArgs({ on: 'true', n: ['1', '12345678901234567890'], s: '5' }, schema)).toEqual({ on: true, n: [1, '12345678901234567890'], s: '5' });
  });
});
