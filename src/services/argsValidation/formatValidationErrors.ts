import type { ErrorObject } from 'ajv';

/** `line_offset`, `edits[2].old_string`, or `arguments` for the root. */
function pointerToPath(pointer: string): string {
  if (pointer === '') return 'arguments';
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const base = pointerToPath(error.instancePath);
      const name = base === 'arguments' ? String(params.missingProperty) : `${base}.${String(params.missingProperty)}`;
      return `missing required property "${name}"`;
    }
    case 'additionalProperties': {
      const base = pointerToPath(error.instancePath);
      const name = base === 'arguments' ? String(params.additionalProperty) : `${base}.${String(params.additionalProperty)}`;
      return `unexpected property "${name}"`;
    }
    case 'enum':
      return `"${pointerToPath(error.instancePath)}" must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `"${pointerToPath(error.instancePath)}" must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `"${pointerToPath(error.instancePath)}" ${error.message ?? 'is invalid'}`;
  }
}

/**
 * One line per problem, for the model: missing and unexpected properties are named, and the
 * branches of a failed `anyOf`/`oneOf` are folded into one message.
 */
export function formatValidationErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'the arguments do not match the schema';
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const messages: string[] = [];
  for (const error of errors) {
    const union = unions.find((u) => u !== error && error.schemaPath.startsWith(u.schemaPath.replace(/\/(anyOf|oneOf)$/, '/$1/')) && error.instancePath.startsWith(u.instancePath));
    if (union) continue;
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const prefix = error.schemaPath + '/';
      const branches = errors.filter((e) => e !== error && e.schemaPath.startsWith(prefix) && e.instancePath === error.instancePath && e.keyword !== 'type');
      const typeBranches = errors.filter((e) => e !== error && e.schemaPath.startsWith(prefix) && e.keyword === 'type');
      const options = [
        ...new Set([
          ...typeBranches.map((e) => `be ${String((e.params as { type: unknown }).type)}`),
          ...branches.map((e) => (e.message ?? 'match').replace(/^must /, '')),
        ]),
      ];
      messages.push(`"${pointerToPath(error.instancePath)}" must ${options.length > 0 ? options.join(' or ') : 'match one of the allowed forms'}`);
      continue;
    }
    messages.push(describe(error));
  }
  return [...new Set(messages)].join('; ');
}
