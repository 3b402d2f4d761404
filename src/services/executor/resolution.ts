import type { AgentTool } from '../../di/toolContribution';
import { type FileAccessOperation, type ToolAccess, ToolAccesses } from '../../tool/accesses';
import { type RunnableToolExecution, type ToolExecutionContext, toolError } from '../../tool/contract';
import { PathSecurityError } from '../../tool/pathAccess';
import { type AbortWatch, GAVE_UP } from './abortWatch';
import { abortedEnd, type CallEnd, describeError } from './callEnd';
import { normalizeToolResult } from './normalizeResult';

/** A resolved call: the execution as the executor copied it, and its accesses (`all` when it declared none). */
export interface Resolved {
  readonly ok: true;
  readonly execution: RunnableToolExecution;
  readonly accesses: readonly ToolAccess[];
}

export type Resolution = Resolved | { readonly ok: false; readonly end: CallEnd };

/** More accesses than any real call declares; a tool that touches a whole tree declares the folder, recursive. */
export const MAX_ACCESSES = 10_000;

/** A malformed execution; its message completes "Tool "X" failed to resolve execution: …". */
class MalformedExecution extends Error {}

const FILE_OPS: readonly string[] = ['read', 'write', 'search'] satisfies readonly FileAccessOperation[];

/**
 * Runs `tool.resolveExecution(args)` and checks what it returned (preflight, and again right
 * before the call runs). Never throws: a PathSecurityError keeps its message, anything else thrown
 * or malformed becomes `Tool "X" failed to resolve execution: …` (outcome resolution-failed), an
 * error result is synthetic, and one that does not settle before the abort's grace period ends is
 * aborted.
 */
export async function resolveCall(tool: AgentTool, name: string, args: unknown, watch: AbortWatch): Promise<Resolution> {
  let execution: unknown;
  try {
    execution = await watch.untilGraceOver(tool.resolveExecution(args as never));
  } catch (error) {
    return { ok: false, end: resolutionFailed(name, error) };
  }
  if (execution === GAVE_UP) return { ok: false, end: abortedEnd(name) };
  try {
    if (typeof execution !== 'object' || execution === null) {
      throw new MalformedExecution(`it returned ${typeof execution === 'function' ? 'a function' : String(execution)}`);
    }
    if ((execution as { isError?: unknown }).isError === true) return { ok: false, end: { result: normalizeToolResult(name, execution), outcome: 'synthetic' } };
    return { ok: true, ...copyExecution(execution as RunnableToolExecution) };
  } catch (error) {
    return { ok: false, end: resolutionFailed(name, error) };
  }
}

/** Whether two resolutions of one call touch the same resources under the same approval rule. */
export function sameResolution(a: Resolved, b: Resolved): boolean {
  return a.execution.approvalRule === b.execution.approvalRule && accessesKey(a.accesses) === accessesKey(b.accesses);
}

function accessesKey(accesses: readonly ToolAccess[]): string {
  // The copies hold only plain strings and booleans, so this cannot throw.
  return JSON.stringify(accesses);
}

function resolutionFailed(name: string, error: unknown): CallEnd {
  let message: string | undefined;
  try {
    // A refused path is already worded for the model.
    if (error instanceof PathSecurityError && typeof error.message === 'string') message = error.message;
  } catch {
    // A value whose prototype chain cannot be read is described below like any other.
  }
  return {
    result: toolError(message ?? `Tool "${name}" failed to resolve execution: ${describeError(error)}`),
    outcome: 'resolution-failed',
  };
}

/**
 * Reads each field of what resolveExecution returned exactly once, into an object of the
 * executor's own: the scheduler, approval, hooks and events then never meet a getter or Proxy
 * trap of the tool's (one that throws, or answers differently each time).
 */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function copyExecution(raw: RunnableToolExecution): { execution: RunnableToolExecution; accesses: readonly ToolAccess[] } {
  const execute: unknown = raw.execute;
  if (typeof execute !== 'function') throw new MalformedExecution('it returned no execute function');
  const approvalRule: unknown = raw.approvalRule;
  if (typeof approvalRule !== 'string') throw new MalformedExecution('it returned no approvalRule (the rule text, e.g. "Tool(args)")');
  const declared: unknown = raw.accesses;
  const accesses = declared === undefined ? undefined : copyAccesses(declared);
  const description: unknown = raw.description;
  const display: unknown = raw.display;
  const approval: unknown = raw.approval;
  const matchesRule: unknown = raw.matchesRule;
  // Built by assignment, not by spreading conditional objects: one small object per call, which a
  // batch of thousands holds for every call in flight.
  const execution: Mutable<RunnableToolExecution> = {
    approvalRule,
    execute: (ctx: ToolExecutionContext) => (execute as RunnableToolExecution['execute']).call(raw, ctx),
  };
  if (accesses !== undefined) execution.accesses = accesses;
  if (typeof description === 'string') execution.description = description;
  if (display !== undefined && display !== null) execution.display = display as RunnableToolExecution['display'];
  if (raw.stopBatchAfterThis === true) {
    execution.stopBatchAfterThis = true;
    if (typeof raw.skippedMessage === 'string') execution.skippedMessage = raw.skippedMessage;
  }
  if (raw.resolveLaterCallsAfterThis === true) execution.resolveLaterCallsAfterThis = true;
  if (approval === 'auto' || approval === 'ask') execution.approval = approval;
  if (typeof matchesRule === 'function') {
    const match = matchesRule as NonNullable<RunnableToolExecution['matchesRule']>;
    execution.matchesRule = (ruleArgs: string, mode?: 'allow' | 'deny') => match.call(raw, ruleArgs, mode) === true;
  }
  return { execution, accesses: accesses ?? ToolAccesses.all() };
}

function copyAccesses(raw: unknown): readonly ToolAccess[] {
  if (!Array.isArray(raw)) throw new MalformedExecution('its accesses are not an array (use ToolAccesses.none() for a call that touches nothing)');
  const length: unknown = raw.length;
  if (typeof length !== 'number' || length > MAX_ACCESSES) {
    throw new MalformedExecution(`it declared more than ${MAX_ACCESSES} accesses; declare a recursive access to their folder instead`);
  }
  const copies: ToolAccess[] = [];
  for (let at = 0; at < length; at++) copies.push(copyAccess(raw[at], at));
  return copies;
}

function copyAccess(raw: unknown, at: number): ToolAccess {
  const invalid = () =>
    new MalformedExecution(
      `access ${at} is not a valid access: expected {kind: "file", op: "read" | "write" | "search", path}, {kind: "state", key, op: "read" | "write"}, {kind: "process"}, {kind: "network"} or {kind: "all"}`,
    );
  if (typeof raw !== 'object' || raw === null) throw invalid();
  const access = raw as Record<string, unknown>;
  const kind = access.kind;
  if (kind === 'process' || kind === 'network' || kind === 'all') return { kind };
  if (kind === 'file') {
    const op = access.op;
    const path = access.path;
    if (typeof op !== 'string' || !FILE_OPS.includes(op) || typeof path !== 'string') throw invalid();
    return ToolAccesses.file(op as FileAccessOperation, path, access.recursive === true);
  }
  if (kind === 'state') {
    const key = access.key;
    const op = access.op;
    if (typeof key !== 'string' || (op !== 'read' && op !== 'write')) throw invalid();
    return { kind: 'state', key, op };
  }
  throw invalid();
}
