import * as nodePath from 'node:path';
import { Ajv } from 'ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { errorMessage, isErrnoException, isErrorLike } from '../../../base/errors';
import { formatCount } from '../../../base/strings';
import { BoundedRegExps } from '../../../services/argsValidation/boundedRegExp';
import type { McpCallToolAnswer } from './callResult';
import { linkAbortSignal } from './abortLink';
import { requestSignalFetch } from './requestSignalFetch';
import { expandOrThrow } from './envExpansion';
import { type McpServerConfig, type McpTransportKind, mcpTransportKind } from '../mcpConfig';
import { StdioProcessTransport } from './stdioProcessTransport';
import { sanitizeMcpNamePart } from './toolNaming';
import { checkListedTool, RawListToolsResult } from './listedTools';
import type { JsonSchema } from '../../../tool/contract';
import {
  MAX_MCP_SERVER_TOOLS,
  MAX_MCP_TOOL_DESCRIPTION_CHARS,
  MAX_MCP_TOOL_LIST_PAGES,
  type McpCallOptions,
  McpCallError,
  type McpServerState,
  type McpServerStatus,
  type McpToolDefinition,
  type McpWarning,
} from './mcpConnections';
import { mcpSdk } from '../sdk';

/** What a connection needs from its manager. */
export interface McpConnectionHost {
  readonly workingDirectory: string;
  readonly env: NodeJS.ProcessEnv;
  readonly clientVersion: string;
  /** Compiles a schema with the executor's validator; an error text when it cannot. */
  checkSchema(schema: JsonSchema): string | undefined;
  changed(connection: McpServerConnection): void;
  warn(warning: McpWarning): void;
}

/**
 * How the SDK checks results against the server's output schemas: a schema Ajv cannot compile is
 * not held against the results, formats are not checked (as for arguments), and `pattern`s run
 * under a time limit, so a server's backtracking pattern cannot freeze the host.
 */
class LenientSchemaValidator implements jsonSchemaValidator {
  private readonly inner: jsonSchemaValidator;

  constructor(private readonly patterns: BoundedRegExps) {
    const ajv = new Ajv({ strict: false, validateFormats: false, validateSchema: false, allErrors: true, code: { regExp: patterns.engine } });
    this.inner = new (mcpSdk.ajvValidator().AjvJsonSchemaValidator)(ajv);
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: JsonSchemaValidator<T>;
    try {
      validate = this.inner.getValidator<T>(schema);
    } catch {
      return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
    }
    return (input) => this.patterns.within(() => validate(input));
  }
}

/**
 * The SDK keeps each listed tool's output-schema validator and task support for callTool; its
 * listTools fills that cache, and tools/list is read without it here (see RawListToolsResult).
 */
function cacheToolMetadata(client: Client, tools: readonly McpListedTool[]): void {
  const sdkClient = client as unknown as { cacheToolMetadata?: (tools: readonly McpListedTool[]) => void };
  if (typeof sdkClient.cacheToolMetadata !== 'function') throw new Error('the MCP SDK has no Client.cacheToolMetadata (toolhost needs it to check tool results); update toolhost');
  sdkClient.cacheToolMetadata(tools);
}

/** How long defining tools may run before it lets other work in. */
const YIELD_AFTER_MS = 15;

function boundDescription(text: string): string {
  if (text.length <= MAX_MCP_TOOL_DESCRIPTION_CHARS) return text;
  const marker = '… (description truncated)';
  return text.slice(0, MAX_MCP_TOOL_DESCRIPTION_CHARS - marker.length) + marker;
}

function normalizeInputSchema(schema: McpListedTool['inputSchema'] | undefined): JsonSchema {
  const raw: Record<string, unknown> = typeof schema === 'object' && schema !== null ? { ...schema } : {};
  raw.type = 'object';
  if (typeof raw.properties !== 'object' || raw.properties === null) raw.properties = {};
  return raw;
}

/** How a stdio server's process ended and what it last wrote on stderr (not how, when toolhost ended it). */
function describeExit(transport: Transport | undefined, endedByUs = false): string | undefined {
  if (!(transport instanceof StdioProcessTransport)) return undefined;
  const exit = endedByUs ? undefined : transport.exit;
  const how =
    transport.protocolFailure ?? (exit ? (exit.signal ? `the process was killed by ${exit.signal}` : `the process exited with code ${exit.code}`) : undefined);
  const stderr = transport.stderr;
  if (!how && !stderr) return undefined;
  return [how, stderr ? `its last stderr output:\n${stderr.replace(/^/gm, '    ')}` : undefined].filter(Boolean).join('; ');
}

