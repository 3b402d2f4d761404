import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server on 127.0.0.1 that speaks the OpenAI Chat Completions wire format
 * (`POST /v1/chat/completions`), answering each request with the next scripted reply. It records
 * what it was sent, so tests check the requests a runner makes as a provider would see them.
 */

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  // The request body as JSON: what the provider would parse.
  readonly body: { model: string; messages: Array<Record<string, unknown>>; tools?: Array<Record<string, unknown>>; [key: string]: unknown };
}

export interface ToolCallReply {
  readonly id?: string;
  readonly name: string;
  /** Sent as JSON text unless it already is a string (which is sent as it is, valid JSON or not). */
  readonly args: unknown;
}

/** What to answer one request with. */
export type ScriptedReply =
  | { readonly type: 'completion'; readonly content?: string | null; readonly toolCalls?: readonly ToolCallReply[]; readonly finishReason?: string; readonly usage?: { prompt: number; completion: number } }
  | { readonly type: 'error'; readonly status: number; readonly message: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly type: 'raw'; readonly status: number; readonly body: string }
  /** Never answers (the connection stays open until the client gives up or the server closes). */
  | { readonly type: 'stall' };

export function completion(content: string, usage?: { prompt: number; completion: number }): ScriptedReply {
  return { type: 'completion', content, finishReason: 'stop', ...(usage ? { usage } : {}) };
}

export function toolCalls(calls: readonly ToolCallReply[], usage?: { prompt: number; completion: number }): ScriptedReply {
  return { type: 'completion', content: null, toolCalls: calls, finishReason: 'tool_calls', ...(usage ? { usage } : {}) };
}

export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`: the base URL a client takes. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Replies for the next requests, in order; a request past the script gets HTTP 500. */
  reply(...replies: ScriptedReply[]): void;
  /** Resolves when `n` requests have arrived. */
  requestsArrived(n: number): Promise<void>;
  /** Requests whose client closed the connection before an answer. */
  readonly abandoned: number;
  close(): Promise<void>;
}

function answer(reply: ScriptedReply, model: string, n: number, res: http.ServerResponse): void {
  switch (reply.type) {
    case 'completion': {
      const toolCalls = reply.toolCalls?.map((call, i) => ({
        id: call.id ?? `call_${n}_${i}`,
        type: 'function',
        function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
      }));
      const body = {
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        created: 1_764_547_200 + n,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content ?? null, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, logprobs: null, finish_reason: reply.finishReason ?? 'stop' }],
        ...(reply.usage ? { usage: { prompt_tokens: reply.usage.prompt, completion_tokens: reply.usage.completion, total_tokens: reply.usage.prompt + reply.usage.completion } } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    case 'error':
      res
        .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
        .end(JSON.stringify({ error: { message: reply.message, type: reply.status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', param: null, code: null } }));
      return;
    case 'raw':
      res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body);
      return;
    case 'stall':
      return;
  }
}

export async function startChatCompletionsServer(): Promise<ChatCompletionsServer> {
  const script: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let abandoned = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text === '' ? {} : JSON.parse(text)) as RecordedRequest['body'];
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const n = requests.length;
      res.on('close', () => {
        if (!res.writableFinished) abandoned++;
      });
      for (const waiter of waiters.filter((w) => requests.length >= w.n)) waiter.resolve();
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        answer({ type: 'error', status: 404, message: `Unknown path ${req.method} ${req.url}` }, body.model, n, res);
        return;
      }
      answer(script.shift() ?? { type: 'error', status: 500, message: 'The test server has no more scripted replies.' }, body.model, n, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get abandoned() {
      return abandoned;
    },
    reply: (...replies) => script.push(...replies),
    requestsArrived: (n) => (requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
