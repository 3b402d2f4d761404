import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { RuntimeCapability } from '../../di/toolContribution';

import type { RuntimeFs } from '../../base/fs/runtimeFs';

export type { RuntimeFs };

/** Where tools run: the local machine, or something a host plugs in. */
export interface Runtime {
  readonly name: string;
  readonly capabilities: readonly RuntimeCapability[];
  /** Present when `fs` is among the capabilities. */
  readonly fs?: RuntimeFs;
}

/** The agent's current runtime (Agent scope). It can be switched while the agent lives. */
export interface IAgentRuntimeService {
  readonly current: Runtime;
  /** Increases on every switch; a call resolved under one generation refuses to run under another. */
  readonly generation: number;
  has(capability: RuntimeCapability): boolean;
  isAvailable(capabilities: readonly RuntimeCapability[]): boolean;
  /** The runtime's fs; throws when the runtime has no `fs` capability. */
  requireFs(): RuntimeFs;
  switch(runtime: Runtime): void;
  readonly onDidChange: Event<Runtime>;
}
export const IAgentRuntimeService = createServiceId<IAgentRuntimeService>('AgentRuntimeService');

/** The runtime an agent starts with (bound as a constant by the Agent scope). */
export const IInitialRuntime = createServiceId<Runtime>('InitialRuntime');
