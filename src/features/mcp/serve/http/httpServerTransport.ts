import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../../base/errors';
import { mcpSdk } from '../../sdk';
import { sendError } from './httpGuards';

export const MCP_SESSION_ID_HEADER = 'mcp-session-id';
export const MCP_PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
/** The most messages one POST may carry (JSON-RPC batches of protocol 2025-03-26), as the SDK's transport. */
export const MAX_BATCH_MESSAGES = 100;
/** A comment on an open SSE stream this often, so proxies do not cut a quiet one (the SDK's interval). */
export const DEFAULT_SSE_KEEP_ALIVE_MS = 15_000;

export interface McpHttpServerTransportOptions {
  /**
   * Stateful: the session's id, sent in `Mcp-Session-Id` on every answer; the client may open a
   * GET stream for messages unrelated to its requests. Undefined: stateless (no GET stream).
   */
  readonly sessionId?: string;
  /**
   * Stateless: a client that disconnects before its answer cancels the request (no later request
   * could reach this instance to cancel it). Stateful clients cancel with notifications/cancelled,
   * and a disconnect is not a cancellation (the spec's "SHOULD NOT").
   */
  readonly cancelOnDisconnect?: boolean;
  readonly keepAliveMs?: number;
}

/** One POST with requests in it: answered with JSON, or as an SSE stream once something must go out first. */
interface Exchange {
  readonly res: ServerResponse;
  /** Transport ids of the POST's requests, in order, and their answers once sent. */
  readonly answers: Map<number, JSONRPCMessage | undefined>;
  stream?: SseStream;
  gone: boolean;
}

interface PendingRequest {
  readonly exchange: Exchange;
  readonly clientId: RequestId;
}

interface SseStream {
  readonly res: ServerResponse;
  readonly keepAlive: NodeJS.Timeout | undefined;
}

/**
 * The MCP Streamable HTTP transport of a server on node:http, instead of the SDK's
 * StreamableHTTPServerTransport, which converts every request and response between Node and Web
 * streams (@hono/node-server) and answers every request as an SSE stream unless it answers all as
 * JSON. Here a POST's requests are answered with one `application/json` body when nothing else has
 * to go out first, and the answer becomes an SSE stream (`text/event-stream`) at the first message
 * that relates to one of them before its response: progress, a log message, an elicitation. One
 * transport (and one SDK Server) serves every request of a session or of a stateless agent, so
 * request ids are renamed to the transport's own on the way in and back on the way out: clients
 * of one stateless agent may use the same ids at the same time.
 */
export class McpHttpServerTransport implements Transport {
  readonly sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly cancelOnDisconnect: boolean;
  private readonly keepAliveMs: number;
  private readonly pending = new Map<number, PendingRequest>();
  /** The transport id of a request in progress by the client's id (for notifications/cancelled). */
  private readonly byClientId = new Map<RequestId, number>();
  private readonly exchanges = new Set<Exchange>();
  private standalone: SseStream | undefined;
  private nextId = 1;
  private initialized = false;
  private started = false;
  private closed = false;

  constructor(options: McpHttpServerTransportOptions = {}) {
    this.sessionId = options.sessionId;
    this.cancelOnDisconnect = options.cancelOnDisconnect === true;
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_SSE_KEEP_ALIVE_MS;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('McpHttpServerTransport is already started.');
    this.started = true;
  }

