import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { DisposableStore } from '../../base/lifecycle';
import { IConfigService } from '../config/config';
import { IBuiltinToolAssemblyService } from '../toolAssembly/builtinToolAssembly';
import { IAgentProfileService } from '../profile/profile';
import { IAgentWorkspaceService } from '../workspace/workspace';
import type { ToolSource } from '../../tool/contract';
import { findBlockingToolPolicyLayer, type ToolPolicyLayerName, type ToolPolicyLayers, type ToolPolicyOptions } from '../../toolPolicy/evaluate';
import type { IAgentToolPolicyService } from './toolPolicy';

@injectable()
export class AgentToolPolicyService implements IAgentToolPolicyService {
  private sessionDisabled: readonly string[] = [];
  private readonly changed = new Emitter<void>();
  private readonly disposables = new DisposableStore();
  readonly onDidChange = this.changed.event;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentProfileService) private readonly profile: IAgentProfileService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IBuiltinToolAssemblyService) private readonly assembly: IBuiltinToolAssemblyService,
  ) {
    const fire = () => this.changed.fire();
    this.disposables.add(config.onDidChange(fire));
    this.disposables.add(profile.onDidChange(fire));
    this.disposables.add(workspace.onDidChangeDisabledTools(fire));
  }

  get layers(): ToolPolicyLayers {
    return {
      workspaceDisabledTools: this.workspace.disabledTools,
      profile: this.profile.profile.policy,
      config: this.config.config.tools,
      sessionDisabledTools: this.sessionDisabled,
    };
  }

  get sessionDisabledTools(): readonly string[] {
    return this.sessionDisabled;
  }

  isToolActive(name: string, source: ToolSource = 'builtin', options?: ToolPolicyOptions): boolean {
    return this.blockingLayer(name, source, options) === undefined;
  }

  blockingLayer(name: string, source: ToolSource = 'builtin', options: ToolPolicyOptions = {}): ToolPolicyLayerName | undefined {
    // The one rule for meta-tools: a builtin contributed as exempt skips the allowlists everywhere.
    const exempt = source === 'builtin' && this.assembly.get(name)?.exemptFromAllowlists === true;
    return findBlockingToolPolicyLayer(this.layers, name, source, exempt ? { ...options, ignoreAllowlists: true } : options);
  }

  setSessionDisabledTools(names: readonly string[]): void {
    this.sessionDisabled = [...new Set(names)];
    this.changed.fire();
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
    this.changed.dispose();
  }
}
