import type { Event } from '../../base/event';
import { toDisposable } from '../../base/lifecycle';
import type { ScopedAgent } from '../../services/agentFactory/agentFactory';
import type { IAgentToolExecutorService } from '../../services/executor/toolExecutor';
import { IAgentToolSelectService } from '../../services/toolSelect/toolSelect';
import type { AgentHandle } from './contract';

export interface AgentHandleInfo {
  readonly parentAgentId: string;
  readonly depth: number;
  readonly description: string;
  readonly cwd: string;
}

/**
 * The runner's view of a child agent: its model-facing tools, its executor and events.
 * A runner (or a host logging runs) may keep the handle after the run: `release()`, called once
 * the child is disposed, makes the handle let go of it, so a kept handle does not keep the
 * child's container alive.
 */
export function createAgentHandle(child: ScopedAgent, info: AgentHandleInfo): { readonly handle: AgentHandle; release(): void } {
  const agentId = child.id;
  let live: ScopedAgent | undefined = child;
  const current = (): ScopedAgent | undefined => {
    if (live?.isDisposed) live = undefined;
    return live;
  };
  const ended = () => new Error(`Subagent ${agentId} has ended; its tools no longer run.`);
  const executorEvent = <T>(pick: (executor: IAgentToolExecutorService) => Event<T>): Event<T> => (listener) => {
    const agent = current();
    return agent ? pick(agent.executor)(listener) : toDisposable(() => undefined);
  };
  const handle: AgentHandle = {
    agentId,
    ...info,
    modelTools: () => current()?.modelTools() ?? [],
    execute: (calls, options) => {
      const agent = current();
      return agent ? agent.executor.execute(calls, options) : Promise.reject(ended());
    },
    events: {
      onToolCallStarted: executorEvent((executor) => executor.onToolCallStarted),
      onToolProgress: executorEvent((executor) => executor.onToolProgress),
      onToolCallFinished: executorEvent((executor) => executor.onToolCallFinished),
      onDidChangeModelTools: (listener) => {
        const agent = current();
        return agent ? agent.get(IAgentToolSelectService).onDidChangeModelTools(listener) : toDisposable(() => undefined);
      },
    },
    dispose: async () => {
      const agent = live;
      live = undefined;
      await agent?.dispose();
    },
    get isDisposed() {
      return current() === undefined;
    },
  };
  return {
    handle,
    release: () => {
      live = undefined;
    },
  };
}
