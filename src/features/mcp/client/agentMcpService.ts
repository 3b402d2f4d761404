import { inject, injectable, preDestroy } from 'inversify';
import { RerunUntilStable } from '../../../base/rerunUntilStable';
import { Emitter } from '../../../base/event';
import { DisposableStore, type IDisposable } from '../../../base/lifecycle';
import { mcpServerToolPrefix, qualifyMcpToolName } from './toolNaming';
import { IAgentToolPolicyService } from '../../../services/toolPolicy/toolPolicy';
import { IAgentToolExecutorService } from '../../../services/executor/toolExecutor';
import { IAgentToolRegistryService } from '../../../services/toolRegistry/toolRegistry';
import type { IAgentMcpService, McpToolInfo, McpToolsChange } from './agentMcp';
import { IMcpConnectionManager, type McpServerStatus, type McpToolCollision, type McpToolDefinition, type McpWarning } from './mcpConnections';
import { McpTool } from './mcpTool';

interface Candidate {
  readonly server: McpServerStatus;
  readonly definition: McpToolDefinition;
}

interface ActiveTool {
  readonly info: McpToolInfo;
  readonly planMode: 'guard' | 'allow';
  readonly registration: IDisposable;
}

function collisionKey(c: McpToolCollision): string {
  const w = c.collidesWith;
  const other = w.kind === 'same_server' ? w.tool : w.kind === 'other_server' ? `${w.server}/${w.tool}` : w.owner;
  return JSON.stringify([c.qualifiedName, c.server, c.tool, w.kind, other]);
}

function collisionMessage(c: McpToolCollision): string {
  const head = `MCP tool "${c.tool}" of server "${c.server}" was not registered: its name ${c.qualifiedName}`;
  const w = c.collidesWith;
  if (w.kind === 'same_server') return `${head} is already used by tool "${w.tool}" of the same server.`;
  if (w.kind === 'other_server') {
    return `${head} is already used by tool "${w.tool}" of server "${w.server}" (servers are resolved in name order; rename one of them in mcpServers).`;
  }
  return `${head} is already taken by ${w.owner} (a ${w.source} tool).`;
}

@injectable()
export class AgentMcpService implements IAgentMcpService {
  private readonly active = new Map<string, ActiveTool>();
  private sortedTools: readonly McpToolInfo[] | undefined;
  private collisionList: readonly McpToolCollision[] = [];
  private reportedCollisions = new Set<string>();
  /** Names the registry refused (another source holds them): retried when they are released. */
  private refused = new Set<string>();
  /** Qualified names of ready servers' tools that the tool policy excludes. */
  private excluded = new Set<string>();
  private readonly disposables = new DisposableStore();
  private readonly warningEmitter = new Emitter<McpWarning>();
  private readonly changeEmitter = new Emitter<McpToolsChange>();
  private readonly reconciliation = new RerunUntilStable(() => this.reconcileOnce());
  private disposed = false;
  readonly onWarning = this.warningEmitter.event;
  readonly onDidChangeTools = this.changeEmitter.event;

