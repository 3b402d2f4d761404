import { Ajv } from 'ajv';
import { z } from 'zod';
import { isGeneratedInputSchema, toInputJsonSchema } from '../../src/tool/inputSchema';

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, validateFormats: false });

describe('toInputJsonSchema()', () => {
  const schema = toInputJsonSchema(
    z.object({
      name: z.string().describe('who'),
      count: z.number().int().min(1).default(3),
      nested: z.object({ flag: z.boolean() }).optional(),
      list: z.array(z.object({ id: z.string() })).optional(),
      choice: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]).optional(),
      open: z.looseObject({ x: z.string() }).optional(),
      map: z.record(z.string(), z.number()).optional(),
    }),
  ) as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

  test('emits draft-07 in input mode: fields with defaults are optional', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.required).toEqual(['name']);
    expect(schema.properties.count).toEqual({ type: 'integer', minimum: 1, default: 3 });
    expect(schema.properties.name!.description).toBe('who');
  });

  test('closes every object, at every depth, unless the schema says otherwise', () => {
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.nested!.additionalProperties).toBe(false);
    expect((schema.properties.list!.items as Record<string, unknown>).additionalProperties).toBe(false);
    for (const option of schema.properties.choice!.anyOf as Array<Record<string, unknown>>) expect(option.additionalProperties).toBe(false);
    expect(schema.properties.open!.additionalProperties).toEqual({});
    expect(schema.properties.map!.additionalProperties).toEqual({ type: 'number' });
  });

  test.each<[string, unknown, boolean]>([
    ['minimal', { name: 'a' }, true],
    ['extra top-level key', { name: 'a', extra: 1 }, false],
    ['extra nested key', { name: 'a', nested: { flag: true, more: 1 } }, false],
    ['extra key in an array item', { name: 'a', list: [{ id: 'x', y: 1 }] }, false],
    ['loose object takes extras', { name: 'a', open: { x: 'y', z: 1 } }, true],
    ['record takes any key', { name: 'a', map: { q: 1 } }, true],
    ['integer bound', { name: 'a', count: 0 }, false],
  ])('ajv on the emitted schema: %s', (_name, value, valid) => {
    expect(ajv.validate(schema, value)).toBe(valid);
  });

  test('drops the implicit safe-integer bounds zod writes', () => {
    const json = toInputJsonSchema(z.object({ n: z.number().int() })) as { properties: { n: Record<string, unknown> } };
    expect(json.properties.n).toEqual({ type: 'integer' });
  });

  test('marks what it generated, which the argument validator then compiles without the meta-schema check', () => {
    expect(isGeneratedInputSchema(schema)).toBe(true);
    expect(ajv.validateSchema(schema)).toBe(true);
    // A copy or a schema written by hand is checked against the meta-schema when compiled.
    expect(isGeneratedInputSchema({ ...schema })).toBe(false);
    expect(isGeneratedInputSchema({ type: 'object', properties: {} })).toBe(false);
  });
});
