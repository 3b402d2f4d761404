import { createServiceId } from '../../di/serviceId';
import type { ToolAccesses } from '../../tool/accesses';
import type { JsonSchema, ToolDisclosure } from '../../tool/contract';
import type { ToolNameConflict } from '../toolRegistry/toolRegistry';

/** A tool the host provides: the model calls it, the host runs it. */
export interface UserToolRegistration {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (type object); default: no arguments. */
  readonly parameters?: JsonSchema;
  readonly disclosure?: ToolDisclosure;
  /** What the call touches, for scheduling; default `ToolAccesses.all()` (runs alone). */
  readonly accesses?: ToolAccesses;
  /** Ask for approval before the host runs it (default false: the host decides when it runs it). */
  readonly requiresApproval?: boolean;
}

export class UserToolError extends Error {
  override readonly name = 'UserToolError';
  constructor(
    message: string,
    readonly conflict?: ToolNameConflict,
  ) {
    super(message);
  }
}

/**
 * Host-provided tools (Agent scope). A call sends `ISessionInteractionService.request({kind:
 * 'user_tool', toolCallId, name, args})` to the host and returns its answer; an abort cancels the
 * pending request. A user tool cannot take a builtin's or another source's name.
 */
export interface IAgentUserToolService {
  /** Registers or replaces (same name, registered by this service) a user tool. Throws UserToolError. */
  register(registration: UserToolRegistration): void;
  /** Returns false when no user tool has that name. */
  unregister(name: string): boolean;
  readonly names: readonly string[];
}
export const IAgentUserToolService = createServiceId<IAgentUserToolService>('AgentUserToolService');
