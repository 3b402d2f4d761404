export type ParsedArguments = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/**
 * The arguments of a call: JSON text as a model sends it, or an object. Empty text and null mean
 * `{}`. A parse error is reported as such, never disguised as missing properties.
 */
export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