  /**
   * Answers a POST whose body has been read and parsed: 406 unless it accepts JSON and SSE, 415
   * unless it is JSON, 400 for what is not JSON-RPC or a protocol version not supported; 202 for
   * notifications and responses only; else the answers to its requests.
   */
  handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.refuse(res, 406, `Not Acceptable: an MCP POST must accept both application/json and text/event-stream (send "Accept: application/json, text/event-stream"); it sent ${JSON.stringify(accept)}.`);
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/json') {
      return this.refuse(res, 415, `Unsupported Media Type: an MCP POST body must be "Content-Type: application/json", not ${JSON.stringify(req.headers['content-type'] ?? '')}.`);
    }
    const parsed = parseMessages(body);
    if (typeof parsed === 'string') return this.refuse(res, 400, parsed);
    const types = mcpSdk.types();
    const initialize = parsed.filter((m) => types.isInitializeRequest(m));
    if (initialize.length > 0) {
      if (parsed.length > 1) return this.refuse(res, 400, 'Invalid Request: an initialize request must come alone, not in a batch.');
      if (this.sessionId !== undefined && this.initialized) {
        return this.refuse(res, 400, `Invalid Request: session ${this.sessionId} is already initialized; initialize a new session without the Mcp-Session-Id header.`);
      }
      this.initialized = true;
    } else {
      const version = protocolVersionProblem(req);
      if (version) return this.refuse(res, 400, version);
    }
    if (this.closed) return this.refuse(res, 404, 'The MCP session has ended; initialize a new one.');

    const requests = parsed.filter((m) => types.isJSONRPCRequest(m));
    if (requests.length === 0) {
      res.writeHead(202, this.headers());
      res.end();
      for (const message of parsed) this.receive(message);
      return;
    }
    const exchange: Exchange = { res, answers: new Map(), gone: false };
    this.exchanges.add(exchange);
    res.once('close', () => this.onExchangeClosed(exchange));
    for (const message of parsed) {
      if (!types.isJSONRPCRequest(message)) {
        this.receive(message);
        continue;
      }
      const id = this.nextId++;
      exchange.answers.set(id, undefined);
      this.pending.set(id, { exchange, clientId: message.id });
      this.byClientId.set(message.id, id);
      this.onmessage?.({ ...message, id });
    }
  }

  /** Opens the session's stream for messages unrelated to a request (GET; stateful only). */
  handleGet(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      return this.refuse(res, 406, 'Not Acceptable: the GET stream of an MCP session is text/event-stream; send "Accept: text/event-stream".');
    }
    const version = protocolVersionProblem(req);
    if (version) return this.refuse(res, 400, version);
    if (this.sessionId === undefined) return this.refuse(res, 405, 'This transport has no sessions to stream to: POST only.', { allow: 'POST' });
    if (this.closed) return this.refuse(res, 404, 'The MCP session has ended; initialize a new one.');
    if (this.standalone) return this.refuse(res, 409, 'Conflict: this session already has its GET stream open; one at a time.');
    const stream = this.openStream(res);
    this.standalone = stream;
    res.once('close', () => {
      clearInterval(stream.keepAlive);
      if (this.standalone === stream) this.standalone = undefined;
    });
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const types = mcpSdk.types();
    if (types.isJSONRPCResultResponse(message) || types.isJSONRPCErrorResponse(message)) {
      this.answer(message);
      return Promise.resolve();
    }
    const related = typeof options?.relatedRequestId === 'number' ? this.pending.get(options.relatedRequestId) : undefined;
    if (related && !related.exchange.gone) {
      const exchange = related.exchange;
      exchange.stream ??= this.openStream(exchange.res);
      writeEvent(exchange.stream.res, message);
      return Promise.resolve();
    }
    if (this.standalone) {
      writeEvent(this.standalone.res, message);
      return Promise.resolve();
    }
    // A notification nobody listens for is dropped (the spec lets a client not listen); a request
    // fails now rather than wait for its timeout.
    if (types.isJSONRPCRequest(message)) {
      return Promise.reject(
        new Error(
          this.sessionId === undefined
            ? `cannot send ${message.method} to the client: stateless serving has no stream for requests from the server.`
            : `cannot send ${message.method} to the client: its request has been answered and it has no GET stream open.`,
        ),
      );
    }
    return Promise.resolve();
  }

  /** Ends every stream and answer still open (the session ends or the server stops). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const exchange of [...this.exchanges]) {
      if (exchange.stream) exchange.res.end();
      else sendError(exchange.res, 503, 'The MCP session ended before this request was answered.', this.headers());
      this.forget(exchange);
    }
    this.pending.clear();
    this.byClientId.clear();
    if (this.standalone) {
      clearInterval(this.standalone.keepAlive);
      this.standalone.res.end();
      this.standalone = undefined;
    }
    this.onclose?.();
  }

  private receive(message: JSONRPCMessage): void {
    const types = mcpSdk.types();
    if (types.isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const params = message.params as { requestId?: RequestId } | undefined;
      const id = params?.requestId === undefined ? undefined : this.byClientId.get(params.requestId);
      if (id !== undefined) {
        this.onmessage?.({ ...message, params: { ...params, requestId: id } });
        return;
      }
    }
    this.onmessage?.(message);
  }

  private answer(message: JSONRPCMessage & { id?: RequestId }): void {
    const id = message.id;
    const request = typeof id === 'number' ? this.pending.get(id) : undefined;
    // An answer to a request whose client went away, or that the session's end already answered.
    if (!request || typeof id !== 'number') return;
    this.pending.delete(id);
    if (this.byClientId.get(request.clientId) === id) this.byClientId.delete(request.clientId);
    const exchange = request.exchange;
    const own = { ...message, id: request.clientId } as JSONRPCMessage;
    if (exchange.gone) return;
    if (exchange.stream) writeEvent(exchange.res, own);
    exchange.answers.set(id, own);
    if ([...exchange.answers.values()].some((a) => a === undefined)) return;
    this.forget(exchange);
    if (exchange.stream) {
      clearInterval(exchange.stream.keepAlive);
      exchange.res.end();
      return;
    }
    const answers = [...exchange.answers.values()];
    const text = JSON.stringify(answers.length === 1 ? answers[0] : answers);
    exchange.res.writeHead(200, { ...this.headers(), 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    exchange.res.end(text);
  }

  private onExchangeClosed(exchange: Exchange): void {
    if (exchange.stream) clearInterval(exchange.stream.keepAlive);
    if (!this.exchanges.has(exchange)) return; // answered
    exchange.gone = true;
    this.forget(exchange);
    for (const [id, answer] of exchange.answers) {
      if (answer !== undefined) continue;
      const request = this.pending.get(id);
      this.pending.delete(id);
      if (request && this.byClientId.get(request.clientId) === id) this.byClientId.delete(request.clientId);
      if (this.cancelOnDisconnect) {
        this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the client disconnected before the answer' } });
      }
    }
  }

  private forget(exchange: Exchange): void {
    this.exchanges.delete(exchange);
  }

  private openStream(res: ServerResponse): SseStream {
    res.writeHead(200, { ...this.headers(), 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    let keepAlive: NodeJS.Timeout | undefined;
    if (this.keepAliveMs > 0) {
      keepAlive = setInterval(() => {
        if (!res.writableEnded) res.write(': keepalive\n\n');
      }, this.keepAliveMs);
      keepAlive.unref();
    }
    return { res, keepAlive };
  }

  private headers(): Record<string, string> {
    return this.sessionId === undefined ? {} : { [MCP_SESSION_ID_HEADER]: this.sessionId };
  }

  private refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    this.onerror?.(new Error(`HTTP ${status}: ${message}`));
    sendError(res, status, message, { ...this.headers(), ...headers });
  }
}

function writeEvent(res: ServerResponse, message: JSONRPCMessage): void {
  if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The messages of a POST body, or why it is not JSON-RPC. */
