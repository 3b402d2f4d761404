import type { Event } from '../../base/event';
import type { BeforeExecuteContext } from '../../services/executor/toolExecutor';
import { createServiceId } from '../../di/serviceId';

/**
 * The plan guard's before-execute order: before approval (0) and before PreToolUse command hooks
 * (-10), so no hook or approver can let a write through. An executor held to another agent's plan
 * mode (a subagent's) registers the guard at this order too.
 */
export const PLAN_GUARD_ORDER = -100;

/** Plan mode as stored under the `mode` state key. */
export interface PlanModeState {
  readonly mode: 'plan';
  /** The plan file: canonical absolute path (symlinks resolved). */
  readonly planFile: string;
}

/** A mode transition (`ModeChanged`): `plan` on entering, `normal` on leaving. */
export interface ModeChangedEvent {
  readonly mode: 'plan' | 'normal';
  readonly planFile: string;
  /** On leaving: how the plan was accepted. */
  readonly approval?: 'reviewed' | 'auto-approved';
}

/**
 * What plan mode reads of an MCP tool (the MCP feature's tools have these): its server, and that
 * server's `mcpServers.<name>.planMode`. `allow` lets the tool run in plan mode; `guard` refuses it,
 * or asks when the server annotates it `readOnlyHint` (the server's word, not a guarantee).
 */
export interface PlanModeMcpTool {
  readonly server: string;
  readonly planMode: 'guard' | 'allow';
}

/** A transition the mode refuses (already on, not on); the message says what to do. */
export class PlanModeError extends Error {
  override readonly name = 'PlanModeError';
}

/**
 * The agent's plan mode (Agent scope), durable in IAgentStateStore under `mode`. While it is on,
 * the plan guard (a before-execute hook that runs before approval) vetoes every call that would
 * write anything but the plan file.
 */
export interface IAgentPlanModeService {
  /** The current mode; undefined when plan mode is off. */
  current(): Promise<PlanModeState | undefined>;
  /** The plan file as last read or written, without I/O (for a display); undefined when off or not read yet. */
  readonly knownPlanFile: string | undefined;
  /** Creates the plan file under `<dataDir>/plans/` and turns the mode on; throws PlanModeError when it is on. */
  enter(): Promise<PlanModeState>;
  /** Turns the mode off; throws PlanModeError when it is off. */
  exit(approval: 'reviewed' | 'auto-approved'): Promise<void>;
  readonly onDidChangeMode: Event<ModeChangedEvent>;
  /**
   * The plan guard for one call (what the agent's own before-execute hook at PLAN_GUARD_ORDER
   * runs): vetoes or asks while plan mode is on. A subagent's executor registers it too, so the
   * child of a planning parent is held to the parent's mode.
   */
  guardCall(ctx: BeforeExecuteContext): Promise<void> | undefined;
}
export const IAgentPlanModeService = createServiceId<IAgentPlanModeService>('AgentPlanModeService');
