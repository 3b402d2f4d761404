import type { ScopedAgent } from '../../services/agentFactory/agentFactory';
import { IAgentToolSelectService } from '../../services/toolSelect/toolSelect';
import type { AgentHandle } from './contract';

export interface AgentHandleInfo {
  readonly parentAgentId: string;
  readonly depth: number;
  readonly description: string;
  readonly cwd: string;
}

/** The runner's view of a child agent: its model-facing tools, its executor and events. */
export function createAgentHandle(child: ScopedAgent, info: AgentHandleInfo): AgentHandle {
  const executor = child.executor;
  const select = child.get(IAgentToolSelectService);
  return {
    agentId: child.id,
    ...info,
    modelTools: () => child.modelTools(),
    execute: (calls, options) =>
      child.isDisposed ? Promise.reject(new Error(`Subagent ${child.id} has ended; its tools no longer run.`)) : executor.execute(calls, options),
    events: {
      onToolCallStarted: executor.onToolCallStarted,
      onToolProgress: executor.onToolProgress,
      onToolCallFinished: executor.onToolCallFinished,
      onDidChangeModelTools: select.onDidChangeModelTools,
    },
    dispose: () => child.dispose(),
    get isDisposed() {
      return child.isDisposed;
    },
  };
}
