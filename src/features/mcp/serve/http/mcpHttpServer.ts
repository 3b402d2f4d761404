import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import type { Container } from 'inversify';
import { errorMessage } from '../../../../base/errors';
import type { ScopedAgent } from '../../../../services/agentFactory/agentFactory';
import { ISessionInteractionService } from '../../../../services/interaction/interaction';
import { mcpSdk } from '../../sdk';
import { McpAgentServer, type McpAgentServerOptions } from '../mcpAgentServer';
import { McpServeInteractions } from '../mcpServeInteractions';
import {
  BodyTooLargeError,
  bearerMatches,
  DEFAULT_MAX_BODY_BYTES,
  defaultAllowedOrigins,
  isLoopbackHost,
  normalizeOrigin,
  readBody,
  sendError,
  sendJson,
} from './httpGuards';
import { McpHttpServerTransport, protocolVersionProblem } from './httpServerTransport';
import { SignedApprovals } from './signedApproval';
import { nodeBuiltins } from '../../../../base/nodeBuiltins';

export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
export const DEFAULT_MAX_AGENTS = 100;
/** The response header that names the instance that answered (load balancer diagnostics, tests). */
export const INSTANCE_HEADER = 'x-toolhost-instance';
/** Agent ids in `/mcp/agents/<agentId>`: they name the agent's folder, so they stay plain. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const STATEFUL_PATH = '/mcp';
export const STATELESS_PATH_PREFIX = '/mcp/agents/';

export interface McpHttpServerOptions {
  /** The address to bind; port 0 takes any free port (see `address`). */
  readonly host: string;
  readonly port: number;
  /**
   * false (default): one agent per MCP session at `/mcp`. true: `POST /mcp/agents/<agentId>`, any
   * instance answers, agents are rebuilt from their state on a miss and kept in an LRU.
   */
  readonly stateless?: boolean;
  /**
   * Creates an agent: per session (no id) or, stateless, the agent `id` (the host gives it a
   * data directory that every instance shares). `overrides` binds the agent's host.
   */
  readonly createAgent: (request: { readonly id?: string; readonly overrides: (container: Container) => void }) => ScopedAgent;
  /** Required bearer token; required when the host is not loopback. */
  readonly token?: string;
  /** Origins allowed besides this server's own (`http://localhost:<port>` and the like). */
  readonly allowedOrigins?: readonly string[];
  readonly maxBodyBytes?: number;
  /** Stateful: a session without requests for this long is closed and its agent disposed. */
  readonly sessionIdleMs?: number;
  /** Stateless: agents kept; the least recently used idle one is disposed past it. */
  readonly maxAgents?: number;
  /** `--yes`: approve every call. */
  readonly approveAll?: boolean;
  /** Stateless: the secret approval tokens are signed with. */
  readonly approvalSecret?: Uint8Array;
  /** Named in the `x-toolhost-instance` header and /healthz; default `<hostname>-<pid>`. */
  readonly instanceId?: string;
  readonly log?: (message: string) => void;
  /** Passed to every McpAgentServer (progress, heartbeats, sampling). */
  readonly serverOptions?: Omit<McpAgentServerOptions, 'interactions' | 'calls' | 'log'>;
}

/** A refusal to start; the message says how to fix it. */
export class McpHttpServeError extends Error {
  override readonly name = 'McpHttpServeError';
}

interface Session {
  readonly agent: ScopedAgent;
  readonly server: McpAgentServer;
  readonly transport: McpHttpServerTransport;
  active: number;
  idleTimer?: NodeJS.Timeout;
  closing?: Promise<void>;
}

interface CachedAgent {
  readonly agent: ScopedAgent;
  /** One SDK Server for every request to the agent, on a transport that keeps their ids apart. */
  readonly server: McpAgentServer;
  readonly transport: McpHttpServerTransport;
  /** Resolves once the server is connected to its transport. */
  readonly connected: Promise<void>;
  inUse: number;
}

