import { errorMessage } from '../../base/errors';
import type { HookEventName } from './hooksConfig';
import { type HookCommandRun, MAX_HOOK_OUTPUT_BYTES } from './hookCommandRunner';

/** What went wrong with a hook that did not block (it is reported, the call goes on). */
export type HookProblemKind = 'exit-code' | 'timeout' | 'spawn-error' | 'invalid-output';

/** What one hook run says, read as Claude Code reads it. */
export interface HookAnswer {
  /**
   * PreToolUse: `deny` (exit code 2, `permissionDecision: "deny"` or `decision: "block"`), `ask`
   * or `allow`. PostToolUse: `deny` is feedback for the model (exit code 2 or `decision: "block"`).
   */
  readonly decision?: 'allow' | 'ask' | 'deny';
  /** The reason given with the decision (stderr for exit code 2). */
  readonly reason?: string;
  readonly additionalContext?: string;
  /** `continue: false`: end the turn after this batch, with the hook's `stopReason`. */
  readonly stopTurn?: { readonly reason: string };
  readonly problem?: { readonly kind: HookProblemKind; readonly message: string };
}

const NOTHING: HookAnswer = {};
const DECISIONS = ['allow', 'ask', 'deny'] as const;

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function invalid(message: string): HookAnswer {
  return { problem: { kind: 'invalid-output', message } };
}

/** Exit 0 passes (its stdout may hold a JSON answer), 2 blocks with stderr, anything else is reported. */
export function readHookRun(event: HookEventName, run: HookCommandRun, timeoutSeconds: number): HookAnswer {
  if (run.aborted) return NOTHING;
  if (run.spawnError !== undefined) return { problem: { kind: 'spawn-error', message: `the hook could not be started: ${run.spawnError}` } };
  if (run.timedOut) return { problem: { kind: 'timeout', message: `the hook did not finish within its timeout of ${timeoutSeconds} s and was killed` } };
  if (run.exitCode === 2) return { decision: 'deny', reason: run.stderr.trim() || 'a hook blocked it (exit code 2) without giving a reason' };
  if (run.exitCode !== 0) {
    const stderr = run.stderr.trim();
    const how = run.exitCode === null ? 'was ended by a signal' : `exited with code ${run.exitCode}`;
    return { problem: { kind: 'exit-code', message: `the hook ${how}${stderr ? `: ${stderr}` : ''}` } };
  }
  const stdout = run.stdout.trim();
  // Plain text on stdout is the hook's log, not an answer (as in Claude Code).
  if (!stdout.startsWith('{')) return NOTHING;
  if (run.outputCut) return invalid(`its JSON answer is longer than the ${MAX_HOOK_OUTPUT_BYTES} bytes kept of a hook's stdout`);
  let answer: unknown;
  try {
    answer = JSON.parse(stdout);
  } catch (error) {
    return invalid(`its stdout starts with "{" but is not valid JSON (${errorMessage(error)})`);
  }
  return readJsonAnswer(event, answer as Readonly<Record<string, unknown>>);
}

function readJsonAnswer(event: HookEventName, answer: Readonly<Record<string, unknown>>): HookAnswer {
  const specific = isRecord(answer['hookSpecificOutput']) ? answer['hookSpecificOutput'] : {};
  const additionalContext = text(specific['additionalContext']);
  const stopTurn = answer['continue'] === false ? { stopTurn: { reason: text(answer['stopReason']) ?? 'a hook ended the turn' } } : {};
  const context = additionalContext !== undefined ? { additionalContext } : {};
  const legacy = answer['decision'];
  if (event === 'PreToolUse') {
    const permission = specific['permissionDecision'];
    if (permission !== undefined) {
      if (!(DECISIONS as readonly unknown[]).includes(permission)) {
        return invalid(`hookSpecificOutput.permissionDecision must be "allow", "deny" or "ask", not ${JSON.stringify(permission)}`);
      }
      const reason = text(specific['permissionDecisionReason']);
      return { decision: permission as HookAnswer['decision'], ...(reason !== undefined ? { reason } : {}), ...context, ...stopTurn };
    }
    // The older form: decision "approve" | "block" with "reason".
    if (legacy === 'block' || legacy === 'approve') {
      const reason = text(answer['reason']);
      return { decision: legacy === 'block' ? 'deny' : 'allow', ...(reason !== undefined ? { reason } : {}), ...context, ...stopTurn };
    }
  } else if (legacy === 'block') {
    return { decision: 'deny', reason: text(answer['reason']) ?? 'a PostToolUse hook flagged the result without giving a reason', ...context, ...stopTurn };
  }
  if (legacy !== undefined && legacy !== null && legacy !== 'approve' && legacy !== 'block') {
    return invalid(`"decision" must be "block"${event === 'PreToolUse' ? ' or "approve"' : ''}, not ${JSON.stringify(legacy)}`);
  }
  return { ...context, ...stopTurn };
}
