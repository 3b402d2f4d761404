import type { OpenAiTool } from '../../tool/modelToolFormats';
import type { OpenAiChatToolMessage, OpenAiChatUserContentPart } from '../../tool/modelResultFormats';

/**
 * The part of the OpenAI Chat Completions wire format (`POST {baseUrl}/chat/completions`) the
 * runner sends and reads. OpenAI, Azure OpenAI, OpenRouter, vLLM, llama.cpp's server, Ollama and
 * LM Studio all speak it.
 */

export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  /** `arguments` is JSON text, as the model wrote it (it may be invalid: the executor says so to the model). */
  readonly function: { readonly name: string; readonly arguments: string };
}

export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | OpenAiChatUserContentPart[] }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: ChatToolCall[] }
  | OpenAiChatToolMessage;

export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: OpenAiTool[];
  readonly max_tokens?: number;
}

export type ChatFinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'function_call';

/** What the runner takes from a response (providers add more fields; they are ignored). */
export interface ChatCompletionAnswer {
  readonly content: string;
  readonly toolCalls: ChatToolCall[];
  /** As sent; `null` or a provider's own reason is kept as text. */
  readonly finishReason: string;
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number; readonly totalTokens?: number };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Reads the first choice of a (non-streamed) response body. Throws with what is wrong when the
 * body is not a Chat Completions response. A tool call without an id gets `fallbackId(n)`: the
 * tool message must name the same id the assistant message does.
 */
export function parseChatCompletion(body: unknown, fallbackId: (n: number) => string): ChatCompletionAnswer {
  if (!isRecord(body) || !Array.isArray(body.choices) || body.choices.length === 0) throw new Error('it has no "choices"');
  const choice: unknown = body.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) throw new Error('its first choice has no "message"');
  const message = choice.message;
  const rawCalls: unknown[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const toolCalls = rawCalls.map((raw, n): ChatToolCall => {
    const fn = isRecord(raw) && isRecord(raw.function) ? raw.function : {};
    const id = isRecord(raw) && typeof raw.id === 'string' && raw.id !== '' ? raw.id : fallbackId(n + 1);
    const name = typeof fn.name === 'string' ? fn.name : '';
    // Some local servers send the arguments as an object instead of JSON text.
    const args = typeof fn.arguments === 'string' ? fn.arguments : fn.arguments === undefined ? '{}' : JSON.stringify(fn.arguments);
    return { id, type: 'function', function: { name, arguments: args } };
  });
  const usage = isRecord(body.usage)
    ? { inputTokens: count(body.usage.prompt_tokens), outputTokens: count(body.usage.completion_tokens), totalTokens: count(body.usage.total_tokens) }
    : undefined;
  return {
    content: typeof message.content === 'string' ? message.content : '',
    toolCalls,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : String(choice.finish_reason),
    ...(usage ? { usage } : {}),
  };
}

/** The provider's own words from an error body (`{"error": {"message": …}}`), else the start of the body. */
export function providerErrorMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isRecord(body)) {
      const error = body.error;
      if (isRecord(error) && typeof error.message === 'string') return error.message;
      if (typeof error === 'string') return error;
      if (typeof body.message === 'string') return body.message;
    }
  } catch {
    // Not JSON: the text itself says it.
  }
  const trimmed = text.trim();
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed;
}

/**
 * How long a 429 (or 503) asks to wait, in ms: `retry-after-ms` (OpenAI, Azure), else
 * `retry-after` in seconds or as an HTTP date; undefined when neither says.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
