import { inject, injectable, preDestroy } from 'inversify';
import { RerunUntilStable } from '../../base/rerunUntilStable';
import { errorMessage } from '../../base/errors';
import { Emitter } from '../../base/event';
import { DisposableStore, type IDisposable } from '../../base/lifecycle';
import type { AgentToolContribution, ServiceAccessor } from '../../di/toolContribution';
import { IAgentToolPolicyService } from '../toolPolicy/toolPolicy';
import type { ToolPolicyLayerName } from '../../toolPolicy/evaluate';
import { IAgentToolExecutorService } from '../executor/toolExecutor';
import { ISessionInteractionService } from '../interaction/interaction';
import { IAgentRuntimeService } from '../runtime/runtime';
import { IBuiltinToolAssemblyService } from '../toolAssembly/builtinToolAssembly';
import { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import {
  IAgentServiceAccessor,
  type IAgentToolActivationService,
  type ToolActivationFailure,
  type ToolActivationStatus,
} from './toolActivation';

const LAYER_REASONS: Record<ToolPolicyLayerName, string> = {
  workspace: 'disabled by the workspace',
  profile: 'excluded by the profile',
  config: 'excluded by config tools.enabled/tools.disabled',
  session: 'disabled for this session',
};

interface ActiveTool {
  readonly contribution: AgentToolContribution;
  readonly registration: IDisposable;
}

@injectable()
export class AgentToolActivationService implements IAgentToolActivationService {
  private readonly active = new Map<string, ActiveTool>();
  private readonly statuses = new Map<string, ToolActivationStatus>();
  private readonly disposables = new DisposableStore();
  private readonly failed = new Emitter<ToolActivationFailure>();
  readonly onDidFail = this.failed.event;
  private readonly computation = new RerunUntilStable(() => this.computeOnce());
  private disposed = false;
  /** The host whose availability events are followed; a host rebound later is picked up at the next computation. */
  private watchedHost: ISessionInteractionService | undefined;
  private hostWatch: IDisposable | undefined;

  constructor(
    @inject(IBuiltinToolAssemblyService) private readonly assembly: IBuiltinToolAssemblyService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentToolPolicyService) private readonly policy: IAgentToolPolicyService,
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
    @inject(IAgentToolExecutorService) executor: IAgentToolExecutorService,
  ) {
    const recompute = () => this.recompute();
    // A call to a builtin that exists but is inactive says so, instead of "not found".
    this.disposables.add(executor.addMissingToolDescriber((name) => this.describeInactive(name)));
    this.disposables.add(runtime.onDidChange(recompute));
    this.disposables.add(policy.onDidChange(recompute));
    // A name another source held may have been released: retry the tools that lost it.
    this.disposables.add(
      registry.onDidChange((change) => {
        if (change.removed.length > 0 && [...this.statuses.values()].some((s) => s.state === 'conflict')) this.recompute();
      }),
    );
  }

  recompute(): void {
    if (this.disposed) return;
    this.computation.run();
  }

  status(): readonly ToolActivationStatus[] {
    return this.assembly.contributions.map((c) => this.statuses.get(c.name) ?? { name: c.name, state: 'inactive', reason: 'not evaluated' });
  }

  private computeOnce(): void {
    this.watchHost();
    const contributions = this.assembly.contributions;
    const eligible = new Map<string, AgentToolContribution>();
    this.statuses.clear();
    for (const contribution of contributions) {
      const reason = this.ineligibility(contribution);
      if (reason === undefined) eligible.set(contribution.name, contribution);
      else this.statuses.set(contribution.name, { name: contribution.name, state: 'inactive', reason });
    }
    for (const [name, entry] of [...this.active]) {
      if (eligible.get(name) !== entry.contribution) {
        this.active.delete(name);
        entry.registration.dispose();
      }
    }
    for (const [name, contribution] of eligible) {
      if (this.active.has(name)) {
        this.statuses.set(name, { name, state: 'active' });
        continue;
      }
      this.activate(contribution);
    }
  }

  /** Follows the bound host's availability (`canRequest`), an input of `when` predicates like AskUserQuestion's. */
  private watchHost(): void {
    let host: ISessionInteractionService;
    try {
      host = this.services.get(ISessionInteractionService);
    } catch {
      return;
    }
    if (host === this.watchedHost) return;
    this.hostWatch?.dispose();
    this.watchedHost = host;
    this.hostWatch = host.onDidChangeAvailability?.(() => this.recompute());
  }

  private describeInactive(name: string): string | undefined {
    const status = this.statuses.get(name);
    if (!status || status.state === 'active') return undefined;
    return `Tool "${name}" exists but is not active (${status.reason ?? status.state}), so it cannot be called now; use another tool.`;
  }

  private ineligibility(contribution: AgentToolContribution): string | undefined {
    const missing = contribution.requiredRuntimeCapabilities.filter((c) => !this.runtime.has(c));
    if (missing.length > 0) return `the runtime "${this.runtime.current.name}" lacks ${missing.map((c) => `"${c}"`).join(', ')}`;
    const layer = this.policy.blockingLayer(contribution.name, 'builtin');
    if (layer) return LAYER_REASONS[layer];
    if (contribution.when) {
      let valid = true;
      const accessor: ServiceAccessor = {
        get: (id) => {
          if (!valid) throw new Error('A when() accessor is only valid while the predicate runs.');
          return this.services.get(id);
        },
      };
      try {
        if (!contribution.when(accessor)) return contribution.inactiveReason?.(accessor) ?? 'its when() condition is false';
      } catch (error) {
        const reason = `its when() condition threw: ${errorMessage(error)}`;
        this.failed.fire({ name: contribution.name, reason });
        return reason;
      } finally {
        valid = false;
      }
    }
    return undefined;
  }

  private activate(contribution: AgentToolContribution): void {
    const name = contribution.name;
    let tool;
    try {
      tool = this.services.get(contribution.id);
    } catch (error) {
      this.fail(name, `construction failed: ${errorMessage(error)}`);
      return;
    }
    if (tool.name !== name) {
      this.fail(name, `the tool calls itself "${tool.name}" but was contributed as "${name}"`);
      return;
    }
    const result = this.registry.register(tool, {
      source: 'builtin',
      disclosure: contribution.disclosure,
      owner: `builtin:${contribution.domain}`,
      ...(contribution.approval !== undefined ? { approval: contribution.approval } : {}),
    });
    if (!result.ok) {
      this.statuses.set(name, { name, state: 'conflict', reason: `the name is taken by ${result.conflict.existing.owner}` });
      return;
    }
    this.active.set(name, { contribution, registration: result.registration });
    this.statuses.set(name, { name, state: 'active' });
  }

  private fail(name: string, reason: string): void {
    this.statuses.set(name, { name, state: 'failed', reason });
    this.failed.fire({ name, reason });
  }

  @preDestroy()
  dispose(): void {
    this.disposed = true;
    this.disposables.dispose();
    this.hostWatch?.dispose();
    for (const entry of this.active.values()) entry.registration.dispose();
    this.active.clear();
    this.failed.dispose();
  }
}
