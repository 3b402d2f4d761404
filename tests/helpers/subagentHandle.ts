import type { Agent } from '../../src/scopes/agentScope';
import type { AgentHandle, SubagentProfile, SubagentRunEvent, SubagentRunRequest } from '../../src/tools/agent/contract';

/** An AgentHandle over a plain agent: what a runner needs, without the Agent tool that builds real children. */
export function handleOf(agent: Agent, cwd: string): AgentHandle {
  return {
    agentId: agent.id,
    parentAgentId: 'agent-0',
    depth: 1,
    description: 'test child',
    cwd,
    modelTools: () => agent.modelTools(),
    execute: (calls, options) => agent.executor.execute(calls, options),
    events: {
      onToolCallStarted: agent.executor.onToolCallStarted,
      onToolProgress: agent.executor.onToolProgress,
      onToolCallFinished: agent.executor.onToolCallFinished,
      onDidChangeModelTools: () => ({ dispose: () => undefined }),
    },
    dispose: () => agent.dispose(),
    get isDisposed() {
      return agent.isDisposed;
    },
  };
}

export interface RunRequestOptions {
  readonly prompt?: string;
  readonly profile?: Partial<SubagentProfile>;
  readonly signal?: AbortSignal;
  readonly events?: SubagentRunEvent[];
  readonly resumeFrom?: SubagentRunRequest['resumeFrom'];
}

/** A run request for `agent` as its child; events are pushed to `options.events`. */
export function runRequest(agent: Agent, cwd: string, options: RunRequestOptions = {}): SubagentRunRequest {
  const events = options.events ?? [];
  return {
    child: handleOf(agent, cwd),
    prompt: options.prompt ?? 'look around',
    profile: { name: 'general', description: 'writes', readOnly: false, maxTurns: 10, ...options.profile },
    signal: options.signal ?? new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...(options.resumeFrom !== undefined ? { resumeFrom: options.resumeFrom } : {}),
  };
}
