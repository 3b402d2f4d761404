import type { Event } from '../../../base/event';
import type { McpCallToolAnswer } from './callResult';
import type { McpTransportKind } from '../mcpConfig';
import { createServiceId } from '../../../di/serviceId';
import type { JsonSchema } from '../../../tool/contract';

/**
 * - `disabled`: configured with `enabled: false`, not started;
 * - `connecting`: starting (spawning, initialize, the first tools/list);
 * - `ready`: connected, its tools are known;
 * - `failed`: it could not start, or it stopped (see `error`); its tools are gone;
 * - `closed`: stopped by toolhost (App disposed, removed from config, restarting).
 */
export type McpServerState = 'disabled' | 'connecting' | 'ready' | 'failed' | 'closed';

/** A tool as an MCP server lists it, checked and bounded. Shared by every agent of the App. */
export interface McpToolDefinition {
  /** The name the server knows it by; calls use this name. */
  readonly name: string;
  readonly title?: string;
  /** The server's description (or title), at most MAX_MCP_TOOL_DESCRIPTION_CHARS characters. */
  readonly description: string;
  /** The server's input schema, with `type: "object"` and `properties` ensured. */
  readonly inputSchema: JsonSchema;
  /** The server annotates it `readOnlyHint: true` (a hint from the server, not a guarantee). */
  readonly readOnly: boolean;
  readonly annotations?: Readonly<Record<string, unknown>>;
  /**
   * Why the tool cannot be registered: its input schema cannot be compiled by Ajv, or its name has
   * no character a tool name can use. The server's other tools are not affected.
   */
  readonly unusableReason?: string;
}