function parseMessages(body: unknown): JSONRPCMessage[] | string {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) return 'Invalid Request: the body is an empty JSON array; send one JSON-RPC message.';
  if (list.length > MAX_BATCH_MESSAGES) return `Invalid Request: a batch of ${list.length} messages is over the limit of ${MAX_BATCH_MESSAGES}; send one JSON-RPC message per POST.`;
  const schema = mcpSdk.types().JSONRPCMessageSchema;
  const messages: JSONRPCMessage[] = [];
  for (const item of list) {
    const result = schema.safeParse(item);
    if (!result.success) {
      return `Invalid Request: ${JSON.stringify(item)?.slice(0, 200) ?? String(item)} is not a JSON-RPC 2.0 request, notification or response (${errorMessage(result.error).slice(0, 300)}).`;
    }
    messages.push(result.data);
  }
  return messages;
}

/** Why the request's `MCP-Protocol-Version` header is refused (400), or undefined when it is absent or supported. */
export function protocolVersionProblem(req: IncomingMessage): string | undefined {
  const header = req.headers[MCP_PROTOCOL_VERSION_HEADER];
  if (header === undefined) return undefined;
  const version = Array.isArray(header) ? header[0]! : header;
  const supported = mcpSdk.types().SUPPORTED_PROTOCOL_VERSIONS;
  if (supported.includes(version)) return undefined;
  return `Bad Request: MCP-Protocol-Version ${JSON.stringify(version)} is not supported; this server speaks ${supported.join(', ')}.`;
}
