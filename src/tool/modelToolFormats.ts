import type { JsonSchema } from './contract';

/** What a provider API needs of a tool. */
export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

export type ModelToolFormat = 'openai' | 'anthropic' | 'json';
export const MODEL_TOOL_FORMATS: readonly ModelToolFormat[] = ['openai', 'anthropic', 'json'];

/** OpenAI and Anthropic both require names matching this (1–64 characters). */
export const PROVIDER_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export interface OpenAiTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema };
}

export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

/** The schema as providers take it: an object schema, without `$schema`. */
export function providerSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest.type === 'object' ? rest : { type: 'object', properties: {}, ...rest };
}

/** Chat Completions `tools` entries. */
export function toOpenAiTools(tools: readonly ModelToolSpec[]): OpenAiTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: providerSchema(tool.parameters) },
  }));
}

/** Messages API `tools` entries. */
export function toAnthropicTools(tools: readonly ModelToolSpec[]): AnthropicTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: providerSchema(tool.parameters) }));
}

/** Problems that would make a provider refuse the list; empty when it is fine. */
export function providerToolListProblems(tools: readonly ModelToolSpec[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!PROVIDER_TOOL_NAME_PATTERN.test(tool.name)) problems.push(`"${tool.name}": the name must match ${PROVIDER_TOOL_NAME_PATTERN.source}`);
    if (seen.has(tool.name)) problems.push(`"${tool.name}": the name appears twice`);
    seen.add(tool.name);
    if (typeof tool.description !== 'string' || tool.description.trim() === '') problems.push(`"${tool.name}": the description is empty`);
    const schema = providerSchema(tool.parameters);
    if (schema.type !== 'object') problems.push(`"${tool.name}": the input schema is not an object schema`);
  }
  return problems;
}
