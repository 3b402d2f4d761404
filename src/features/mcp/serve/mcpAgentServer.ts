import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';
import { packageVersion } from '../../../base/packageInfo';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitResult,
  ListToolsResult,
  ProgressToken,
  RequestId,
  ServerNotification,
  Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpSdk } from '../sdk';
import { errorMessage } from '../../../base/errors';
import { DisposableStore } from '../../../base/lifecycle';
import type { ServiceAccessor } from '../../../di/toolContribution';
import { IAgentToolExecutorService, type ToolCallInfo } from '../../../services/executor/toolExecutor';
import { IAgentToolRegistryService } from '../../../services/toolRegistry/toolRegistry';
import { IConfigService } from '../../../services/config/config';
import { IAgentToolSelectService } from '../../../services/toolSelect/toolSelect';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import type { ToolUpdate } from '../../../tool/contract';
import { AccessGate } from './accessGate';
import type { McpProgress } from '../client/mcpConnections';
import { MCP_META_OUTCOME, ProgressMapper, toCallToolResult, toMcpTool } from './mcpMapping';
import type { McpElicitor, McpServeInteractions } from './mcpServeInteractions';
import { McpSamplingSubagentRunner, type McpSamplingRunnerOptions, clientSamplesWithTools } from './mcpSamplingRunner';
import { ISubagentRunnerService } from '../../../tools/agent/contract';


export const DEFAULT_LIST_CHANGED_DELAY_MS = 50;
export const DEFAULT_PROGRESS_INTERVAL_MS = 100;
/** A person answers an approval; the SDK's default of 60 s for a request is too short for that. */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 30 * 60 * 1000;
export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface McpAgentServerOptions {
  /**
   * The agent's host, when it was created with this object bound as its
   * `ISessionInteractionService`: the server then asks the client for approvals (elicitation).
   */
  readonly interactions?: McpServeInteractions;
  /** Server name and version sent to the client; default `toolhost` and the package version. */
  readonly name?: string;
  readonly version?: string;
  /** Diagnostics (the CLI writes them to stderr; stdout belongs to the protocol). */
  readonly log?: (message: string) => void;
  /** Changes of the tool list within this time are announced once. */
  readonly listChangedDelayMs?: number;
  /** At most one progress notification per call per interval; newer updates replace waiting ones. */
  readonly progressIntervalMs?: number;
  readonly elicitationTimeoutMs?: number;
  /**
   * A call with a progress token that reported nothing for this long gets a "still running"
   * progress notification, so clients that reset their request timeout on progress keep waiting
   * for a long call. Default 15 s; 0 turns it off.
   */
  readonly heartbeatMs?: number;
  /**
   * When the client declares sampling with tools and the App has no subagent runner, subagents
   * run on the client's model through `sampling/createMessage` while the client is connected.
   * Default on; `false` leaves the runner alone.
   */
  readonly samplingRunner?: boolean | McpSamplingRunnerOptions;
  /** Names each `tools/call` for the executor and may refuse it or add to its result; default: ids `mcp_<n>`. */
  readonly calls?: McpCallPlanner;
}

/** What a {@link McpCallPlanner} makes of one `tools/call`. */
export type McpCallPlan =
  | {
      /** The executor's id for the call (unique among the agent's calls in progress). */
      readonly toolCallId: string;
      /** Adjusts the result before it is sent, once the call has finished. */
      readonly finish?: (result: CallToolResult) => CallToolResult;
    }
  /** Answer this instead of running the call. */
  | { readonly refuse: CallToolResult };

/** Decides each `tools/call`'s executor id from the request (stateless HTTP: signed approvals in `_meta`). */
export interface McpCallPlanner {
  plan(call: { readonly name: string; readonly arguments: Readonly<Record<string, unknown>>; readonly meta: Readonly<Record<string, unknown>> | undefined }): McpCallPlan;
}

interface CallState {
  readonly requestId: RequestId;
  readonly progressToken?: ProgressToken;
  readonly send: (notification: ServerNotification) => Promise<void>;
  readonly mapper: ProgressMapper;
  readonly name: string;
  readonly startedAt: number;
  lastSentAt: number;
  pending?: McpProgress;
  timer?: NodeJS.Timeout;
  heartbeat?: NodeJS.Timeout;
  release?: () => void;
}

