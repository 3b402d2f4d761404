import type { ToolAccesses } from './accesses';
import type { ToolInputDisplay } from './display';

/** A JSON Schema object (draft-07), as sent to a model. */
export type JsonSchema = { readonly [keyword: string]: unknown };

export type ToolSource = 'builtin' | 'user' | 'mcp';
export type ToolDisclosure = 'inline' | 'deferred';

/**
 * Hints about what a tool's calls do, for hosts and clients (the MCP tool annotations). They are
 * hints, never a guarantee: approval and scheduling use each call's own accesses.
 */
export interface ToolAnnotations {
  /** A human-readable title. */
  readonly title?: string;
  /** The tool never changes its environment (files, processes, remote state). */
  readonly readOnlyHint?: boolean;
  /** When not read-only: it may overwrite or delete (true), or it only adds (false). */
  readonly destructiveHint?: boolean;
  /** When not read-only: repeating a call with the same arguments has no further effect. */
  readonly idempotentHint?: boolean;
  /** It reaches outside the machine (the web, remote services). */
  readonly openWorldHint?: boolean;
}

/** What a model sees of a tool. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  /** Optional hints about the tool's behaviour (served as MCP tool annotations). */
  readonly annotations?: ToolAnnotations;
}

export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string };

export type ToolOutput = string | readonly ContentPart[];

export interface ToolResult {
  readonly output: ToolOutput;
  readonly isError?: boolean;
  /** The output was cut; the tool or the executor says how to get the rest. */
  readonly truncated?: boolean;
  /** Where the whole output is, when the tool saved it itself (Bash); the result carries it as `outputPath`. */
  readonly outputPath?: string;
  /** The tool pages its own output (Read); the executor's output budget leaves it alone. */
  readonly spillExempt?: boolean;
  /** End the agent's turn after this batch. */
  readonly stopTurn?: boolean;
  /** Machine-readable content next to the text (MCP structured content). */
  readonly structuredContent?: unknown;
  /** Facts about the result for the host, not the model: `untrusted: true` marks third-party content (FetchURL, WebSearch). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface ToolErrorResult extends ToolResult {
  readonly isError: true;
}

/** Progress from a running tool. */
export interface ToolUpdate {
  readonly kind: 'stdout' | 'stderr' | 'progress' | 'status';
  readonly text?: string;
  readonly progress?: number;
  readonly total?: number;
}

export interface ToolExecutionContext {
  readonly toolCallId: string;
  /** Aborts when the batch is aborted; a tool must stop promptly. */
  readonly signal: AbortSignal;
  onUpdate(update: ToolUpdate): void;
  /** Passed by `onBeforeExecuteTool` listeners (approval metadata, hooks). */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * A tool's own approval default, used when no approval rule or session grant decides: `auto` runs
 * without asking, `ask` always asks.
 */
export type ToolApprovalDefault = 'auto' | 'ask';

/** A resolved call, ready to run. Produced without touching files or starting processes. */
export interface RunnableToolExecution {
  readonly isError?: false;
  /** Resources the call touches; absent means `ToolAccesses.all()`. */
  readonly accesses?: ToolAccesses;
  readonly display?: ToolInputDisplay;
  /** One-line action text, e.g. "Reading src/a.ts". */
  readonly description?: string;
  /** Skip every later call of the batch. */
  readonly stopBatchAfterThis?: boolean;
  /** With stopBatchAfterThis: what each skipped call tells the model instead of the generic text (e.g. why, and whether to call it again). */
  readonly skippedMessage?: string;
  /**
   * The later calls of the batch are preflighted (found, validated, resolved) only after this call
   * has finished, so they see what it changed: select_tools loads tools that later calls of the
   * same batch then call. Calls before it are not affected.
   */
  readonly resolveLaterCallsAfterThis?: boolean;
  /** The literal rule that "approve for this session" stores, e.g. `Bash(npm test)`. */
  readonly approvalRule: string;
  /**
   * The tool's own default when no approval rule or session grant decides: `auto` runs without
   * asking (e.g. a host tool the host itself answers), `ask` always asks. Absent: the tool's
   * contribution's `approval`, else calls that declare reads and only reads (files inside the
   * workspace, state) run without asking and the rest ask, including a call that declares no
   * accesses at all (`ToolAccesses.none()` says what the scheduler may overlap, not that the call
   * is harmless).
   */
  readonly approval?: ToolApprovalDefault;
  /**
   * Does a rule's argument part (the text inside the parentheses) cover this call? `mode` says
   * whether the rule allows or denies: an allow must cover all of the call, a deny any of it.
   */
  matchesRule?(ruleArgs: string, mode?: 'allow' | 'deny'): boolean;
  execute(ctx: ToolExecutionContext): Promise<ToolResult>;
}

export type ToolExecution = RunnableToolExecution | ToolErrorResult;

export interface ExecutableTool<Input = unknown> extends Tool {
  resolveExecution(input: Input): ToolExecution | Promise<ToolExecution>;
}

export function isToolErrorResult(execution: ToolExecution): execution is ToolErrorResult {
  return execution.isError === true;
}

export function toolError(output: ToolOutput, extra: Omit<ToolResult, 'output' | 'isError'> = {}): ToolErrorResult {
  return { ...extra, output, isError: true };
}

export function toolOk(output: ToolOutput, extra: Omit<ToolResult, 'output'> = {}): ToolResult {
  return { ...extra, output };
}

/** The plain text of a tool output (text parts joined; media parts skipped). */
export function outputText(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  return output
    .filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

export const MCP_TOOL_PREFIX = 'mcp__';

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
