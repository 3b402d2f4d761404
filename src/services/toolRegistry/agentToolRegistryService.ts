import { injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { toDisposable } from '../../base/lifecycle';
import type { AgentTool } from '../../di/toolContribution';
import type {
  IAgentToolRegistryService,
  ToolNameConflict,
  ToolRegisterResult,
  ToolRegistration,
  ToolRegistrationOptions,
  ToolRegistryChange,
} from './toolRegistry';

const MAX_KEPT_CONFLICTS = 100;

@injectable()
export class AgentToolRegistryService implements IAgentToolRegistryService {
  private readonly entries = new Map<string, ToolRegistration>();
  private sortedCache: readonly ToolRegistration[] | undefined;
  private readonly conflictList: ToolNameConflict[] = [];
  private readonly changed = new Emitter<ToolRegistryChange>();
  private readonly conflicted = new Emitter<ToolNameConflict>();
  readonly onDidChange = this.changed.event;
  readonly onDidConflict = this.conflicted.event;

  register(tool: AgentTool, options: ToolRegistrationOptions): ToolRegisterResult {
    const owner = options.owner ?? options.source;
    const existing = this.entries.get(tool.name);
    if (existing) {
      const conflict: ToolNameConflict = {
        name: tool.name,
        existing: { source: existing.source, owner: existing.owner },
        refused: { source: options.source, owner },
      };
      this.conflictList.push(conflict);
      if (this.conflictList.length > MAX_KEPT_CONFLICTS) this.conflictList.shift();
      this.conflicted.fire(conflict);
      return { ok: false, conflict };
    }
    const entry: ToolRegistration = {
      tool,
      source: options.source,
      disclosure: options.disclosure ?? 'inline',
      owner,
      ...(options.approval !== undefined ? { approval: options.approval } : {}),
    };
    this.entries.set(tool.name, entry);
    this.sortedCache = undefined;
    this.changed.fire({ added: [tool.name], removed: [] });
    return {
      ok: true,
      registration: toDisposable(() => {
        // Only the registration that still owns the name may remove it.
        if (this.entries.get(tool.name) !== entry) return;
        this.entries.delete(tool.name);
        this.sortedCache = undefined;
        this.changed.fire({ added: [], removed: [tool.name] });
      }),
    };
  }

  get(name: string): ToolRegistration | undefined {
    return this.entries.get(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  list(): readonly ToolRegistration[] {
    this.sortedCache ??= [...this.entries.values()].sort((a, b) => (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
    return this.sortedCache;
  }

  get conflicts(): readonly ToolNameConflict[] {
    return this.conflictList;
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
    this.conflicted.dispose();
  }
}
