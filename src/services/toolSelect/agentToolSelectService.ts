import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { DisposableStore } from '../../base/lifecycle';
import { IAgentToolPolicyService } from '../toolPolicy/toolPolicy';
import { IAppEnvironment, type AppEnvironment, TOOL_SELECT_FLAG, isFlagOn } from '../environment/environment';
import { IAgentToolExecutorService } from '../executor/toolExecutor';
import { IAgentModelService } from '../model/model';
import { IAgentToolActivationService } from '../toolActivation/toolActivation';
import { IAgentToolRegistryService, type ToolRegistration } from '../toolRegistry/toolRegistry';
import {
  DYNAMICALLY_LOADED_TOOLS_CAPABILITY,
  type IAgentToolSelectService,
  type LoadOutcome,
  type ModelToolInfo,
  SELECT_TOOLS_NAME,
} from './toolSelect';

export const ANNOUNCEMENT_GUIDANCE =
  'Use the select_tools tool with exact names to load full tool definitions before calling them. ' +
  'Names listed as removed are no longer loadable — do not select them.';

@injectable()
export class AgentToolSelectService implements IAgentToolSelectService {
  private readonly loaded = new Set<string>();
  private announced = new Set<string>();
  private lastEnabled: boolean;
  private readonly enabledChanged = new Emitter<boolean>();
  private readonly modelToolsChanged = new Emitter<void>();
  private readonly disposables = new DisposableStore();
  readonly onDidChangeEnabled = this.enabledChanged.event;
  readonly onDidChangeModelTools = this.modelToolsChanged.event;

  constructor(
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentToolPolicyService) private readonly policy: IAgentToolPolicyService,
    @inject(IAgentModelService) private readonly model: IAgentModelService,
    @inject(IAppEnvironment) private readonly env: AppEnvironment,
    @inject(IAgentToolActivationService) activation: IAgentToolActivationService,
    @inject(IAgentToolExecutorService) executor: IAgentToolExecutorService,
  ) {
    this.lastEnabled = this.enabled;
    this.disposables.add(
      model.onDidChange(() => {
        const now = this.enabled;
        if (now === this.lastEnabled) return;
        this.lastEnabled = now;
        // select_tools' own activation depends on the gate.
        activation.recompute();
        this.enabledChanged.fire(now);
        this.modelToolsChanged.fire();
      }),
    );
    this.disposables.add(registry.onDidChange(() => this.modelToolsChanged.fire()));
    this.disposables.add(policy.onDidChange(() => this.modelToolsChanged.fire()));
    this.disposables.add(
      executor.addToolCallGuard(({ name }) => {
        if (!this.enabled) return undefined;
        const registration = this.registry.get(name);
        if (registration?.disclosure !== 'deferred' || this.loaded.has(name)) return undefined;
        return `Tool "${name}" is available but not loaded. Call select_tools with ["${name}"] first, then call the tool.`;
      }),
    );
  }

  get enabled(): boolean {
    return isFlagOn(this.env, TOOL_SELECT_FLAG) && this.model.has(DYNAMICALLY_LOADED_TOOLS_CAPABILITY);
  }

  private isActive(registration: ToolRegistration): boolean {
    return this.policy.isToolActive(registration.tool.name, registration.source);
  }

  modelTools(): ModelToolInfo[] {
    const enabled = this.enabled;
    const tools: ModelToolInfo[] = [];
    for (const registration of this.registry.list()) {
      if (!this.isActive(registration)) continue;
      const name = registration.tool.name;
      if (enabled && registration.disclosure === 'deferred' && !this.loaded.has(name)) continue;
      if (!enabled && name === SELECT_TOOLS_NAME) continue;
      tools.push({
        name,
        description: registration.tool.description,
        parameters: registration.tool.parameters,
        source: registration.source,
        disclosure: registration.disclosure,
      });
    }
    return tools;
  }

  loadableTools(): string[] {
    if (!this.enabled) return [];
    return this.registry
      .list()
      .filter((r) => r.disclosure === 'deferred' && this.isActive(r))
      .map((r) => r.tool.name);
  }

  isLoaded(name: string): boolean {
    return this.loaded.has(name);
  }

  load(names: readonly string[]): LoadOutcome {
    const loaded: string[] = [];
    const alreadyAvailable: string[] = [];
    const unknown: string[] = [];
    const loadable = new Set(this.loadableTools());
    for (const name of new Set(names)) {
      const registration = this.registry.get(name);
      const active = registration !== undefined && this.isActive(registration);
      if (loadable.has(name)) {
        if (this.loaded.has(name)) alreadyAvailable.push(name);
        else {
          this.loaded.add(name);
          loaded.push(name);
        }
      } else if (active && name !== SELECT_TOOLS_NAME) {
        alreadyAvailable.push(name);
      } else {
        unknown.push(name);
      }
    }
    if (loaded.length > 0) this.modelToolsChanged.fire();
    return { loaded, alreadyAvailable, unknown };
  }

  takeAnnouncement(): string | undefined {
    const loadable = new Set(this.loadableTools());
    const added = [...loadable].filter((n) => !this.announced.has(n)).sort();
    const removed = [...this.announced].filter((n) => !loadable.has(n)).sort();
    this.announced = loadable;
    if (added.length === 0 && removed.length === 0) return undefined;
    const blocks: string[] = [];
    if (added.length > 0) blocks.push(`<tools_added>\n${added.join('\n')}\n</tools_added>`);
    if (removed.length > 0) blocks.push(`<tools_removed>\n${removed.join('\n')}\n</tools_removed>`);
    return `${blocks.join('\n\n')}\n\n${ANNOUNCEMENT_GUIDANCE}`;
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
    this.enabledChanged.dispose();
    this.modelToolsChanged.dispose();
  }
}