const CONNECTION_ERROR_CODES = /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)$/;

/** fetch() rejects with a TypeError ("fetch failed", the cause has the code) when the server cannot be reached. */
function isConnectionFailure(error: unknown): boolean {
  if (!isErrorLike(error)) return false;
  const cause = (error as { cause?: unknown }).cause;
  if (isErrnoException(cause) && CONNECTION_ERROR_CODES.test(cause.code ?? '')) return true;
  if (isErrnoException(error) && CONNECTION_ERROR_CODES.test(error.code ?? '')) return true;
  // Not `instanceof TypeError`: fetch's errors may come from another realm.
  return error.name === 'TypeError' && /fetch failed/i.test(error.message);
}

function causeText(error: unknown): string {
  const message = errorMessage(error);
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause !== undefined && cause !== null ? `${message} (${errorMessage(cause)})` : message;
}

/** One configured server: its client, transport and tool list, through start, failure and stop. */
export class McpServerConnection {
  private stateValue: McpServerState;
  private toolList: readonly McpToolDefinition[] = [];
  private errorText: string | undefined;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private generation = 0;
  private starting: Promise<void> | undefined;
  private startAbort: AbortController | undefined;
  private refreshing = false;
  private refreshAgain = false;
  private refreshWhenReady = false;
  private serverInfo: { name: string; version: string } | undefined;
  private instructions: string | undefined;
  /** Raw JSON of each listed tool, so an unchanged tool keeps its definition object. */
  private readonly definitionCache = new Map<string, { json: string; definition: McpToolDefinition }>();
  /** The output schemas' patterns (its helper thread ends with stop()). */
  private readonly outputPatterns = new BoundedRegExps();
  readonly transportKind: McpTransportKind;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly host: McpConnectionHost,
  ) {
    this.transportKind = mcpTransportKind(config);
    this.stateValue = config.enabled ? 'connecting' : 'disabled';
  }

  get state(): McpServerState {
    return this.stateValue;
  }

  get status(): McpServerStatus {
    return {
      name: this.name,
      transport: this.transportKind,
      state: this.stateValue,
      tools: this.toolList,
      ...(this.errorText !== undefined ? { error: this.errorText } : {}),
      deferred: this.config.deferred,
      timeoutMs: this.config.timeoutMs,
      planMode: this.config.planMode ?? 'guard',
      ...(this.serverInfo ? { serverInfo: this.serverInfo } : {}),
      ...(this.instructions !== undefined ? { instructions: this.instructions } : {}),
    };
  }

  /** The pid of a stdio server's process while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioProcessTransport ? this.transport.pid : undefined;
  }

  /** Starts connecting (does not wait). */
  start(): void {
    if (!this.config.enabled) return;
    const generation = ++this.generation;
    this.refreshWhenReady = false;
    this.errorText = undefined;
    this.setState('connecting');
    this.starting = this.connect(generation).finally(() => {
      if (this.generation === generation) this.starting = undefined;
    });
  }

  private async connect(generation: number): Promise<void> {
    const abort = new AbortController();
    this.startAbort = abort;
    const limit = this.config.startupTimeoutMs;
    const timer = setTimeout(() => abort.abort(new Error(`it did not finish starting within ${limit} ms (mcpServers.${this.name}.startupTimeoutMs)`)), limit);
    let client: Client | undefined;
    let transport: Transport | undefined;
    try {
      transport = this.createTransport();
      client = new (mcpSdk.client().Client)({ name: 'toolhost', version: this.host.clientVersion }, { capabilities: {}, jsonSchemaValidator: new LenientSchemaValidator(this.outputPatterns) });
      const owned = client;
      client.onclose = () => this.onClosed(generation, owned);
      client.onerror = () => undefined; // Transport noise (a stray stdout line); failures surface as closes or call errors.
      client.setNotificationHandler(mcpSdk.types().ToolListChangedNotificationSchema, () => this.refreshTools(generation));
      this.client = client;
      this.transport = transport;
      await client.connect(transport, { signal: abort.signal, timeout: limit });
      const tools = await this.listTools(client, { signal: abort.signal, timeout: limit });
      if (generation !== this.generation) return;
      const version = client.getServerVersion();
      this.serverInfo = version ? { name: version.name, version: version.version } : undefined;
      this.instructions = client.getInstructions();
      this.toolList = tools;
      this.errorText = undefined;
      this.setState('ready');
      if (this.refreshWhenReady) {
        this.refreshWhenReady = false;
        this.refreshTools(generation);
      }
    } catch (error) {
      if (generation !== this.generation) return;
      const reason = abort.signal.aborted ? errorMessage(abort.signal.reason) : this.describeStartError(error, transport);
      this.client = undefined;
      this.transport = undefined;
      await client?.close().catch(() => undefined);
      await transport?.close().catch(() => undefined);
      if (generation !== this.generation) return;
      const details = describeExit(transport, abort.signal.aborted);
      this.fail(
        `${reason}${details && !reason.includes(details) ? `; ${details}` : ''}`,
        'server_failed',
        (text) => `MCP server "${this.name}" failed to start: ${text}. Its tools are unavailable.`,
      );
    } finally {
      clearTimeout(timer);
      if (this.startAbort === abort) this.startAbort = undefined;
    }
  }

  private createTransport(): Transport {
    const env = this.host.env;
    const where = (key: string) => `mcpServers.${this.name}.${key}`;
    if (this.transportKind === 'stdio') {
      const extraEnv: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(this.config.env ?? {})) extraEnv[key] = expandOrThrow(value, env, where(`env.${key}`));
      const cwd = this.config.cwd === undefined ? this.host.workingDirectory : nodePath.resolve(this.host.workingDirectory, expandOrThrow(this.config.cwd, env, where('cwd')));
      return new StdioProcessTransport({
        command: expandOrThrow(this.config.command!, env, where('command')),
        args: (this.config.args ?? []).map((arg, i) => expandOrThrow(arg, env, where(`args[${i}]`))),
        env: { ...env, ...extraEnv },
        cwd,
      });
    }
    const url = expandOrThrow(this.config.url!, env, where('url'));
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`${where('url')} is not a valid URL: "${url}"`);
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.config.headers ?? {})) headers[key] = expandOrThrow(value, env, where(`headers.${key}`));
    return new (mcpSdk.streamableHttp().StreamableHTTPClientTransport)(parsed, { requestInit: { headers }, fetch: requestSignalFetch() });
  }

  private describeStartError(error: unknown, transport: Transport | undefined): string {
    if (isErrnoException(error) && error.code === 'ENOENT' && transport instanceof StdioProcessTransport) {
      return `the command "${this.config.command}" was not found (ENOENT); check "command" and PATH`;
    }
    if (isErrnoException(error) && error.code === 'EACCES') return `the command "${this.config.command}" is not executable (EACCES)`;
    if (error instanceof mcpSdk.streamableHttp().StreamableHTTPError && error.code !== undefined) {
      const hint = error.code === 401 || error.code === 403 ? `; check mcpServers.${this.name}.headers` : '';
      return `the server answered HTTP ${error.code} (${error.message})${hint}`;
    }
    if (error instanceof mcpSdk.types().McpError && error.code === mcpSdk.types().ErrorCode.ConnectionClosed) {
      return transport instanceof StdioProcessTransport ? 'the process closed the connection before initialize finished' : 'the connection closed before initialize finished';
    }
    return causeText(error);
  }

  private async listTools(client: Client, options: { signal?: AbortSignal; timeout: number }): Promise<McpToolDefinition[]> {
    const listed: unknown[] = [];
    let cursor: string | undefined;
    const seenCursors = new Set<string>();
    let pages = 0;
    let truncated = false;
    do {
      const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, RawListToolsResult, options);
      pages++;
      for (const entry of page.tools) {
        if (listed.length === MAX_MCP_SERVER_TOOLS) {
          truncated = true;
          break;
        }
        listed.push(entry);
      }
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (seenCursors.has(cursor)) break; // a server that repeats a cursor would loop forever
        seenCursors.add(cursor);
        // A cursor that never repeats would too.
        if (truncated || listed.length === MAX_MCP_SERVER_TOOLS || pages === MAX_MCP_TOOL_LIST_PAGES) {
          truncated = true;
          break;
        }
      }
    } while (cursor !== undefined);
    if (truncated) {
      this.host.warn({
        code: 'tools_truncated',
        server: this.name,
        message:
          `MCP server "${this.name}" lists more tools than toolhost takes from one server ` +
          `(${formatCount(MAX_MCP_SERVER_TOOLS)}, in at most ${formatCount(MAX_MCP_TOOL_LIST_PAGES)} pages of tools/list): ` +
          `its first ${formatCount(listed.length)} are used and the rest left out.`,
      });
    }
    const definitions: McpToolDefinition[] = [];
    const cache = new Map<string, { json: string; definition: McpToolDefinition }>();
    const usable: McpListedTool[] = [];
    const unusable: { name: string; reason: string }[] = [];
    let slice = performance.now();
    for (const [index, entry] of listed.entries()) {
      // Compiling schemas costs ~0.3 ms each: a server with 1,000 tools must not hold the event loop for long.
      if (performance.now() - slice > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      const checked = checkListedTool(entry);
      if (!checked.ok) {
        // Left out entirely: its definition may be too big or too deep to keep, show or compile.
        unusable.push({ name: checked.name ?? `#${index + 1}`, reason: checked.reason });
        continue;
      }
      const tool = checked.tool;
      usable.push(tool);
      const json = JSON.stringify(tool);
      const cached = this.definitionCache.get(tool.name);
      let definition = cached && cached.json === json ? cached.definition : undefined;
      if (!definition) {
        definition = this.define(tool);
        if (definition.unusableReason !== undefined) unusable.push({ name: definition.name, reason: definition.unusableReason });
      }
      cache.set(tool.name, { json, definition });
      definitions.push(definition);
    }
    cacheToolMetadata(client, usable);
    this.definitionCache.clear();
    for (const [key, value] of cache) this.definitionCache.set(key, value);
    for (const { name, reason } of unusable) {
      this.host.warn({
        code: 'invalid_tool',
        server: this.name,
        tool: name,
        message: `MCP tool "${name}" of server "${this.name}" was not registered: ${reason}. The server's other tools work.`,
      });
    }
    return definitions;
  }

  private define(tool: McpListedTool): McpToolDefinition {
    const inputSchema = normalizeInputSchema(tool.inputSchema);
    const schemaError = this.host.checkSchema(inputSchema);
    const unusableReason =
      sanitizeMcpNamePart(tool.name) === '' ? 'its name has no letter, digit, "_" or "-" to build a tool name from' : schemaError;
    const text = tool.description?.trim() || tool.title?.trim() || tool.annotations?.title?.trim() || `The "${tool.name}" tool of MCP server "${this.name}".`;
    return {
      name: tool.name,
      ...(tool.title !== undefined ? { title: tool.title } : {}),
      description: boundDescription(text),
      inputSchema,
      readOnly: tool.annotations?.readOnlyHint === true,
      ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
      ...(unusableReason !== undefined ? { unusableReason } : {}),
    };
  }

  private refreshTools(generation: number): void {
    if (generation !== this.generation) return;
    if (this.stateValue === 'connecting') {
      // The first tools/list may already be answered: list again once ready.
      this.refreshWhenReady = true;
      return;
    }
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    void (async () => {
      try {
        do {
          this.refreshAgain = false;
          const client = this.client;
          if (generation !== this.generation || this.stateValue !== 'ready' || !client) return;
          try {
            const tools = await this.listTools(client, { timeout: this.config.timeoutMs });
            if (generation !== this.generation || this.stateValue !== 'ready') return;
            this.toolList = tools;
            this.host.changed(this);
          } catch (error) {
            if (generation !== this.generation || this.stateValue !== 'ready') return;
            this.host.warn({
              code: 'tools_refresh_failed',
              server: this.name,
              message: `MCP server "${this.name}" announced a changed tool list, but listing its tools failed: ${causeText(error)}. The previous list stays.`,
            });
          }
        } while (this.refreshAgain);
      } finally {
        this.refreshing = false;
      }
    })();
  }

  /** The client closed without toolhost asking: the process exited or the connection broke. */
  private onClosed(generation: number, client: Client): void {
    if (generation !== this.generation || this.client !== client || this.stateValue !== 'ready') return;
    const details = describeExit(this.transport) ?? 'the connection closed';
    this.client = undefined;
    this.fail(details, 'server_stopped', (text) => `MCP server "${this.name}" stopped: ${text}. Its tools were removed; it is not restarted automatically.`);
  }

  private fail(reason: string, code: 'server_failed' | 'server_stopped', sentence: (reason: string) => string): void {
    this.errorText = reason;
    this.toolList = [];
    this.setState('failed');
    this.host.warn({ code, server: this.name, message: sentence(reason) });
  }

  private setState(state: McpServerState): void {
    this.stateValue = state;
    this.host.changed(this);
  }

  async callTool(tool: string, args: Readonly<Record<string, unknown>>, options: McpCallOptions = {}): Promise<McpCallToolAnswer> {
    const client = this.client;
    if (this.stateValue !== 'ready' || !client) throw new McpCallError('not_ready', this.unavailableText());
    const signal = options.signal;
    if (signal?.aborted) throw new McpCallError('aborted', `The call to "${tool}" on MCP server "${this.name}" was aborted.`);
    const timeout = options.timeoutMs ?? this.config.timeoutMs;
    // The SDK never removes the abort listener it adds to a request's signal: it gets a signal of
    // its own per call, so a long-lived caller signal does not collect one listener per request.
    const local = linkAbortSignal(signal);
    try {
      return (await client.callTool({ name: tool, arguments: { ...args } }, undefined, {
        timeout,
        resetTimeoutOnProgress: true,
        signal: local.signal,
        ...(options.onProgress
          ? {
              onprogress: (p: { progress: number; total?: number; message?: string }) =>
                options.onProgress!({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) }),
            }
          : {}),
      })) as McpCallToolAnswer;
    } catch (error) {
      if (signal?.aborted) throw new McpCallError('aborted', `The call to "${tool}" on MCP server "${this.name}" was aborted.`);
      if (error instanceof mcpSdk.types().McpError && error.code === mcpSdk.types().ErrorCode.RequestTimeout) {
        throw new McpCallError(
          'timeout',
          `MCP tool "${tool}" on server "${this.name}" did not answer within ${timeout} ms (no progress either), so the request was cancelled. ` +
            `The limit is mcpServers.${this.name}.timeoutMs.`,
        );
      }
      if (error instanceof mcpSdk.types().McpError && error.code === mcpSdk.types().ErrorCode.ConnectionClosed) {
        const reason = this.state === 'failed' && this.errorText ? this.errorText : describeExit(this.transport) ?? 'the connection closed';
        throw new McpCallError('connection_lost', `MCP server "${this.name}" stopped while "${tool}" was running: ${reason}.`);
      }
      if (this.transportKind === 'http' && isConnectionFailure(error) && this.client === client && this.state === 'ready') {
        const cause = causeText(error);
        this.client = undefined;
        void client.close().catch(() => undefined);
        this.fail(`it could not be reached: ${cause}`, 'server_stopped', (text) => `MCP server "${this.name}" stopped: ${text}. Its tools were removed; it is not restarted automatically.`);
        throw new McpCallError('connection_lost', `MCP server "${this.name}" could not be reached to call "${tool}": ${cause}. Its tools were removed.`);
      }
      if (error instanceof mcpSdk.types().McpError) throw new McpCallError('error', `MCP server "${this.name}" answered "${tool}" with an error: ${error.message}`);
      throw new McpCallError('error', `Calling "${tool}" on MCP server "${this.name}" failed: ${causeText(error)}`);
    } finally {
      local.dispose();
    }
  }

  /** Why the server cannot take calls right now. */
  unavailableText(): string {
    switch (this.stateValue) {
      case 'connecting':
        return `MCP server "${this.name}" is still starting; its tools become available when it is ready.`;
      case 'disabled':
        return `MCP server "${this.name}" is disabled in the configuration (mcpServers.${this.name}.enabled).`;
      case 'failed':
        return `MCP server "${this.name}" is not running: ${this.errorText ?? 'it failed'}.`;
      case 'closed':
        return `MCP server "${this.name}" has been shut down.`;
      default:
        return `MCP server "${this.name}" is not connected.`;
    }
  }

  /** Resolves once starting has finished (ready or failed). */
  async settled(): Promise<void> {
    await this.starting;
  }

  /** Closes the connection; a stdio server's process is gone when it resolves. */
  async stop(): Promise<void> {
    this.generation++;
    this.startAbort?.abort(new Error('the server is being shut down'));
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    const wasActive = this.stateValue !== 'disabled';
    this.toolList = [];
    if (wasActive) this.setState('closed');
    if (transport instanceof mcpSdk.streamableHttp().StreamableHTTPClientTransport) {
      // Ends the server's session (HTTP DELETE); bounded, the server may be gone.
      await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    }
    await client?.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
    await this.starting?.catch(() => undefined);
    await this.outputPatterns.close();
  }
}
