import type { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import type OpenAI from 'openai';
import {
  type ModelToolResult,
  toAnthropicToolResult,
  toOpenAiChatMessages,
  toOpenAiResponsesItem,
} from '../../src/tool/modelResultFormats';
import { toOpenAiResponsesTools, type ModelToolSpec } from '../../src/tool/modelToolFormats';

// The providers' own SDK types are the oracle for the shapes: these assignments fail the type
// check (npm test runs tsc on the tests) if a helper's output does not fit the API.
const PNG = 'iVBORw0KGgo=';
const text: ModelToolResult = { toolCallId: 'call_1', output: 'file contents' };
const failed: ModelToolResult = { toolCallId: 'call_2', output: 'Tool "Read" failed: no such file', isError: true };
const picture: ModelToolResult = {
  toolCallId: 'call_3',
  output: [
    { type: 'text', text: 'a.png (1×1)' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ],
};
const odd: ModelToolResult = {
  toolCallId: 'call_4',
  output: [
    { type: 'image', data: 'AAAA', mimeType: 'image/bmp' },
    { type: 'audio', data: 'AAAA', mimeType: 'audio/ogg' },
    { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
  ],
};

describe('OpenAI Chat Completions', () => {
  test('one tool message per result, then one user message with the images and audio', () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = toOpenAiChatMessages([text, failed, picture, odd]);
    expect(messages).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'file contents' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Tool "Read" failed: no such file' },
      { role: 'tool', tool_call_id: 'call_3', content: 'a.png (1×1)\n[1 attachment of this result follow in the next user message]' },
      {
        role: 'tool',
        tool_call_id: 'call_4',
        content:
          '[audio (audio/ogg, 3 bytes) not shown: Chat Completions takes WAV or MP3 audio only]\n[2 attachments of this result follow in the next user message]',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments of tool call call_3:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'text', text: 'Attachments of tool call call_4:' },
          { type: 'image_url', image_url: { url: 'data:image/bmp;base64,AAAA' } },
          { type: 'input_audio', input_audio: { data: 'BBBB', format: 'wav' } },
        ],
      },
    ]);
  });

  test('text-only results need no user message', () => {
    expect(toOpenAiChatMessages([text])).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: 'file contents' }]);
  });
});

describe('OpenAI Responses', () => {
  test('function_call_output: a string for text, input_text and input_image parts with images', () => {
    const items: OpenAI.Responses.ResponseInputItem[] = [text, picture, odd].map(toOpenAiResponsesItem);
    expect(items).toEqual([
      { type: 'function_call_output', call_id: 'call_1', output: 'file contents' },
      {
        type: 'function_call_output',
        call_id: 'call_3',
        output: [
          { type: 'input_text', text: 'a.png (1×1)' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
        ],
      },
      {
        type: 'function_call_output',
        call_id: 'call_4',
        output: [
          { type: 'input_image', image_url: 'data:image/bmp;base64,AAAA' },
          { type: 'input_text', text: '[audio (audio/ogg, 3 bytes) not shown: function outputs take text and images]' },
          { type: 'input_text', text: '[audio (audio/wav, 3 bytes) not shown: function outputs take text and images]' },
        ],
      },
    ]);
  });

  test('tools in the flat shape', () => {
    const spec: ModelToolSpec = { name: 'Read', description: 'Reads.', parameters: { $schema: 'x', type: 'object', properties: {} } };
    const tools: OpenAI.Responses.Tool[] = toOpenAiResponsesTools([spec]);
    expect(tools).toEqual([{ type: 'function', name: 'Read', description: 'Reads.', parameters: { type: 'object', properties: {} }, strict: false }]);
  });
});

describe('Anthropic Messages', () => {
  test('tool_result blocks: text as a string, images as base64 blocks, errors flagged', () => {
    const blocks: Messages.ToolResultBlockParam[] = [text, failed, picture, odd].map(toAnthropicToolResult);
    expect(blocks).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: 'file contents' },
      { type: 'tool_result', tool_use_id: 'call_2', content: 'Tool "Read" failed: no such file', is_error: true },
      {
        type: 'tool_result',
        tool_use_id: 'call_3',
        content: [
          { type: 'text', text: 'a.png (1×1)' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
      {
        type: 'tool_result',
        tool_use_id: 'call_4',
        content: [
          { type: 'text', text: '[image (image/bmp, 3 bytes) not shown: the Messages API takes JPEG, PNG, GIF and WebP images]' },
          { type: 'text', text: '[audio (audio/ogg, 3 bytes) not shown: the Messages API takes no audio]' },
          { type: 'text', text: '[audio (audio/wav, 3 bytes) not shown: the Messages API takes no audio]' },
        ],
      },
    ]);
  });
});
