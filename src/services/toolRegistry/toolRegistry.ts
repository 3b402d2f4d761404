import type { Event } from '../../base/event';
import type { IDisposable } from '../../base/lifecycle';
import { createServiceId } from '../../di/serviceId';
import type { AgentTool } from '../../di/toolContribution';
import type { ToolApprovalDefault, ToolDisclosure, ToolSource } from '../../tool/contract';

export interface ToolRegistration {
  readonly tool: AgentTool;
  readonly source: ToolSource;
  readonly disclosure: ToolDisclosure;
  /** Who registered it, for conflict reports: `builtin`, `user`, `mcp:<server>`, … */
  readonly owner: string;
  /** The tool's approval default for calls whose execution sets none (a contribution's `approval`). */
  readonly approval?: ToolApprovalDefault;
}

export interface ToolRegistrationOptions {
  readonly source: ToolSource;
  readonly disclosure?: ToolDisclosure;
  readonly owner?: string;
  readonly approval?: ToolApprovalDefault;
}

/** A registration refused because the name already has an owner. */
export interface ToolNameConflict {
  readonly name: string;
  readonly existing: { readonly source: ToolSource; readonly owner: string };
  readonly refused: { readonly source: ToolSource; readonly owner: string };
}

export type ToolRegisterResult =
  | { readonly ok: true; readonly registration: IDisposable }
  | { readonly ok: false; readonly conflict: ToolNameConflict };

export interface ToolRegistryChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * The agent's tools by name (Agent scope). A name has one owner: registering a taken name is
 * refused and reported, never a silent replacement.
 */
export interface IAgentToolRegistryService {
  register(tool: AgentTool, options: ToolRegistrationOptions): ToolRegisterResult;
  get(name: string): ToolRegistration | undefined;
  has(name: string): boolean;
  /** All registrations, sorted by name. */
  list(): readonly ToolRegistration[];
  /** Refused registrations, oldest first (at most the last 100). */
  readonly conflicts: readonly ToolNameConflict[];
  readonly onDidChange: Event<ToolRegistryChange>;
  readonly onDidConflict: Event<ToolNameConflict>;
}
export const IAgentToolRegistryService = createServiceId<IAgentToolRegistryService>('AgentToolRegistryService');