/**
 * `toolhost mcp serve --http`: the agent's tools over MCP Streamable HTTP ({@link McpHttpServerTransport}
 * on node:http: JSON answers, SSE when a request needs it). Every request passes the same guards first: `GET /healthz` answers without them;
 * then a foreign `Origin` is refused (403: DNS rebinding), a missing or wrong bearer token (401),
 * a body over the limit (413, before it is read). Stateful sessions get their own agent and ask
 * approvals by elicitation as over stdio; stateless agents take approvals as signed tokens.
 */
export class McpHttpServer {
  readonly instanceId: string;
  private readonly http: http.Server;
  private readonly log: (message: string) => void;
  private readonly origins: Set<string>;
  private readonly maxBodyBytes: number;
  private readonly sessionIdleMs: number;
  private readonly maxAgents: number;
  private readonly sessions = new Map<string, Session>();
  private readonly agents = new Map<string, CachedAgent>();
  /** Agents being disposed (evicted); a request for one waits, then rebuilds it. */
  private readonly disposing = new Map<string, Promise<void>>();
  private closing: Promise<void> | undefined;

  private constructor(private readonly options: McpHttpServerOptions) {
    this.instanceId = options.instanceId ?? `${os.hostname()}-${process.pid}`;
    this.log = options.log ?? (() => undefined);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.sessionIdleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.maxAgents = options.maxAgents ?? DEFAULT_MAX_AGENTS;
    this.origins = new Set();
    this.http = nodeBuiltins.http().createServer((req, res) => void this.handle(req, res));
    // Streams (SSE) stay open far longer than a request; the server's own timeouts would cut them.
    this.http.requestTimeout = 0;
  }

