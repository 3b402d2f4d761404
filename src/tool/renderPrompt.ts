const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type PromptValues = Readonly<Record<string, string | number>>;

export class PromptTemplateError extends Error {
  override readonly name = 'PromptTemplateError';
}

/**
 * Fills `${NAME}` placeholders in one pass (inserted text is not expanded again). A placeholder
 * without a value is an error, not silent text: a typo in a description template must fail the
 * tests, not reach a model.
 */
export function renderPrompt(template: string, values: PromptValues): string {
  const missing = new Set<string>();
  const text = template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined;
    if (value === undefined) {
      missing.add(name);
      return whole;
    }
    return String(value);
  });
  if (missing.size > 0) {
    throw new PromptTemplateError(`Prompt template has no value for: ${[...missing].map((n) => '${' + n + '}').join(', ')}`);
  }
  return text;
}

/** The placeholder names a template uses. */
export function promptPlaceholders(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (m) => m[1]!))];
}
