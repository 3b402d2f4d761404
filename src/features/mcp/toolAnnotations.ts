import type { ToolAnnotations } from '../../tool/contract';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * The annotations both toolhost and MCP know (title and the four hints), from a tool of either
 * side; anything else, and a value of the wrong type, is left out. Undefined when none is left.
 */
export function knownToolAnnotations(annotations: Readonly<Record<string, unknown>> | ToolAnnotations | undefined): ToolAnnotations | undefined {
  if (!annotations) return undefined;
  const given = annotations as Readonly<Record<string, unknown>>;
  const out: { -readonly [K in keyof ToolAnnotations]: ToolAnnotations[K] } = {};
  if (typeof given.title === 'string') out.title = given.title;
  for (const key of HINTS) {
    const value = given[key];
    if (typeof value === 'boolean') out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
