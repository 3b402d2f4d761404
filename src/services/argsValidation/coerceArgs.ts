/**
 * Lossless coercion of model arguments before validation: a string that is exactly the JSON text
 * of the integer, number or boolean the schema asks for becomes that value ("3" → 3, "true" →
 * true), and a number only when the double holds the written value exactly (not
 * "12345678901234567890"). Only where the schema does not accept a string; nothing else is touched.
 */

type Schema = { readonly [key: string]: unknown };

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Schema): Set<string> {
  const types = new Set<string>();
  const add = (t: unknown) => {
    if (typeof t === 'string') types.add(t);
    else if (Array.isArray(t)) t.forEach(add);
  };
  add(schema.type);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) for (const option of options) if (isSchema(option)) typesOf(option).forEach((t) => types.add(t));
  }
  if (Array.isArray(schema.enum)) for (const v of schema.enum) types.add(v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v);
  if ('const' in schema) types.add(typeof schema.const === 'number' ? 'number' : typeof schema.const);
  return types;
}

/** A decimal number's value as sign, significant digits and exponent, so equal values compare equal ("1.50" and "1.5e0"). */
function decimalValue(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`;
  let scale = Number(exponent) - fraction.length;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading);
  if (digits === '') return '0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  scale += trailing;
  return `${sign}${digits}e${scale}`;
}

/** The number the text stands for, only when the double holds it exactly as written ("12345678901234567890" does not fit). */
function exactNumber(text: string): number | undefined {
  const n = Number(text);
  if (!Number.isFinite(n)) return undefined;
  return decimalValue(String(n)) === decimalValue(text) ? n : undefined;
}

function coerceScalar(value: string, schema: Schema): unknown {
  const types = typesOf(schema);
  if (types.size === 0 || types.has('string')) return value;
  if ((types.has('integer') || types.has('number')) && JSON_NUMBER.test(value)) {
    const n = exactNumber(value);
    if (n !== undefined && (types.has('number') || (Number.isSafeInteger(n) && !/[.eE]/.test(value)))) return n;
  }
  if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Returns the value with lossless string coercions applied (new objects only where something changed). */
export function coerceArgs(value: unknown, schema: unknown): unknown {
  if (!isSchema(schema)) return value;
  if (typeof value === 'string') return coerceScalar(value, schema);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isSchema(items)) return value;
    let changed = false;
    const out = value.map((item) => {
      const next = coerceArgs(item, items);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (isSchema(value)) {
    const properties = isSchema(schema.properties) ? schema.properties : undefined;
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const propertySchema = properties?.[key];
      if (!isSchema(propertySchema)) continue;
      const next = coerceArgs(item, propertySchema);
      if (next !== item) {
        out ??= { ...value };
        out[key] = next;
      }
    }
    return out ?? value;
  }
  return value;
}
