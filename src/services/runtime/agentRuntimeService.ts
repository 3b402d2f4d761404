import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import type { RuntimeCapability } from '../../di/toolContribution';
import { type IAgentRuntimeService, IInitialRuntime, type Runtime, type RuntimeFs, type RuntimeProcess } from './runtime';

@injectable()
export class AgentRuntimeService implements IAgentRuntimeService {
  private runtime: Runtime;
  private gen = 0;
  private readonly changed = new Emitter<Runtime>();
  readonly onDidChange = this.changed.event;

  constructor(@inject(IInitialRuntime) initial: Runtime) {
    this.runtime = initial;
  }

  get current(): Runtime {
    return this.runtime;
  }

  get generation(): number {
    return this.gen;
  }

  has(capability: RuntimeCapability): boolean {
    return this.runtime.capabilities.includes(capability);
  }

  isAvailable(capabilities: readonly RuntimeCapability[]): boolean {
    return capabilities.every((c) => this.has(c));
  }

  requireFs(): RuntimeFs {
    if (!this.has('fs') || !this.runtime.fs) throw new Error(`The runtime "${this.runtime.name}" has no file system.`);
    return this.runtime.fs;
  }

  requireProcess(): RuntimeProcess {
    if (!this.has('process') || !this.runtime.process) throw new Error(`The runtime "${this.runtime.name}" cannot run processes.`);
    return this.runtime.process;
  }

  switch(runtime: Runtime): void {
    this.runtime = runtime;
    this.gen++;
    this.changed.fire(runtime);
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
  }
}
