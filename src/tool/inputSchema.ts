import { z } from 'zod';
import type { JsonSchema } from './contract';

type MutableSchema = Record<string, unknown>;

function isObject(value: unknown): value is MutableSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `additionalProperties: false` on every object schema that does not say otherwise, and drops
 * zod's implicit safe-integer bounds.
 */
export function closeObjectSchemas(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) closeObjectSchemas(item);
    return;
  }
  if (!isObject(schema)) return;
  const isObjectType = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
  if (isObjectType && schema.additionalProperties === undefined) schema.additionalProperties = false;
  // zod writes the safe-integer range on every integer; it only adds noise for a model.
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  for (const [key, value] of Object.entries(schema)) {
    // `properties`, `definitions` and `$defs` map names to schemas; `const`/`enum`/`default`/examples are data.
    if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
    if (key === 'properties' || key === 'definitions' || key === '$defs' || key === 'patternProperties') {
      if (isObject(value)) for (const sub of Object.values(value)) closeObjectSchemas(sub);
      continue;
    }
    closeObjectSchemas(value);
  }
}

/**
 * Converted once per zod schema: tools whose instances convert theirs would otherwise pay the
 * conversion for every agent (a subagent is a new agent). Callers treat the result as read-only.
 */
const converted = new WeakMap<z.ZodType, MutableSchema>();
/** The schemas toInputJsonSchema made: valid draft-07 by construction (isGeneratedInputSchema). */
const generated = new WeakSet<object>();

/**
 * A tool's input schema as JSON Schema draft-07, in input mode (fields with defaults are
 * optional), with every object closed so extra arguments are rejected by validation.
 */
export function toInputJsonSchema(schema: z.ZodType): JsonSchema {
  let json = converted.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { target: 'draft-07', io: 'input' }) as MutableSchema;
    closeObjectSchemas(json);
    converted.set(schema, json);
    generated.add(json);
  }
  return json;
}

/**
 * Whether `schema` is one that toInputJsonSchema returned. zod writes valid draft-07, so the
 * argument validator skips checking it against the meta-schema, whose own compilation is most
 * of the first compile in a process (about 35 ms of a fresh process's first call).
 */
export function isGeneratedInputSchema(schema: JsonSchema): boolean {
  return generated.has(schema);
}

