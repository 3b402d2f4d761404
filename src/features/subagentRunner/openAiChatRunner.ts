import { deadlineSignal } from '../../base/abort';
import type { AppEnvironment } from '../../services/environment/environment';
import type { JsonValue } from '../../services/agentState/agentState';
import { toOpenAiChatMessages } from '../../tool/modelResultFormats';
import { toOpenAiTools } from '../../tool/modelToolFormats';
import type { ISubagentRunner, SubagentRunRequest, SubagentRunResult, SubagentUsage } from '../../tools/agent/contract';
import {
  type ChatCompletionAnswer,
  type ChatCompletionRequest,
  type ChatMessage,
  parseChatCompletion,
  providerErrorMessage,
  retryAfterMs,
} from './chatCompletionsWire';
import { abortableDelay } from '../../base/delay';

export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
/** The first backoff when the provider gives no retry-after; it doubles per attempt. */
const BASE_BACKOFF_MS = 500;

export interface OpenAiChatRunnerOptions {
  /** The API root the provider documents, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; requests go to `{baseUrl}/chat/completions`. */
  readonly baseUrl: string;
  /** The model to ask; a profile's `model` takes its place for that profile's children. */
  readonly model: string;
  /** The name of the environment variable that holds the API key (sent as `Authorization: Bearer …`); none for a local server without keys. */
  readonly apiKeyEnv?: string;
  /** Where `apiKeyEnv` is looked up (default process.env), read at every run. */
  readonly env?: AppEnvironment;
  /** One model request that has not answered after this long fails the run (a stalled server). */
  readonly requestTimeoutMs?: number;
  /** Retries of one request after HTTP 429, 5xx or a network error, with backoff (default 3). */
  readonly maxRetries?: number;
  /** A 429 that asks to wait longer than this is not waited out: the run fails with `retryAfterMs` (default 60 s). */
  readonly maxRetryWaitMs?: number;
  /** Sent as `max_tokens` when set. */
  readonly maxTokens?: number;
  /** Extra request headers (e.g. `OpenAI-Organization`, `HTTP-Referer`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to use (default the global one, Node's undici). */
  readonly fetch?: typeof fetch;
}

/** Why one model request did not give an answer. */
type RequestFailure = { readonly kind: 'aborted' } | { readonly kind: 'failed'; readonly error: string; readonly retryAfterMs?: number };

/** What `conversation` holds, for `resume`. */
interface ChatConversation {
  readonly messages: ChatMessage[];
}

function isConversation(value: JsonValue | undefined): value is JsonValue & ChatConversation {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as { messages?: unknown }).messages);
}

class UsageSum {
  private input: number | undefined;
  private output: number | undefined;
  private total = 0;
  private seen = false;

  add(usage: ChatCompletionAnswer['usage']): void {
    if (!usage) return;
    this.seen = true;
    if (usage.inputTokens !== undefined) this.input = (this.input ?? 0) + usage.inputTokens;
    if (usage.outputTokens !== undefined) this.output = (this.output ?? 0) + usage.outputTokens;
    this.total += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  }

  get value(): SubagentUsage | undefined {
    if (!this.seen) return undefined;
    return { ...(this.input !== undefined ? { inputTokens: this.input } : {}), ...(this.output !== undefined ? { outputTokens: this.output } : {}), totalTokens: this.total };
  }
}


function checkedOptions(options: OpenAiChatRunnerOptions): OpenAiChatRunnerOptions {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`The OpenAI-compatible runner's baseUrl "${options.baseUrl}" is not a URL; give the API root, e.g. https://api.openai.com/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`The OpenAI-compatible runner's baseUrl "${options.baseUrl}" is not an http or https URL; give the API root, e.g. http://127.0.0.1:11434/v1.`);
  if (typeof options.model !== 'string' || options.model.trim() === '') throw new TypeError('The OpenAI-compatible runner needs a model name (e.g. "gpt-4.1-mini").');
  return options;
}