/** tools/call as this server checks it: the SDK's shape, with `name` and `arguments` left to the handler. */
const LenientCallToolRequestSchema = z.looseObject({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.unknown().optional(), arguments: z.unknown().optional() }),
});
type LenientCallToolRequest = z.infer<typeof LenientCallToolRequestSchema>;

/**
 * The SDK's Ajv validator, created on first use: the Server checks only elicitation answers with
 * it, and building an Ajv costs about 1 ms, which a server made per stateless HTTP request would
 * otherwise pay every time.
 */
class LazySchemaValidator implements jsonSchemaValidator {
  private inner: jsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.inner ??= new (mcpSdk.ajvValidator().AjvJsonSchemaValidator)();
    return this.inner.getValidator<T>(schema);
  }
}

/**
 * A JSON-RPC "invalid params" error (-32602) with a message for the client. A plain Error with a
 * code, since the SDK sends a thrown error's `code` and `message` as they are (McpError would add
 * an "MCP error" prefix that the client adds again).
 */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: -32602 });
}

/**
 * Serves one agent's active tools over MCP with the SDK's low-level `Server` (the tool list is
 * dynamic and the schemas are already JSON Schema). Each `tools/call` is its own executor batch:
 * policy, validation, approval, scheduling and the output budget apply as to any call. Requests
 * run concurrently; calls of different requests whose accesses conflict are ordered by an
 * {@link AccessGate} (the executor orders calls within one batch only). Cancellation aborts the
 * call, tool progress becomes `notifications/progress`, and changes of the active set (or of
 * descriptions, after a config change) are announced with `notifications/tools/list_changed`.
 */
export class McpAgentServer {
  readonly server: Server;
  private readonly gate = new AccessGate();
  private readonly planner: McpCallPlanner | undefined;
  private readonly calls = new Map<string, CallState>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly disposables = new DisposableStore();
  private readonly log: (message: string) => void;
  private readonly listChangedDelayMs: number;
  private readonly progressIntervalMs: number;
  private readonly elicitationTimeoutMs: number;
  private readonly heartbeatMs: number;
  private readonly unservable = new Set<string>();
  private nextCall = 1;
  /** The tool list the client has seen (listed or been told about); undefined before its first list. */
  private known: string | undefined;
  private knownNames: readonly string[] = [];
  private listTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private closedResolve!: () => void;
  /** Resolves when the connection has closed (the client went away, or `close()`). */
  readonly closed: Promise<void> = new Promise((resolve) => (this.closedResolve = resolve));

