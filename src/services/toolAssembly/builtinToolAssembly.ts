import type { Event } from '../../base/event';
import type { AgentToolContribution } from '../../di/toolContribution';
import { createServiceId } from '../../di/serviceId';

export interface ToolContributionChange {
  readonly added: readonly AgentToolContribution[];
  readonly removed: readonly AgentToolContribution[];
}

/** A contribution refused because another one already has its name. */
export interface DuplicateToolContribution {
  readonly name: string;
  readonly kept: AgentToolContribution;
  readonly refused: AgentToolContribution;
}

/**
 * The builtin tool contributions of an App (App scope): the injected collection plus those of
 * features added later, one per name, sorted by name.
 */
export interface IBuiltinToolAssemblyService {
  readonly contributions: readonly AgentToolContribution[];
  get(name: string): AgentToolContribution | undefined;
  /** Adds contributions; a name that is already taken is refused and reported. */
  add(contributions: readonly AgentToolContribution[]): readonly DuplicateToolContribution[];
  remove(contributions: readonly AgentToolContribution[]): void;
  readonly duplicates: readonly DuplicateToolContribution[];
  readonly onDidChange: Event<ToolContributionChange>;
  readonly onDidRefuseDuplicate: Event<DuplicateToolContribution>;
}
export const IBuiltinToolAssemblyService = createServiceId<IBuiltinToolAssemblyService>('BuiltinToolAssemblyService');