export interface McpServerStatus {
  readonly name: string;
  readonly transport: McpTransportKind;
  readonly state: McpServerState;
  /** Its tools while `ready`, in the order the server lists them; empty otherwise. */
  readonly tools: readonly McpToolDefinition[];
  /** Why it is `failed`. */
  readonly error?: string;
  /** From config: its tools are registered with `disclosure: 'deferred'`. */
  readonly deferred: boolean;
  /** From config: the tool call timeout (reset by progress notifications). */
  readonly timeoutMs: number;
  /** From config: plan mode lets its tools run (`allow`) or guards them (`guard`, the default). */
  readonly planMode: 'guard' | 'allow';
  /** What the server says about itself after initialize. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  readonly instructions?: string;
}

/**
 * A warning about MCP (also printed by the CLI on stderr):
 * - `server_failed`: a server could not start;
 * - `server_stopped`: a ready server stopped (its process exited, or it became unreachable);
 * - `tools_refresh_failed`: a tools/list after `notifications/tools/list_changed` failed (the old list stays);
 * - `invalid_tool`: a listed tool cannot be used (a schema Ajv cannot compile, a name with no usable character,
 *   a definition that breaks the MCP Tool schema or passes MAX_MCP_TOOL_DEPTH / MAX_MCP_TOOL_VALUES);
 * - `tool_collision`: a tool was not registered because its qualified name is taken (Agent scope, see `collision`);
 * - `tools_truncated`: a server listed more than MAX_MCP_SERVER_TOOLS tools, or in more than
 *   MAX_MCP_TOOL_LIST_PAGES pages (an endless cursor): its first tools are used, the rest left out.
 */
export type McpWarningCode = 'server_failed' | 'server_stopped' | 'tools_refresh_failed' | 'invalid_tool' | 'tool_collision' | 'tools_truncated';

export interface McpWarning {
  readonly code: McpWarningCode;
  readonly server: string;
  /** A full sentence naming the server (and tools), for people and logs. */
  readonly message: string;
  /** The tool concerned (its original name), for `invalid_tool` and `tool_collision`. */
  readonly tool?: string;
  readonly collision?: McpToolCollision;
}

/**
 * A tool that was not registered because its qualified name was taken:
 * - `same_server`: an earlier tool of the same server has the same qualified name;
 * - `other_server`: a tool of another server holds it (servers are resolved in name order, so the
 *   server whose name sorts first wins, whatever connected first);
 * - `other_source`: a builtin or user tool holds it (`owner` says which).
 */
export interface McpToolCollision {
  readonly qualifiedName: string;
  readonly server: string;
  readonly tool: string;
  readonly collidesWith:
    | { readonly kind: 'same_server'; readonly tool: string }
    | { readonly kind: 'other_server'; readonly server: string; readonly tool: string }
    | { readonly kind: 'other_source'; readonly source: string; readonly owner: string };
}

export interface McpProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface McpCallOptions {
  /** Cancels the request (the server is sent notifications/cancelled). */
  readonly signal?: AbortSignal;
  /** Progress notifications; each one also restarts the timeout. */
  readonly onProgress?: (progress: McpProgress) => void;
  /** Overrides the server's `timeoutMs`. */
  readonly timeoutMs?: number;
}

/**
 * Why a call did not produce an MCP result: not `ready`, the timeout passed, the signal aborted,
 * the server went away while it ran, or the server answered with a JSON-RPC error.
 */
export type McpCallErrorKind = 'not_ready' | 'timeout' | 'aborted' | 'connection_lost' | 'error';

export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  constructor(
    readonly kind: McpCallErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Where stdio servers start and relative `cwd`s resolve (App scope; the CLI binds the workspace). */
export interface McpClientOptions {
  readonly workingDirectory: string;
}
export const IMcpClientOptions = createServiceId<McpClientOptions>('McpClientOptions');

/**
 * The App's MCP connections (App scope): one per configured server, shared by every agent. It
 * starts connecting when it is first resolved and never blocks: servers become `ready` one by one,
 * and `onDidChangeServer` announces each state and tool-list change. Config changes to
 * `mcpServers` add, remove and restart servers. A server that stops is not restarted behind the
 * model's back: `restart(name)` (or a config change) starts it again.
 */
export interface IMcpConnectionManager {
  /** Every configured server, sorted by name. */
  readonly servers: readonly McpServerStatus[];
  server(name: string): McpServerStatus | undefined;
  readonly onDidChangeServer: Event<McpServerStatus>;
  readonly onWarning: Event<McpWarning>;
  /** Calls a tool by its original name. Throws McpCallError; never hangs past the timeout or the signal. */
  callTool(server: string, tool: string, args: Readonly<Record<string, unknown>>, options?: McpCallOptions): Promise<McpCallToolAnswer>;
  /** Stops and starts a server again (also one that failed). */
  restart(name: string): Promise<void>;
  /** Resolves when no server is `connecting` any more (each is bounded by its startupTimeoutMs), or the signal aborts. */
  whenSettled(signal?: AbortSignal): Promise<void>;
  /** Closes every connection; stdio server processes are gone when it resolves. */
  dispose(): Promise<void>;
}
export const IMcpConnectionManager = createServiceId<IMcpConnectionManager>('McpConnectionManager');

/** Longer descriptions from servers are cut (with a marker) so one server cannot flood the context. */
export const MAX_MCP_TOOL_DESCRIPTION_CHARS = 2_048;

/** Nesting deeper than this in one listed tool's definition (its schemas) leaves the tool out: compiling or copying it recursively would exhaust the stack. */
export const MAX_MCP_TOOL_DEPTH = 128;
/** Values (objects, arrays, strings, numbers …) in one listed tool's definition; more leaves the tool out: it would cost the model's context and the compile time. */
export const MAX_MCP_TOOL_VALUES = 20_000;
/** Tools taken from one server; a server listing more (or a cursor that never ends) has the rest left out. */
export const MAX_MCP_SERVER_TOOLS = 10_000;
/** tools/list pages asked of one server for one listing. */
export const MAX_MCP_TOOL_LIST_PAGES = 1_000;