  constructor(
    /** The agent whose tools are served: an `Agent`, or anything that resolves its services. */
    private readonly agent: ServiceAccessor,
    options: McpAgentServerOptions = {},
  ) {
    this.log = options.log ?? (() => undefined);
    this.listChangedDelayMs = options.listChangedDelayMs ?? DEFAULT_LIST_CHANGED_DELAY_MS;
    this.progressIntervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
    this.elicitationTimeoutMs = options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.planner = options.calls;
    const cwd = agent.get(IAgentWorkspaceService).cwd;
    this.server = new (mcpSdk.server().Server)(
      { name: options.name ?? 'toolhost', version: options.version ?? packageVersion() },
      {
        // logging: NotifyUser's notifications go to the client as log messages.
        capabilities: { tools: { listChanged: true }, logging: {} },
        jsonSchemaValidator: new LazySchemaValidator(),
        instructions:
          `The tools of an AI coding agent (toolhost), working in ${cwd}. Relative paths resolve against that ` +
          'directory; paths outside it must be absolute. Calls that change files or run commands may need approval.',
      },
    );
    this.server.onerror = (error) => this.log(`MCP protocol error: ${errorMessage(error)}`);
    this.server.onclose = () => {
      this.clearListTimer();
      this.closedResolve();
    };
    this.server.oninitialized = () => {
      // SDK 1.x peers ignore notifications/cancelled for request id 0 (typescript-sdk#2283), and
      // the first request a server sends gets id 0. A ping takes that id, so that cancelling a
      // tools/call also cancels the approval elicitation it is waiting for.
      this.server.ping().catch(() => undefined);
      // The client's capabilities are known now: AskUserQuestion and NotifyUser may become active.
      options.interactions?.clientChanged();
      const sampling = this.bindSamplingRunner(options.samplingRunner ?? true);
      const client = this.server.getClientVersion();
      const asks = options.interactions?.approvesAll
        ? 'approves every call (--yes)'
        : this.canElicit()
          ? 'asks the client for approvals'
          : 'cannot ask the client for approvals (no elicitation)';
      this.log(`serving ${this.listTools().length} tools from ${cwd} to ${client ? `${client.name} ${client.version}` : 'a client'}; it ${asks}${sampling ? '; subagents run on its model (sampling)' : ''}`);
    };
    this.server.setRequestHandler(mcpSdk.types().ListToolsRequestSchema, (request): ListToolsResult => {
      // The whole list is one page: this server issues no cursors, so any cursor is invalid (the spec's -32602).
      if (request.params?.cursor !== undefined) {
        throw invalidParams('Invalid cursor: this server returns its whole tool list in one page and issues no cursors; list again without one.');
      }
      const tools = this.listTools();
      this.known = fingerprint(tools);
      this.knownNames = tools.map((t) => t.name);
      return { tools };
    });
    // tools/call is checked here, so a wrong `name` or `arguments` gets -32602 and a sentence (the
    // SDK's schema would answer -32603 with a raw schema dump). It is registered on the protocol
    // layer, below the Server's tools/call wrapper, which only adds task-augmented calls (not offered).
    const registerOnProtocol = Object.getPrototypeOf(Object.getPrototypeOf(this.server)).setRequestHandler as Server['setRequestHandler'];
    registerOnProtocol.call(this.server, LenientCallToolRequestSchema as never, (request: LenientCallToolRequest, extra: Parameters<Parameters<Server['setRequestHandler']>[1]>[1]) => {
      const { name, arguments: args } = request.params;
      if (typeof name !== 'string' || name === '') throw invalidParams('tools/call needs "name": the name of a tool, as tools/list gives it.');
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        const got = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
        throw invalidParams(`tools/call "arguments" must be an object of the tool's parameters (e.g. {"path": "README.md"}), not ${got}.`);
      }
      const work = this.call(name, args as Record<string, unknown> | undefined, {
        meta: request.params._meta as Record<string, unknown> | undefined,
        signal: extra.signal,
        requestId: extra.requestId,
        progressToken: extra._meta?.progressToken,
        send: extra.sendNotification,
      });
      this.inflight.add(work);
      const done = () => void this.inflight.delete(work);
      work.then(done, done);
      return work;
    });

