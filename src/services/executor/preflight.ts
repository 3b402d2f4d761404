import { closestMatch } from '../../base/strings';
import { type ToolResult, toolError } from '../../tool/contract';
import type { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import type { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import type { AbortWatch } from './abortWatch';
import { type CallEnd, describeError, skippedEnd } from './callEnd';
import { parseArguments } from './parseArguments';
import { resolveCall } from './resolution';
import type { MissingToolDescriber, ToolCall, ToolCallGuard, ToolCallInfo, ToolCallOutcome } from './toolExecutor';
import type { ScheduledTask, ToolScheduler } from './toolScheduler';

/** A call that preflight refused or skipped: it is never prepared, scheduled or run. */
export interface Refused extends CallEnd {
  readonly kind: 'refused';
  /** What the started event reports as the call's arguments. */
  readonly args: unknown;
}

/** A call that passed preflight: resolved, and holding its place in the scheduler. */
export interface Runnable {
  readonly kind: 'runnable';
  readonly info: ToolCallInfo;
  readonly task: ScheduledTask;
}

export type Preflighted = Refused | Runnable;

export interface PreflightDeps {
  readonly registry: IAgentToolRegistryService;
  readonly validator: IToolArgsValidatorService;
  /** Read afresh for each call, so a guard added while a batch is preflighted applies to its later calls. */
  readonly guards: () => readonly ToolCallGuard[];
  readonly missingDescribers: () => readonly MissingToolDescriber[];
}

function refused(result: ToolResult, outcome: ToolCallOutcome, args: unknown): Refused {
  return { kind: 'refused', result, outcome, args };
}

/**
 * Where preflight of a batch stands between chunks: once a call said stopBatchAfterThis, every
 * later call is skipped, whichever chunk it falls in.
 */
export interface PreflightCursor {
  stopped: boolean;
  skippedMessage?: string;
}

export interface PreflightChunk {
  readonly entries: Preflighted[];
  /** It stopped after a call that says resolveLaterCallsAfterThis: the rest waits until that call has finished. */
  readonly waitForLast: boolean;
}

/**
 * Preflight of at most `limit` calls of the batch from call `from` on, in call order, before any
 * of them is prepared: find the tool, parse, guards, coerce + validate, resolveExecution. Each
 * runnable call takes its place in the scheduler in call order; after a call that says
 * stopBatchAfterThis, every later call is skipped. It stops after a runnable call that says
 * resolveLaterCallsAfterThis (the caller preflights the rest once that call has finished), or
 * after `limit` calls.
 */
export async function preflight(
  calls: readonly ToolCall[],
  from: number,
  limit: number,
  cursor: PreflightCursor,
  signal: AbortSignal,
  watch: AbortWatch,
  scheduler: ToolScheduler,
  deps: PreflightDeps,
): Promise<PreflightChunk> {
  const entries: Preflighted[] = [];
  const end = Math.min(calls.length, from + Math.max(1, limit));
  for (let at = from; at < end; at++) {
    const call = calls[at]!;
    if (cursor.stopped) {
      const skipped = skippedEnd(cursor.skippedMessage);
      // Known quirk, kept as it was: the started event gets the parse result ({ok, value}), not the arguments.
      entries.push(refused(skipped.result, skipped.outcome, parseArguments(call.arguments)));
      continue;
    }
    const entry = await preflightCall(call, calls, signal, watch, scheduler, deps);
    entries.push(entry);
    if (entry.kind === 'runnable' && entry.info.execution.stopBatchAfterThis) {
      cursor.stopped = true;
      cursor.skippedMessage = entry.info.execution.skippedMessage;
    } else if (entry.kind === 'runnable' && entry.info.execution.resolveLaterCallsAfterThis) return { entries, waitForLast: true };
  }
  return { entries, waitForLast: false };
}

async function preflightCall(
  call: ToolCall,
  batch: readonly ToolCall[],
  signal: AbortSignal,
  watch: AbortWatch,
  scheduler: ToolScheduler,
  deps: PreflightDeps,
): Promise<Preflighted> {
  const name = call.name;
  const registration = deps.registry.get(name);
  const parsed = parseArguments(call.arguments);
  const rawArgs = parsed.ok ? parsed.value : call.arguments;
  if (!registration) return refused(toolError(describeMissing(name, deps)), 'rejected', rawArgs);
  if (!parsed.ok) return refused(toolError(`Invalid JSON in arguments for tool "${name}": ${parsed.message}`), 'rejected', rawArgs);
  const { tool, source } = registration;
  for (const guard of deps.guards()) {
    let refusal: string | undefined;
    try {
      refusal = guard({ name, source, tool });
    } catch (error) {
      refusal = `Tool "${name}" was refused by a tool call guard that failed: ${describeError(error)}`;
    }
    if (refusal !== undefined) return refused(toolError(refusal), 'rejected', rawArgs);
  }
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return refused(toolError(`Invalid args for tool "${name}": the arguments must be a JSON object`), 'rejected', rawArgs);
  }
  let validation;
  try {
    validation = deps.validator.validate(tool.parameters, parsed.value);
  } catch (error) {
    // An argument object whose getters or Proxy traps throw (possible when a host passes objects).
    return refused(toolError(`Invalid args for tool "${name}": the arguments could not be read (${describeError(error)}); pass them as JSON text`), 'rejected', rawArgs);
  }
  if (!validation.ok) return refused(toolError(`Invalid args for tool "${name}": ${validation.message}`), 'rejected', rawArgs);
  const args = validation.value;

  const resolution = await resolveCall(tool, name, args, watch);
  if (!resolution.ok) return refused(resolution.end.result, resolution.end.outcome, args);
  const { execution, accesses } = resolution;
  const info: ToolCallInfo = {
    toolCallId: call.id,
    name,
    args,
    tool,
    source,
    execution,
    ...(registration.approval !== undefined ? { defaultApproval: registration.approval } : {}),
    accesses,
    batch,
    signal,
  };
  return { kind: 'runnable', info, task: scheduler.add(accesses) };
}

/** The describers first (e.g. "available but not loaded"), else "not found" with the closest name. */
function describeMissing(name: string, deps: PreflightDeps): string {
  for (const describe of deps.missingDescribers()) {
    try {
      const text = describe(name);
      if (typeof text === 'string') return text;
    } catch {
      // A failing describer falls through to the default text.
    }
  }
  const suggestion = closestMatch(
    name,
    deps.registry.list().map((r) => r.tool.name),
  );
  return suggestion ? `Tool "${name}" not found. Did you mean "${suggestion}"?` : `Tool "${name}" not found`;
}
