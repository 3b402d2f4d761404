import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_WAIT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './openAiChatRunner';

const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const OpenAiRunnerConfigSchema = z.strictObject({
  type: z.literal('openai').describe('An OpenAI-compatible Chat Completions endpoint.'),
  baseUrl: z
    .string()
    .regex(/^https?:\/\/[^\s/]+/, 'an http(s) URL of the API root, e.g. https://api.openai.com/v1')
    .describe('The API root; requests go to {baseUrl}/chat/completions.'),
  model: z.string().min(1).describe('The model to ask (a subagent profile\'s model takes its place).'),
  apiKeyEnv: z
    .string()
    .regex(ENV_NAME_PATTERN, 'the NAME of an environment variable (e.g. OPENAI_API_KEY), never the key itself')
    .optional()
    .describe('The environment variable that holds the API key; leave it out for a local server without keys.'),
  requestTimeoutS: z.number().min(1).max(3_600).default(DEFAULT_REQUEST_TIMEOUT_MS / 1000).describe('A model request that has not answered after this long fails the subagent.'),
  maxRetries: z.number().int().min(0).max(10).default(DEFAULT_MAX_RETRIES).describe('Retries of a request after HTTP 429, 5xx or a network error.'),
  maxRetryWaitS: z.number().min(0).max(3_600).default(DEFAULT_MAX_RETRY_WAIT_MS / 1000).describe('A 429 asking to wait longer fails the subagent with its retry-after instead.'),
  maxTokens: z.number().int().min(1).optional().describe('Sent as max_tokens.'),
  headers: z.record(z.string().min(1), z.string()).optional().describe('Extra request headers.'),
});
export type OpenAiRunnerConfig = z.output<typeof OpenAiRunnerConfigSchema>;

/** The runner an App binds from its configuration; none when the section is missing. */
export const SubagentRunnerConfigSchema = z.discriminatedUnion('type', [OpenAiRunnerConfigSchema]);
export type SubagentRunnerConfig = z.output<typeof SubagentRunnerConfigSchema>;

export const subagentRunnerConfig = defineConfigSection('subagentRunner', SubagentRunnerConfigSchema.optional());