    const executor = agent.get(IAgentToolExecutorService);
    this.disposables.add(
      executor.onWillExecuteTool(
        (ctx) => {
          const state = this.calls.get(ctx.toolCallId);
          if (!state) return; // not a call of this server
          const hold = (accesses: ToolCallInfo['accesses']) =>
            this.gate.acquire(accesses, ctx.signal).then((release) => {
              if (release) state.release = release;
            });
          ctx.waitUntil(hold(ctx.accesses));
          // Resolved again to other resources right before it runs: it holds those instead (released
          // first, so two calls that swapped resources cannot wait for each other).
          ctx.onAccessesChanged((accesses) => {
            state.release?.();
            state.release = undefined;
            return hold(accesses);
          });
        },
        { name: 'mcp-serve: order across requests' },
      ),
    );
    this.disposables.add(
      executor.onToolCallFinished((event) => {
        const state = this.calls.get(event.toolCallId);
        if (state?.release) {
          state.release();
          state.release = undefined;
        }
      }),
    );
    this.disposables.add(executor.onToolProgress((event) => this.progress(event.toolCallId, event.update)));
    this.disposables.add(agent.get(IAgentToolRegistryService).onDidChange(() => this.scheduleListCheck()));
    // Policy changes and tools loaded by select_tools.
    this.disposables.add(agent.get(IAgentToolSelectService).onDidChangeModelTools(() => this.scheduleListCheck()));
    this.disposables.add(agent.get(IConfigService).onDidChange(() => this.scheduleListCheck()));
    options.interactions?.setElicitor(this.elicitor());
    this.disposables.add({ dispose: () => options.interactions?.setElicitor(undefined) });
  }

  /** Binds the sampling runner for as long as this connection lasts; true when it did. */
  private bindSamplingRunner(setting: boolean | McpSamplingRunnerOptions): boolean {
    if (setting === false || !clientSamplesWithTools(this.server)) return false;
    let runners: ISubagentRunnerService;
    try {
      runners = this.agent.get(ISubagentRunnerService);
    } catch {
      return false; // an App without the agent feature has no subagents to run
    }
    if (runners.current !== undefined) return false;
    const binding = runners.bind(new McpSamplingSubagentRunner(this.server, setting === true ? {} : setting));
    this.disposables.add(binding);
    const previous = this.server.onclose;
    this.server.onclose = () => {
      binding.dispose();
      previous?.();
    };
    return true;
  }

  /** Starts serving on a transport (stdio in the CLI; any SDK transport works). */
  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
  }

  /** Calls in progress (diagnostics and tests). */
  get activeCalls(): number {
    return this.calls.size;
  }

  /** Calls that wait for a conflicting call of another request to finish (diagnostics and tests). */
  get callsWaitingForOrder(): number {
    return this.gate.state.waiting;
  }

  /**
   * Closes the connection: running calls are aborted (the SDK aborts every request's signal) and
   * awaited, so nothing of this server runs afterwards. The agent itself is left to its owner.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.clearListTimer();
      try {
        await this.server.close();
      } catch (error) {
        this.log(`closing the MCP connection failed: ${errorMessage(error)}`);
      }
      this.closedResolve();
      await Promise.allSettled([...this.inflight]);
      for (const state of this.calls.values()) this.clearProgress(state);
      this.disposables.dispose();
    })();
    return this.closing;
  }

  /**
   * The tools the model would be given (`agent.modelTools()`: active, and deferred ones only once
   * loaded when deferred loading is on) as MCP tools, sorted by name, with their annotations.
   */
  listTools(): McpTool[] {
    const tools: McpTool[] = [];
    for (const info of this.agent.get(IAgentToolSelectService).modelTools()) {
      let tool: McpTool | undefined;
      try {
        const annotations = this.agent.get(IAgentToolRegistryService).get(info.name)?.tool.annotations;
        tool = toMcpTool({ name: info.name, description: info.description, parameters: info.parameters, ...(annotations ? { annotations } : {}) });
      } catch (error) {
        this.warnUnservable(info.name, errorMessage(error));
        continue;
      }
      if (tool) tools.push(tool);
      else this.warnUnservable(info.name, 'its input schema is not an object schema');
    }
    return tools;
  }

  private warnUnservable(name: string, why: string): void {
    if (this.unservable.has(name)) return;
    this.unservable.add(name);
    this.log(`tool "${name}" is not served: ${why}`);
  }

  private async call(
    name: string,
    args: Record<string, unknown> | undefined,
    request: { meta: Record<string, unknown> | undefined; signal: AbortSignal; requestId: RequestId; progressToken?: ProgressToken; send: CallState['send'] },
  ): Promise<CallToolResult> {
    const plan = this.planner?.plan({ name, arguments: args ?? {}, meta: request.meta });
    if (plan && 'refuse' in plan) return plan.refuse;
    const finish = plan?.finish ?? ((result: CallToolResult) => result);
    const id = plan?.toolCallId ?? `mcp_${this.nextCall++}`;
    const state: CallState = {
      requestId: request.requestId,
      progressToken: request.progressToken,
      send: request.send,
      mapper: new ProgressMapper(),
      name,
      startedAt: Date.now(),
      lastSentAt: 0,
    };
    this.calls.set(id, state);
    if (state.progressToken !== undefined && this.heartbeatMs > 0) {
      state.heartbeat = setInterval(() => this.beat(state), Math.max(1, Math.floor(this.heartbeatMs / 2)));
    }
    try {
      const [result] = await this.agent.get(IAgentToolExecutorService).execute([{ id, name, arguments: args ?? {} }], { signal: request.signal });
      if (!result) throw new Error('the executor returned no result');
      return finish(toCallToolResult(result));
    } catch (error) {
      // The executor never throws by design; this covers a disposed agent during shutdown.
      this.log(`tools/call ${name} failed: ${errorMessage(error)}`);
      return finish({
        content: [{ type: 'text', text: `toolhost could not run tool "${name}": ${errorMessage(error)}` }],
        isError: true,
        _meta: { [MCP_META_OUTCOME]: 'executed' },
      });
    } finally {
      state.release?.();
      this.clearProgress(state);
      this.calls.delete(id);
    }
  }

  private progress(toolCallId: string, update: ToolUpdate): void {
    const state = this.calls.get(toolCallId);
    if (!state || state.progressToken === undefined) return;
    const next = state.mapper.next(update);
    if (!next) return;
    const now = Date.now();
    const wait = state.lastSentAt + this.progressIntervalMs - now;
    if (wait <= 0 && !state.timer) {
      this.sendProgress(state, next, now);
      return;
    }
    state.pending = next;
    state.timer ??= setTimeout(() => {
      state.timer = undefined;
      const pending = state.pending;
      state.pending = undefined;
      if (pending) this.sendProgress(state, pending, Date.now());
    }, Math.max(0, wait));
  }

  private sendProgress(state: CallState, progress: McpProgress, now: number): void {
    state.lastSentAt = now;
    state
      .send({ method: 'notifications/progress', params: { progressToken: state.progressToken!, ...progress } })
      .catch((error: unknown) => this.log(`sending progress failed: ${errorMessage(error)}`));
  }

  private clearProgress(state: CallState): void {
    if (state.timer) clearTimeout(state.timer);
    if (state.heartbeat) clearInterval(state.heartbeat);
    state.timer = undefined;
    state.heartbeat = undefined;
    state.pending = undefined;
  }

  /** A "still running" notification for a call that has been quiet for heartbeatMs. */
  private beat(state: CallState): void {
    const now = Date.now();
    if (state.timer || now - Math.max(state.lastSentAt, state.startedAt) < this.heartbeatMs) return;
    const next = state.mapper.next({ kind: 'status', text: `${state.name} is still running (${Math.round((now - state.startedAt) / 1000)} s)` });
    if (next) this.sendProgress(state, next, now);
    else state.lastSentAt = now;
  }

  private scheduleListCheck(): void {
    if (this.closing || this.listTimer) return;
    this.listTimer = setTimeout(() => {
      this.listTimer = undefined;
      this.announceListChange();
    }, this.listChangedDelayMs);
  }

  private announceListChange(): void {
    // Before its first tools/list the client has nothing to refresh.
    if (this.known === undefined || this.closing || !this.server.transport) return;
    let tools: McpTool[];
    try {
      tools = this.listTools();
    } catch (error) {
      this.log(`listing tools failed: ${errorMessage(error)}`);
      return;
    }
    const current = fingerprint(tools);
    if (current === this.known) return;
    const names = tools.map((t) => t.name);
    const added = names.filter((n) => !this.knownNames.includes(n));
    const removed = this.knownNames.filter((n) => !names.includes(n));
    const what = [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : ''].filter(Boolean).join('; ');
    this.log(`the tool list changed (${what || 'descriptions or schemas'}); telling the client`);
    this.known = current;
    this.knownNames = names;
    this.server.sendToolListChanged().catch((error: unknown) => this.log(`sending tools/list_changed failed: ${errorMessage(error)}`));
  }

  private clearListTimer(): void {
    if (this.listTimer) clearTimeout(this.listTimer);
    this.listTimer = undefined;
  }

  private canElicit(): boolean {
    return this.server.getClientCapabilities()?.elicitation?.form !== undefined;
  }

  private elicitor(): McpElicitor {
    return {
      canElicit: () => this.canElicit(),
      canNotify: () => this.server.getClientVersion() !== undefined,
      notify: (params) => this.server.sendLoggingMessage(params),
      elicit: (params: ElicitRequestFormParams, options): Promise<ElicitResult> => {
        const state = this.calls.get(options.toolCallId);
        return this.server.elicitInput(params, {
          signal: options.signal,
          timeout: this.elicitationTimeoutMs,
          ...(state ? { relatedRequestId: state.requestId } : {}),
        });
      },
    };
  }
}

function fingerprint(tools: readonly McpTool[]): string {
  return JSON.stringify(tools);
}
