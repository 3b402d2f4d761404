import { type ContentPart, type ToolOutput } from './contract';

/**
 * A tool call's result as the provider APIs take it back. `ToolCallResult` (what the executor
 * returns) fits: the id of the model's call, the output (text, or content parts with images or
 * audio) and whether it failed.
 */
export interface ModelToolResult {
  readonly toolCallId: string;
  readonly output: ToolOutput;
  readonly isError?: boolean;
}

type ImagePart = Extract<ContentPart, { type: 'image' }>;
type AudioPart = Extract<ContentPart, { type: 'audio' }>;

function partsOf(output: ToolOutput): readonly ContentPart[] {
  return typeof output === 'string' ? [{ type: 'text', text: output }] : output;
}

function dataUrl(part: ImagePart): string {
  return `data:${part.mimeType};base64,${part.data}`;
}

/** A visible note for a part a provider cannot take, so the model knows something was there. */
function omitted(part: ImagePart | AudioPart, why: string): string {
  return `[${part.type} (${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes) not shown: ${why}]`;
}

// OpenAI Chat Completions ------------------------------------------------------------------------

/** A `role: "tool"` message: text only (Chat Completions tool messages carry no images). */
export interface OpenAiChatToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

export type OpenAiChatUserContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }
  | { readonly type: 'input_audio'; readonly input_audio: { readonly data: string; readonly format: 'wav' | 'mp3' } };

/** The `role: "user"` message that carries a tool result's images and audio after the tool messages. */
export interface OpenAiChatUserMessage {
  readonly role: 'user';
  readonly content: OpenAiChatUserContentPart[];
}

const CHAT_AUDIO_FORMATS: Readonly<Record<string, 'wav' | 'mp3'>> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

/**
 * Chat Completions messages for a batch's results: one `role: "tool"` message per result, in
 * order (the API wants them right after the assistant message with the calls), then, when any
 * result has images or audio, one `role: "user"` message carrying them, each introduced by the
 * call it came from. The tool message says that its media follow.
 */
export function toOpenAiChatMessages(results: readonly ModelToolResult[]): Array<OpenAiChatToolMessage | OpenAiChatUserMessage> {
  const toolMessages: OpenAiChatToolMessage[] = [];
  const media: OpenAiChatUserContentPart[] = [];
  for (const result of results) {
    const texts: string[] = [];
    const attached: OpenAiChatUserContentPart[] = [];
    for (const part of partsOf(result.output)) {
      if (part.type === 'text') texts.push(part.text);
      else if (part.type === 'image') attached.push({ type: 'image_url', image_url: { url: dataUrl(part) } });
      else {
        const format = CHAT_AUDIO_FORMATS[part.mimeType.toLowerCase()];
        if (format) attached.push({ type: 'input_audio', input_audio: { data: part.data, format } });
        else texts.push(omitted(part, 'Chat Completions takes WAV or MP3 audio only'));
      }
    }
    if (attached.length > 0) {
      texts.push(`[${attached.length} attachment${attached.length === 1 ? '' : 's'} of this result follow in the next user message]`);
      media.push({ type: 'text', text: `Attachments of tool call ${result.toolCallId}:` }, ...attached);
    }
    toolMessages.push({ role: 'tool', tool_call_id: result.toolCallId, content: texts.join('\n') });
  }
  return media.length > 0 ? [...toolMessages, { role: 'user', content: media }] : toolMessages;
}

// OpenAI Responses -------------------------------------------------------------------------------

export type OpenAiResponsesOutputPart =
  | { readonly type: 'input_text'; readonly text: string }
  | { readonly type: 'input_image'; readonly image_url: string };

/** A `function_call_output` input item. */
export interface OpenAiResponsesFunctionCallOutput {
  readonly type: 'function_call_output';
  readonly call_id: string;
  /** Text as a string; with images, a list of `input_text` and `input_image` parts. */
  readonly output: string | OpenAiResponsesOutputPart[];
}

/** The Responses API input item for a result. */
export function toOpenAiResponsesItem(result: ModelToolResult): OpenAiResponsesFunctionCallOutput {
  const parts = partsOf(result.output);
  if (parts.every((part) => part.type === 'text')) {
    return { type: 'function_call_output', call_id: result.toolCallId, output: parts.map((part) => (part as { text: string }).text).join('\n') };
  }
  const output = parts.map((part): OpenAiResponsesOutputPart => {
    if (part.type === 'text') return { type: 'input_text', text: part.text };
    if (part.type === 'image') return { type: 'input_image', image_url: dataUrl(part) };
    return { type: 'input_text', text: omitted(part, 'function outputs take text and images') };
  });
  return { type: 'function_call_output', call_id: result.toolCallId, output };
}

// Anthropic Messages -----------------------------------------------------------------------------

export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
const ANTHROPIC_IMAGE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

export type AnthropicToolResultContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly source: { readonly type: 'base64'; readonly media_type: AnthropicImageMediaType; readonly data: string } };

/** A `tool_result` content block of the user message that answers the assistant's `tool_use` blocks. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string | AnthropicToolResultContent[];
  readonly is_error?: true;
}

/** The Messages API block for a result. */
export function toAnthropicToolResult(result: ModelToolResult): AnthropicToolResultBlock {
  const parts = partsOf(result.output);
  const flag = result.isError ? { is_error: true as const } : {};
  if (parts.every((part) => part.type === 'text')) {
    return { type: 'tool_result', tool_use_id: result.toolCallId, content: parts.map((part) => (part as { text: string }).text).join('\n'), ...flag };
  }
  const content = parts.map((part): AnthropicToolResultContent => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image' && ANTHROPIC_IMAGE_TYPES.includes(part.mimeType)) {
      return { type: 'image', source: { type: 'base64', media_type: part.mimeType as AnthropicImageMediaType, data: part.data } };
    }
    return { type: 'text', text: omitted(part, part.type === 'image' ? 'the Messages API takes JPEG, PNG, GIF and WebP images' : 'the Messages API takes no audio') };
  });
  return { type: 'tool_result', tool_use_id: result.toolCallId, content, ...flag };
}
