import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { type IAgentModelService, IInitialModelCapabilities, type ModelCapability } from './model';

@injectable()
export class AgentModelService implements IAgentModelService {
  private current: ReadonlySet<ModelCapability>;
  private readonly changed = new Emitter<ReadonlySet<ModelCapability>>();
  readonly onDidChange = this.changed.event;

  constructor(@inject(IInitialModelCapabilities) initial: readonly ModelCapability[]) {
    this.current = new Set(initial);
  }

  get capabilities(): ReadonlySet<ModelCapability> {
    return this.current;
  }

  has(capability: ModelCapability): boolean {
    return this.current.has(capability);
  }

  setCapabilities(capabilities: readonly ModelCapability[]): void {
    const next = new Set(capabilities);
    if (next.size === this.current.size && [...next].every((c) => this.current.has(c))) return;
    this.current = next;
    this.changed.fire(next);
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
  }
}
