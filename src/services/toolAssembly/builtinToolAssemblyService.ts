import { injectable, multiInject, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { type AgentToolContribution, IAgentToolContribution } from '../../di/toolContribution';
import type { DuplicateToolContribution, IBuiltinToolAssemblyService, ToolContributionChange } from './builtinToolAssembly';

@injectable()
export class BuiltinToolAssemblyService implements IBuiltinToolAssemblyService {
  private readonly byName = new Map<string, AgentToolContribution>();
  private sorted: readonly AgentToolContribution[] = [];
  private readonly duplicateList: DuplicateToolContribution[] = [];
  private readonly changed = new Emitter<ToolContributionChange>();
  private readonly refused = new Emitter<DuplicateToolContribution>();
  readonly onDidChange = this.changed.event;
  readonly onDidRefuseDuplicate = this.refused.event;

  constructor(@multiInject(IAgentToolContribution) injected: AgentToolContribution[]) {
    this.insert(injected);
  }

  get contributions(): readonly AgentToolContribution[] {
    return this.sorted;
  }

  get duplicates(): readonly DuplicateToolContribution[] {
    return this.duplicateList;
  }

  get(name: string): AgentToolContribution | undefined {
    return this.byName.get(name);
  }

  add(contributions: readonly AgentToolContribution[]): readonly DuplicateToolContribution[] {
    const { added, duplicates } = this.insert(contributions);
    for (const duplicate of duplicates) this.refused.fire(duplicate);
    if (added.length > 0) this.changed.fire({ added, removed: [] });
    return duplicates;
  }

  remove(contributions: readonly AgentToolContribution[]): void {
    const removed: AgentToolContribution[] = [];
    for (const contribution of contributions) {
      if (this.byName.get(contribution.name) === contribution) {
        this.byName.delete(contribution.name);
        removed.push(contribution);
      }
    }
    if (removed.length === 0) return;
    this.resort();
    this.changed.fire({ added: [], removed });
  }

  private insert(contributions: readonly AgentToolContribution[]): { added: AgentToolContribution[]; duplicates: DuplicateToolContribution[] } {
    const added: AgentToolContribution[] = [];
    const duplicates: DuplicateToolContribution[] = [];
    for (const contribution of contributions) {
      const existing = this.byName.get(contribution.name);
      if (existing === contribution) continue;
      if (existing) {
        const duplicate = { name: contribution.name, kept: existing, refused: contribution };
        duplicates.push(duplicate);
        this.duplicateList.push(duplicate);
        continue;
      }
      this.byName.set(contribution.name, contribution);
      added.push(contribution);
    }
    if (added.length > 0) this.resort();
    return { added, duplicates };
  }

  private resort(): void {
    // Sorted explicitly: inversify's multi-injection order is not a contract.
    this.sorted = [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
    this.refused.dispose();
  }
}
