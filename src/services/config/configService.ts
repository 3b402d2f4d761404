import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import type { IConfigService } from './config';
import { IInitialConfig } from './config';
import { parseConfig } from './configLoader';
import type { ToolhostConfig, ToolhostConfigInput } from './configSchema';

@injectable()
export class ConfigService implements IConfigService {
  private current: ToolhostConfig;
  private readonly changed = new Emitter<ToolhostConfig>();
  readonly onDidChange = this.changed.event;

  constructor(@inject(IInitialConfig) initial: ToolhostConfig) {
    this.current = initial;
  }

  get config(): ToolhostConfig {
    return this.current;
  }

  replace(input: ToolhostConfigInput): void {
    this.current = parseConfig(input);
    this.changed.fire(this.current);
  }

  update(sections: Partial<ToolhostConfigInput>): void {
    this.replace({ ...this.current, ...sections } as ToolhostConfigInput);
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
  }
}
