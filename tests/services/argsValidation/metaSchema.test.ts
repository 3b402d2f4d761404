import { z } from 'zod';
import { ToolArgsValidatorService } from '../../../src/services/argsValidation/toolArgsValidatorService';
import { toInputJsonSchema } from '../../../src/tool/inputSchema';

/**
 * The validator checks a schema against the draft-07 meta-schema before compiling it, except a
 * schema toInputJsonSchema generated (zod writes valid draft-07, and compiling the meta-schema is
 * most of a process's first compile): schemas of MCP servers, user tools and hand-written tools
 * are still refused with ajv's reasons.
 */
describe('ToolArgsValidatorService and the meta-schema', () => {
  const validator = new ToolArgsValidatorService();
  afterAll(() => validator.dispose());

  test.each<[string, Record<string, unknown>, string]>([
    ['an unknown type', { type: 'object', properties: { a: { type: 'nonsense' } } }, 'its input schema is invalid (schema is invalid: data/properties/a/type must be equal to one of the allowed values, data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf)'],
    ['a required list that is no list', { type: 'object', required: 'a' }, 'its input schema is invalid (schema is invalid: data/required must be array)'],
    ['a negative minLength', { type: 'object', properties: { a: { type: 'string', minLength: -1 } } }, 'its input schema is invalid (schema is invalid: data/properties/a/minLength must be >= 0)'],
  ])('a hand-written schema with %s is refused with the reason', (_name, schema, message) => {
    expect(validator.check(schema)).toBe(message);
    expect(validator.validate(schema, {})).toEqual({ ok: false, message });
  });

  test('a generated schema compiles and validates', () => {
    const schema = toInputJsonSchema(z.object({ path: z.string().min(1), limit: z.number().int().min(1).optional() }));
    expect(validator.check(schema)).toBeUndefined();
    expect(validator.validate(schema, { path: 'a', limit: '5' })).toEqual({ ok: true, value: { path: 'a', limit: 5 } });
    expect(validator.validate(schema, { path: '' })).toMatchObject({ ok: false });
  });
});
