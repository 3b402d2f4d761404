import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { HookProblemKind } from './hookAnswer';
import type { HookEventName } from './hooksConfig';

/** A hook that did not block but did not work either: a bad exit code, a timeout, bad output. */
export interface CommandHookProblem {
  readonly event: HookEventName;
  readonly command: string;
  readonly toolName: string;
  readonly toolCallId: string;
  readonly kind: HookProblemKind;
  /** Says what happened, e.g. `the hook exited with code 1: jq: not found`. */
  readonly message: string;
}

/**
 * The command hooks of config `hooks` in one agent (Agent scope): PreToolUse hooks run before
 * approval, PostToolUse hooks after a call ran. With no hooks configured, nothing is registered
 * on the executor.
 */
export interface IAgentCommandHooksService {
  /** Every hook problem, as it happens; the call it ran for goes on. */
  readonly onDidReportProblem: Event<CommandHookProblem>;
}
export const IAgentCommandHooksService = createServiceId<IAgentCommandHooksService>('AgentCommandHooksService');

/** The `session_id` hooks get; an agent's own id unless the host binds its session's. */
export const ICommandHookSessionId = createServiceId<string>('CommandHookSessionId');
