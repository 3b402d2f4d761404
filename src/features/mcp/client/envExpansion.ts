/** A `${NAME}` or `${NAME:-default}` reference to an environment variable. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type ExpansionResult = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly missing: string };

/**
 * Expands `${NAME}` and `${NAME:-default}` in a config value (other tools' MCP configs use them for
 * tokens). An unset variable without a default is reported, never replaced by an empty string.
 */
export function expandEnvReferences(text: string, env: NodeJS.ProcessEnv): ExpansionResult {
  let missing: string | undefined;
  const value = text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const current = env[name];
    if (current !== undefined && current !== '') return current;
    if (fallback !== undefined) return fallback;
    if (current === '') return '';
    missing ??= name;
    return '';
  });
  return missing === undefined ? { ok: true, value } : { ok: false, missing };
}

export class EnvExpansionError extends Error {
  override readonly name = 'EnvExpansionError';
}

/** Expands a value or throws naming the key path and the variable. */
export function expandOrThrow(text: string, env: NodeJS.ProcessEnv, where: string): string {
  const result = expandEnvReferences(text, env);
  if (!result.ok) throw new EnvExpansionError(`${where} uses \${${result.missing}}, but the environment variable ${result.missing} is not set`);
  return result.value;
}