  /** Binds and starts serving; refuses a non-loopback address without a token. */
  static async listen(options: McpHttpServerOptions): Promise<McpHttpServer> {
    if (!isLoopbackHost(options.host) && !options.token) {
      throw new McpHttpServeError(
        `refusing to serve on ${options.host}, which is not a loopback address, without a bearer token: anyone who can reach it could run the agent's tools. ` +
          'Give one with --token-file <file> or the TOOLHOST_MCP_TOKEN environment variable, or bind 127.0.0.1.',
      );
    }
    const server = new McpHttpServer(options);
    await new Promise<void>((resolve, reject) => {
      server.http.once('error', reject);
      server.http.listen(options.port, options.host, () => {
        server.http.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address;
    for (const origin of [...defaultAllowedOrigins(options.host, port), ...(options.allowedOrigins ?? [])]) {
      const normal = normalizeOrigin(origin);
      if (normal) server.origins.add(normal);
    }
    return server;
  }

  get address(): { readonly host: string; readonly port: number; readonly url: string } {
    const info = this.http.address() as AddressInfo;
    const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
    return { host: info.address, port: info.port, url: `http://${host}:${info.port}${this.options.stateless ? STATELESS_PATH_PREFIX + '<agentId>' : STATEFUL_PATH}` };
  }

  /** Stateful sessions open, and stateless agents cached (diagnostics and tests). */
  get counts(): { readonly sessions: number; readonly agents: number } {
    return { sessions: this.sessions.size, agents: this.agents.size };
  }

  /** Stops listening, closes every session and disposes every agent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
      await Promise.allSettled([...this.sessions.keys()].map((id) => this.closeSession(id, 'the server stops')));
      await Promise.allSettled([...this.agents.keys()].map((id) => this.evict(id)));
      await Promise.allSettled([...this.disposing.values()]);
      this.http.closeAllConnections();
      await stopped;
    })();
    return this.closing;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    res.setHeader(INSTANCE_HEADER, this.instanceId);
    try {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === '/healthz') {
        if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'GET /healthz', { allow: 'GET' });
        return sendJson(res, 200, { status: 'ok', instance: this.instanceId, mode: this.options.stateless ? 'stateless' : 'stateful', ...this.counts });
      }
      if (this.closing) return sendError(res, 503, 'the server is shutting down.');
      const origin = req.headers.origin;
      if (origin !== undefined && !this.origins.has(normalizeOrigin(origin) ?? '')) {
        return sendError(res, 403, `Origin ${JSON.stringify(origin)} is not allowed (DNS rebinding protection); start the server with --allow-origin ${normalizeOrigin(origin) ?? '<origin>'} to allow it.`);
      }
      if (this.options.token !== undefined && !bearerMatches(req, this.options.token)) {
        const what = req.headers.authorization === undefined ? 'is missing' : 'is wrong';
        return sendError(res, 401, `The bearer token ${what}: send "Authorization: Bearer <token>" with the token of --token-file or TOOLHOST_MCP_TOKEN.`, { 'www-authenticate': 'Bearer' });
      }
      let body: unknown;
      if (req.method === 'POST') {
        let raw: Buffer;
        try {
          raw = await readBody(req, this.maxBodyBytes);
        } catch (error) {
          if (!(error instanceof BodyTooLargeError)) throw error;
          res.once('finish', () => req.destroy());
          return sendError(res, 413, `The request body is ${error.message}; at most ${this.maxBodyBytes} bytes are accepted (--max-body).`, { connection: 'close' });
        }
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch (error) {
          return sendError(res, 400, `The request body is not JSON: ${errorMessage(error)}.`);
        }
      }
      if (this.options.stateless) await this.handleStateless(path, req, res, body);
      else await this.handleStateful(path, req, res, body);
    } catch (error) {
      this.log(`HTTP ${req.method} ${req.url} failed: ${errorMessage(error)}`);
      sendError(res, 500, `toolhost could not answer: ${errorMessage(error)}`);
    }
  }

  // --- stateful: a session per client, with its own agent ---

  private async handleStateful(path: string, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    if (path !== STATEFUL_PATH) {
      return sendError(res, 404, `Nothing at ${path}: MCP is served at ${STATEFUL_PATH}${path.startsWith(STATELESS_PATH_PREFIX) ? ' (agents by id need --stateless)' : ''}.`);
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return sendError(res, 405, `MCP at ${STATEFUL_PATH} takes POST (messages), GET (the session's stream) and DELETE (end the session), not ${req.method}.`, { allow: 'GET, POST, DELETE' });
    }
    if (sessionId === undefined) {
      if (req.method === 'POST' && isInitialize(body)) return this.openSession(req, res, body);
      return sendError(res, 400, 'No Mcp-Session-Id header: start a session with an initialize request first.');
    }
    const session = this.sessions.get(sessionId);
    if (!session || session.closing) return sendError(res, 404, `Session ${sessionId} is not open (it ended or idled out after --session-idle); initialize a new one.`);
    // A GET is the client's stream for server messages: it stays open and is not activity.
    if (req.method === 'GET') return session.transport.handleGet(req, res);
    if (req.method === 'DELETE') {
      const version = protocolVersionProblem(req);
      if (version) return sendError(res, 400, version);
      await this.closeSession(sessionId, 'the client ended it');
      res.writeHead(200).end();
      return;
    }
    this.touch(session, +1);
    try {
      session.transport.handlePost(req, res, body);
      await untilFinished(res);
    } finally {
      this.touch(session, -1);
    }
  }

  private async openSession(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    const interactions = new McpServeInteractions({ approveAll: this.options.approveAll === true });
    const agent = this.options.createAgent({ overrides: (container) => interactions.bindTo(container) });
    const id = randomUUID();
    let session: Session;
    try {
      const server = new McpAgentServer(agent, { ...this.options.serverOptions, interactions, log: this.log });
      const transport = new McpHttpServerTransport({ sessionId: id });
      await server.connect(transport);
      session = { agent, server, transport, active: 1 };
      this.sessions.set(id, session);
      void server.closed.then(() => void this.closeSession(id, 'its connection closed'));
    } catch (error) {
      await agent.dispose();
      throw error;
    }
    try {
      session.transport.handlePost(req, res, body);
      await untilFinished(res);
    } finally {
      // Refused (and answered so) or failed: nothing to keep.
      if (session.server.server.getClientVersion() === undefined) await this.closeSession(id, 'its initialize request was refused', { quiet: true });
    }
    if (session.closing) return;
    this.log(`session ${id} opened (agent ${agent.id})`);
    this.touch(session, -1);
  }

  /** Counts a request in (+1) or out (-1); a session without requests starts its idle timer. */
  private touch(session: Session, delta: 1 | -1): void {
    session.active += delta;
    if (session.idleTimer) clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    if (session.active > 0 || session.closing) return;
    const id = session.transport.sessionId!;
    session.idleTimer = setTimeout(() => void this.closeSession(id, `idle for ${this.sessionIdleMs} ms (--session-idle)`), this.sessionIdleMs);
    session.idleTimer.unref();
  }

  private closeSession(id: string, why: string, options: { readonly quiet?: boolean } = {}): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return Promise.resolve();
    session.closing ??= (async () => {
      if (session.idleTimer) clearTimeout(session.idleTimer);
      if (!options.quiet) this.log(`session ${id} closed: ${why}`);
      try {
        await session.server.close();
      } finally {
        this.sessions.delete(id);
        await session.agent.dispose();
      }
    })();
    return session.closing;
  }

  // --- stateless: any instance answers; agents by id, rebuilt from their state ---

  private async handleStateless(path: string, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    if (!path.startsWith(STATELESS_PATH_PREFIX)) {
      return sendError(res, 404, `Nothing at ${path}: stateless MCP is served at ${STATELESS_PATH_PREFIX}<agentId>, one path per agent.`);
    }
    const agentId = path.slice(STATELESS_PATH_PREFIX.length);
    if (!AGENT_ID_PATTERN.test(agentId)) {
      return sendError(res, 400, `Agent id ${JSON.stringify(agentId)} is invalid: use 1–64 letters, digits, "_" and "-", starting with a letter or a digit.`);
    }
    if (req.method !== 'POST') {
      return sendError(res, 405, `Stateless MCP takes POST only: there are no sessions to stream to (${req.method} is for stateful serving, without --stateless).`, { allow: 'POST' });
    }
    const cached = await this.cachedAgent(agentId);
    cached.inUse++;
    try {
      await cached.connected;
      cached.transport.handlePost(req, res, body);
      await untilFinished(res);
    } finally {
      cached.inUse--;
      this.trimAgents();
    }
  }

  private async cachedAgent(id: string): Promise<CachedAgent> {
    for (;;) {
      const hit = this.agents.get(id);
      if (hit) {
        // Most recently used last.
        this.agents.delete(id);
        this.agents.set(id, hit);
        return hit;
      }
      const disposing = this.disposing.get(id);
      if (!disposing) break;
      await disposing;
    }
    const approvals = new SignedApprovals({
      approveAll: this.options.approveAll === true,
      ...(this.options.approvalSecret ? { secret: this.options.approvalSecret } : {}),
    });
    const agent = this.options.createAgent({ id, overrides: (container) => container.rebind(ISessionInteractionService).toConstantValue(approvals) });
    // No sampling runner: stateless serving cannot send the client requests.
    const server = new McpAgentServer(agent, { ...this.options.serverOptions, samplingRunner: false, calls: approvals, log: this.log });
    const transport = new McpHttpServerTransport({ cancelOnDisconnect: true });
    // In the map before it is connected, so that requests arriving meanwhile find this agent.
    const entry: CachedAgent = { agent, server, transport, connected: server.connect(transport), inUse: 0 };
    this.agents.set(id, entry);
    this.trimAgents();
    return entry;
  }

  /** Disposes the least recently used agents not serving a request, down to maxAgents. */
  private trimAgents(): void {
    for (const [id, entry] of this.agents) {
      if (this.agents.size <= this.maxAgents) return;
      if (entry.inUse === 0) void this.evict(id);
    }
  }

  private evict(id: string): Promise<void> {
    const entry = this.agents.get(id);
    if (!entry) return Promise.resolve();
    this.agents.delete(id);
    const done = entry.server
      .close()
      .then(() => entry.agent.dispose())
      .catch((error: unknown) => this.log(`disposing agent ${id} failed: ${errorMessage(error)}`))
      .finally(() => this.disposing.delete(id));
    this.disposing.set(id, done);
    return done;
  }
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => mcpSdk.types().isInitializeRequest(m));
}

/** Resolves when the response has been sent or the connection dropped. */
function untilFinished(res: http.ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}
