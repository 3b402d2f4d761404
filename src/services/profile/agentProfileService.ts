import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { DisposableStore } from '../../base/lifecycle';
import type { ToolPolicy } from '../../toolPolicy/evaluate';
import { IConfigService } from '../config/config';
import type { ToolhostConfig } from '../config/configSchema';
import { type AgentProfile, DEFAULT_PROFILE_NAME, type IAgentProfileService, IInitialProfile, ProfileError, type ProfileSelection } from './profile';

export function resolveProfile(selection: ProfileSelection | undefined, config: ToolhostConfig): AgentProfile {
  if (selection !== undefined && typeof selection !== 'string') return { policy: { ...selection } };
  const name = selection ?? config.profile ?? DEFAULT_PROFILE_NAME;
  const defined: ToolPolicy | undefined = config.profiles[name];
  if (defined) return { name, policy: defined };
  if (name === DEFAULT_PROFILE_NAME) return { name, policy: {} };
  const known = [DEFAULT_PROFILE_NAME, ...Object.keys(config.profiles).filter((n) => n !== DEFAULT_PROFILE_NAME)];
  throw new ProfileError(`Unknown profile "${name}". Known profiles: ${known.join(', ')}.`);
}

@injectable()
export class AgentProfileService implements IAgentProfileService {
  private current: AgentProfile;
  private selection: ProfileSelection | undefined;
  private readonly changed = new Emitter<AgentProfile>();
  private readonly disposables = new DisposableStore();
  readonly onDidChange = this.changed.event;

  constructor(
    @inject(IConfigService) private readonly configService: IConfigService,
    @inject(IInitialProfile) initial: ProfileSelection | undefined,
  ) {
    this.current = resolveProfile(initial, configService.config);
    this.selection = initial;
    this.disposables.add(configService.onDidChange((config) => this.onConfigChanged(config)));
  }

  get profile(): AgentProfile {
    return this.current;
  }

  set(selection: ProfileSelection): void {
    this.current = resolveProfile(selection, this.configService.config);
    this.selection = selection;
    this.changed.fire(this.current);
  }

  private onConfigChanged(config: ToolhostConfig): void {
    if (this.selection !== undefined && typeof this.selection !== 'string') return;
    let next: AgentProfile;
    try {
      next = resolveProfile(this.selection, config);
    } catch {
      // The profile was removed from the config: keep its last definition rather than fail open.
      return;
    }
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.changed.fire(next);
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
    this.changed.dispose();
  }
}
