import type { JsonSchema } from './contract';

/** What a provider API needs of a tool. */
export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

export type ModelToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'json';
export const MODEL_TOOL_FORMATS: readonly ModelToolFormat[] = ['openai', 'openai-responses', 'anthropic', 'json'];

/** OpenAI and Anthropic both require names matching this (1–64 characters). */
export const PROVIDER_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export interface OpenAiTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema };
}

/** A Responses API `tools` entry: the function fields at the top level. */
export interface OpenAiResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  /** Strict mode needs every property required and no optional ones; toolhost schemas have optional properties. */
  readonly strict: false;
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

/** Responses API `tools` entries (the flat shape). */
export function toOpenAiResponsesTools(tools: readonly ModelToolSpec[]): OpenAiResponsesTool[] {
  return tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: providerSchema(tool.parameters), strict: false }));
}

/** The tool list in one of the formats (`json`: the specs as they are). */
export function toModelTools(tools: readonly ModelToolSpec[], format: ModelToolFormat): readonly unknown[] {
  switch (format) {
    case 'openai':
      return toOpenAiTools(tools);
    case 'openai-responses':
      return toOpenAiResponsesTools(tools);
    case 'anthropic':
      return toAnthropicTools(tools);
    case 'json':
      return tools;
  }
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