  constructor(
    @inject(IMcpConnectionManager) private readonly manager: IMcpConnectionManager,
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentToolPolicyService) private readonly policy: IAgentToolPolicyService,
    @inject(IAgentToolExecutorService) executor: IAgentToolExecutorService,
  ) {
    this.disposables.add(manager.onDidChangeServer(() => this.reconcile()));
    this.disposables.add(manager.onWarning((warning) => this.warningEmitter.fire(warning)));
    this.disposables.add(policy.onDidChange(() => this.reconcile()));
    this.disposables.add(
      registry.onDidChange((change) => {
        if (this.refused.size > 0 && change.removed.some((name) => this.refused.has(name))) this.reconcile();
      }),
    );
    this.disposables.add(executor.addMissingToolDescriber((name) => this.describeMissing(name)));
    this.reconcile();
  }

  get tools(): readonly McpToolInfo[] {
    this.sortedTools ??= [...this.active.values()].map((a) => a.info).sort((a, b) => (a.qualifiedName < b.qualifiedName ? -1 : 1));
    return this.sortedTools;
  }

  lookup(qualifiedName: string): McpToolInfo | undefined {
    return this.active.get(qualifiedName)?.info;
  }

  get collisions(): readonly McpToolCollision[] {
    return this.collisionList;
  }

  get servers(): readonly McpServerStatus[] {
    return this.manager.servers;
  }

  whenSettled(signal?: AbortSignal): Promise<void> {
    return this.manager.whenSettled(signal);
  }

  /** Brings the registry in step with the ready servers, the policy and the names others hold. */
  private reconcile(): void {
    if (this.disposed) return;
    this.reconciliation.run();
  }

  private reconcileOnce(): void {
    const desired = new Map<string, Candidate>();
    const collisions: McpToolCollision[] = [];
    const excluded = new Set<string>();
    for (const server of this.manager.servers) {
      if (server.state !== 'ready') continue;
      const ownNames = new Map<string, string>();
      for (const definition of server.tools) {
        if (definition.unusableReason !== undefined) continue;
        const qualifiedName = qualifyMcpToolName(server.name, definition.name);
        const earlier = ownNames.get(qualifiedName);
        if (earlier !== undefined) {
          collisions.push({ qualifiedName, server: server.name, tool: definition.name, collidesWith: { kind: 'same_server', tool: earlier } });
          continue;
        }
        ownNames.set(qualifiedName, definition.name);
        const holder = desired.get(qualifiedName);
        if (holder) {
          collisions.push({
            qualifiedName,
            server: server.name,
            tool: definition.name,
            collidesWith: { kind: 'other_server', server: holder.server.name, tool: holder.definition.name },
          });
          continue;
        }
        if (!this.policy.isToolActive(qualifiedName, 'mcp')) {
          excluded.add(qualifiedName);
          continue;
        }
        desired.set(qualifiedName, { server, definition });
      }
    }
    this.excluded = excluded;

    const added: string[] = [];
    const removed: string[] = [];
    for (const [name, entry] of [...this.active]) {
      const wanted = desired.get(name);
      const disclosure = wanted?.server.deferred ? 'deferred' : 'inline';
      const changed =
        !wanted || wanted.definition !== entry.info.definition || wanted.server.name !== entry.info.server || disclosure !== entry.info.disclosure || wanted.server.planMode !== entry.planMode;
      if (changed) {
        this.active.delete(name);
        entry.registration.dispose();
        removed.push(name);
      }
    }
    const refused = new Set<string>();
    for (const [name, { server, definition }] of desired) {
      if (this.active.has(name)) continue;
      const disclosure = server.deferred ? 'deferred' : 'inline';
      const tool = new McpTool(name, server.name, definition, server.transport, this.manager, server.planMode);
      const result = this.registry.register(tool, { source: 'mcp', disclosure, owner: `mcp:${server.name}` });
      if (!result.ok) {
        refused.add(name);
        collisions.push({
          qualifiedName: name,
          server: server.name,
          tool: definition.name,
          collidesWith: { kind: 'other_source', source: result.conflict.existing.source, owner: result.conflict.existing.owner },
        });
        continue;
      }
      this.active.set(name, { info: { qualifiedName: name, server: server.name, tool: definition.name, disclosure, definition }, planMode: server.planMode, registration: result.registration });
      added.push(name);
    }
    this.refused = refused;
    this.collisionList = collisions;
    this.reportCollisions(collisions);
    if (added.length > 0 || removed.length > 0) {
      this.sortedTools = undefined;
      this.changeEmitter.fire({ added, removed });
    }
  }

  /** Each collision is reported once, when it appears. */
  private reportCollisions(collisions: readonly McpToolCollision[]): void {
    const current = new Set<string>();
    for (const collision of collisions) {
      const key = collisionKey(collision);
      current.add(key);
      if (this.reportedCollisions.has(key)) continue;
      this.warningEmitter.fire({ code: 'tool_collision', server: collision.server, tool: collision.tool, message: collisionMessage(collision), collision });
    }
    this.reportedCollisions = current;
  }

  /** Explains a call to an MCP name that is not registered (the executor asks before "not found"). */
  private describeMissing(name: string): string | undefined {
    if (!name.startsWith('mcp__')) return undefined;
    if (this.excluded.has(name)) return `Tool "${name}" is disabled by the active tool policy`;
    let best: McpServerStatus | undefined;
    let bestPrefix = '';
    for (const server of this.manager.servers) {
      if (server.state === 'ready') {
        const unusable = server.tools.find((t) => t.unusableReason !== undefined && qualifyMcpToolName(server.name, t.name) === name);
        if (unusable) return `Tool "${name}" (tool "${unusable.name}" of MCP server "${server.name}") is unavailable: ${unusable.unusableReason}. The server's other tools work.`;
      }
      const prefix = mcpServerToolPrefix(server.name);
      if (name.startsWith(prefix) && prefix.length > bestPrefix.length) {
        best = server;
        bestPrefix = prefix;
      }
    }
    if (!best || best.state === 'ready') return undefined;
    switch (best.state) {
      case 'connecting':
        return `Tool "${name}" is not available yet: MCP server "${best.name}" is still starting. Its tools appear when it is ready; try again shortly.`;
      case 'failed':
        return `Tool "${name}" is unavailable: MCP server "${best.name}" is not running (${best.error ?? 'it failed'}). Do not retry it; use another way.`;
      case 'disabled':
        return `Tool "${name}" is unavailable: MCP server "${best.name}" is disabled in the configuration.`;
      default:
        return `Tool "${name}" is unavailable: MCP server "${best.name}" has been shut down.`;
    }
  }

  @preDestroy()
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.disposables.dispose();
    for (const entry of this.active.values()) entry.registration.dispose();
    this.active.clear();
    this.sortedTools = undefined;
    this.warningEmitter.dispose();
    this.changeEmitter.dispose();
  }
}
