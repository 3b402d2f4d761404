import type { Agent } from '../../src/scopes/agentScope';
import { PathSecurityError } from '../../src/tool/pathAccess';
import type { ToolResult } from '../../src/tool/contract';

/**
 * Resolves and executes one tool call directly (no executor): what a tool does on its own.
 * A PathSecurityError from resolveExecution becomes an error result with its message, as the
 * executor would show it.
 */
export async function callTool(agent: Agent, name: string, input: unknown, signal = new AbortController().signal): Promise<ToolResult> {
  const registration = agent.registry.get(name);
  if (!registration) throw new Error(`Tool ${name} is not active`);
  let execution;
  try {
    execution = await registration.tool.resolveExecution(input as never);
  } catch (error) {
    if (error instanceof PathSecurityError) return { output: error.message, isError: true };
    throw error;
  }
  if (execution.isError) return execution;
  return execution.execute({ toolCallId: 'call_test', signal, onUpdate: () => undefined, metadata: {} });
}

export function text(result: ToolResult): string {
  if (typeof result.output !== 'string') throw new Error('expected text output');
  return result.output;
}
