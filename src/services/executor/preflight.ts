import { errorMessage } from '../../base/errors';
import { closestMatch } from '../../base/strings';
import { ToolAccesses } from '../../tool/accesses';
import { type RunnableToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { PathSecurityError } from '../../tool/pathAccess';
import type { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import type { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import { type CallEnd, skippedEnd } from './callEnd';
import { normalizeToolResult } from './normalizeResult';
import { parseArguments } from './parseArguments';
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
 * Preflight of a whole batch, in call order, before any call is prepared: find the tool, parse,
 * guards, coerce + validate, resolveExecution. Each runnable call takes its place in the scheduler
 * in call order; after a call that says stopBatchAfterThis, every later call is skipped.
 */
export async function preflight(calls: readonly ToolCall[], signal: AbortSignal, scheduler: ToolScheduler, deps: PreflightDeps): Promise<Preflighted[]> {
  const entries: Preflighted[] = [];
  let stopped = false;
  for (const call of calls) {
    if (stopped) {
      const skipped = skippedEnd();
      // Known quirk, kept as it was: the started event gets the parse result ({ok, value}), not the arguments.
      entries.push(refused(skipped.result, skipped.outcome, parseArguments(call.arguments)));
      continue;
    }
    const entry = await preflightCall(call, calls, signal, scheduler, deps);
    if (entry.kind === 'runnable' && entry.info.execution.stopBatchAfterThis) stopped = true;
    entries.push(entry);
  }
  return entries;
}

async function preflightCall(call: ToolCall, batch: readonly ToolCall[], signal: AbortSignal, scheduler: ToolScheduler, deps: PreflightDeps): Promise<Preflighted> {
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
      refusal = `Tool "${name}" was refused by a tool call guard that failed: ${errorMessage(error)}`;
    }
    if (refusal !== undefined) return refused(toolError(refusal), 'rejected', rawArgs);
  }
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return refused(toolError(`Invalid args for tool "${name}": the arguments must be a JSON object`), 'rejected', rawArgs);
  }
  const validation = deps.validator.validate(tool.parameters, parsed.value);
  if (!validation.ok) return refused(toolError(`Invalid args for tool "${name}": ${validation.message}`), 'rejected', rawArgs);
  const args = validation.value;

  let execution;
  try {
    execution = await tool.resolveExecution(args as never);
  } catch (error) {
    // A refused path is already worded for the model.
    const message = error instanceof PathSecurityError ? error.message : `Tool "${name}" failed to resolve execution: ${errorMessage(error)}`;
    return refused(toolError(message), 'resolution-failed', args);
  }
  if (typeof execution !== 'object' || execution === null) {
    return refused(toolError(`Tool "${name}" failed to resolve execution: it returned ${String(execution)}`), 'resolution-failed', args);
  }
  if (execution.isError === true) return refused(normalizeToolResult(name, execution), 'synthetic', args);
  if (typeof (execution as RunnableToolExecution).execute !== 'function') {
    return refused(toolError(`Tool "${name}" failed to resolve execution: it returned no execute function`), 'resolution-failed', args);
  }
  const runnable = execution as RunnableToolExecution;
  const accesses = runnable.accesses ?? ToolAccesses.all();
  const info: ToolCallInfo = { toolCallId: call.id, name, args, tool, source, execution: runnable, accesses, batch, signal };
  return { kind: 'runnable', info, task: scheduler.add(accesses) };
}

/** The describers first (e.g. "available but not loaded"), else "not found" with the closest name. */
function describeMissing(name: string, deps: PreflightDeps): string {
  for (const describe of deps.missingDescribers()) {
    try {
      const text = describe(name);
      if (text !== undefined) return text;
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