/**
 * A subagent runner that talks to any OpenAI-compatible Chat Completions endpoint: it sends the
 * child's tools in the `tools` format, runs each answer's `tool_calls` through the child's
 * executor, sends the results back as `role: "tool"` messages and repeats until the model answers
 * without tool calls, the profile's turn limit, an error, or an abort. HTTP 429 is retried after
 * the provider's retry-after (bounded); past the bound the run fails with `retryAfterMs`.
 */
export class OpenAiChatSubagentRunner implements ISubagentRunner {
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiChatRunnerOptions) {
    checkedOptions(options);
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  async run(request: SubagentRunRequest): Promise<SubagentRunResult> {
    const { child, prompt, profile, signal, onEvent } = request;
    const usage = new UsageSum();
    let turns = 0;
    let lastText = '';
    const messages: ChatMessage[] = isConversation(request.resumeFrom)
      ? [...request.resumeFrom.messages, { role: 'user', content: prompt }]
      : [...(profile.instructions ? [{ role: 'system' as const, content: profile.instructions }] : []), { role: 'user', content: prompt }];
    const end = (result: Omit<SubagentRunResult, 'turns' | 'usage' | 'conversation'>): SubagentRunResult => {
      const total = usage.value;
      return { ...result, turns, ...(total ? { usage: total } : {}), conversation: { messages } as unknown as JsonValue };
    };
    const aborted = () => end({ status: 'aborted', text: lastText, error: 'The subagent was aborted.' });

    const headers = this.headers();
    if (typeof headers === 'string') return end({ status: 'failed', text: '', error: headers });

    while (turns < profile.maxTurns) {
      if (signal.aborted) return aborted();
      turns++;
      onEvent({ type: 'turn', turn: turns });
      const tools = toOpenAiTools(child.modelTools());
      const body: ChatCompletionRequest = {
        model: profile.model ?? this.options.model,
        messages,
        ...(tools.length > 0 ? { tools } : {}),
        ...(this.options.maxTokens !== undefined ? { max_tokens: this.options.maxTokens } : {}),
      };
      const answer = await this.complete(body, headers, turns, request);
      if ('kind' in answer) {
        if (answer.kind === 'aborted') return aborted();
        return end({ status: 'failed', text: lastText, error: answer.error, ...(answer.retryAfterMs !== undefined ? { retryAfterMs: answer.retryAfterMs } : {}) });
      }
      usage.add(answer.usage);
      const total = usage.value;
      if (answer.usage && total) onEvent({ type: 'usage', usage: total });
      if (answer.content !== '') {
        lastText = answer.content;
        onEvent({ type: 'text', text: answer.content });
      }
      messages.push({ role: 'assistant', content: answer.content === '' ? null : answer.content, ...(answer.toolCalls.length > 0 ? { tool_calls: answer.toolCalls } : {}) });

      // Tool calls decide, not the finish reason: some servers say "stop" next to tool calls.
      if (answer.toolCalls.length > 0 && answer.finishReason !== 'length') {
        const calls = answer.toolCalls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
        const results = await child.execute(calls, { signal });
        messages.push(...toOpenAiChatMessages(results));
        continue;
      }
      switch (answer.finishReason) {
        case 'length':
          return end({ status: 'failed', text: lastText, error: 'The model hit its output limit (finish_reason "length"); the answer is cut off. Give it a smaller task or raise max_tokens.' });
        case 'content_filter':
          return end({ status: 'failed', text: lastText, error: "The provider's content filter stopped the answer (finish_reason \"content_filter\")." });
        default:
          return end({ status: 'completed', text: answer.content });
      }
    }
    return end({ status: 'failed', text: lastText, error: `The subagent used its ${profile.maxTurns} model turns without a final answer (the profile's maxTurns); resume it to let it go on.` });
  }

  /** The request headers, or why there are none (the API key's variable is not set). */
  private headers(): Record<string, string> | string {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...this.options.headers };
    const name = this.options.apiKeyEnv;
    if (name === undefined) return headers;
    const key = (this.options.env ?? process.env)[name]?.trim();
    if (!key) return `The API key variable ${name} (subagentRunner.apiKeyEnv) is not set; export it in the environment toolhost runs in.`;
    headers.authorization = `Bearer ${key}`;
    return headers;
  }

  /** One model request, with its retries; never throws. */
  private async complete(body: ChatCompletionRequest, headers: Record<string, string>, turn: number, request: SubagentRunRequest): Promise<ChatCompletionAnswer | RequestFailure> {
    const { signal, onEvent } = request;
    const maxRetries = this.options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const maxWait = this.options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const json = JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(json, headers, timeoutMs, signal);
      if (signal.aborted) return { kind: 'aborted' };
      if (outcome.kind === 'response') {
        try {
          return parseChatCompletion(outcome.body, (n) => `call_${turn}_${n}`);
        } catch (error) {
          return { kind: 'failed', error: `${this.endpoint} did not answer with a Chat Completions response: ${(error as Error).message}.` };
        }
      }
      if (!outcome.retryable) return { kind: 'failed', error: outcome.error.endsWith('.') ? outcome.error : `${outcome.error}.` };
      const backoff = BASE_BACKOFF_MS * 2 ** attempt;
      const askedMs = outcome.retryAfterMs;
      if (askedMs !== undefined) onEvent({ type: 'rate_limited', retryAfterMs: askedMs });
      const delayMs = askedMs ?? backoff;
      if (attempt >= maxRetries || delayMs > maxWait) {
        const after = askedMs ?? (outcome.status === 429 ? backoff : undefined);
        const gaveUp = attempt >= maxRetries ? `after ${attempt + 1} attempts` : `it asks to wait ${Math.ceil(delayMs / 1000)} s, more than maxRetryWaitS`;
        return { kind: 'failed', error: `${outcome.error} (gave up: ${gaveUp}).`, ...(after !== undefined ? { retryAfterMs: after } : {}) };
      }
      await abortableDelay(delayMs, signal);
      if (signal.aborted) return { kind: 'aborted' };
    }
  }

  private async attempt(
    json: string,
    headers: Record<string, string>,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<{ kind: 'response'; body: unknown } | { kind: 'error'; error: string; retryable: boolean; status?: number; retryAfterMs?: number }> {
    const deadline = deadlineSignal(signal, timeoutMs);
    const doFetch = this.options.fetch ?? fetch;
    try {
      const response = await doFetch(this.endpoint, { method: 'POST', headers, body: json, signal: deadline.signal });
      const text = await response.text();
      if (response.ok) {
        try {
          return { kind: 'response', body: JSON.parse(text) };
        } catch {
          return { kind: 'error', error: `${this.endpoint} answered HTTP ${response.status} with a body that is not JSON: ${providerErrorMessage(text)}`, retryable: false };
        }
      }
      const message = `${this.endpoint} answered HTTP ${response.status}: ${providerErrorMessage(text) || response.statusText}`;
      if (response.status === 401 || response.status === 403) {
        const key = this.options.apiKeyEnv ? `the key in ${this.options.apiKeyEnv}` : 'no API key (set subagentRunner.apiKeyEnv)';
        return { kind: 'error', error: `${message}. The provider refused ${key}.`, retryable: false };
      }
      const retryable = response.status === 429 || response.status >= 500;
      const after = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers) : undefined;
      return { kind: 'error', error: message, retryable, status: response.status, ...(after !== undefined ? { retryAfterMs: after } : {}) };
    } catch (error) {
      if (signal.aborted) return { kind: 'error', error: 'aborted', retryable: false };
      if (deadline.timedOut) {
        return { kind: 'error', error: `${this.endpoint} did not answer within ${timeoutMs / 1000} s (subagentRunner.requestTimeoutS).`, retryable: false };
      }
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return { kind: 'error', error: `The request to ${this.endpoint} failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`, retryable: true };
    } finally {
      deadline.dispose();
    }
  }
}
