import { injectable } from 'inversify';
import { z } from 'zod';
import { createServiceId } from '../../src/di/serviceId';
import { type AgentToolContribution, registerAgentToolService } from '../../src/di/toolContribution';
import type { ToolAccesses } from '../../src/tool/accesses';
import type { ExecutableTool, JsonSchema, ToolExecution, ToolExecutionContext, ToolResult } from '../../src/tool/contract';
import { toInputJsonSchema } from '../../src/tool/inputSchema';

export interface TestToolBehaviour<I> {
  readonly schema?: z.ZodType;
  readonly accesses?: (input: I) => ToolAccesses | undefined;
  readonly execute?: (input: I, ctx: ToolExecutionContext) => Promise<ToolResult> | ToolResult;
  /** Replaces resolveExecution entirely. */
  readonly resolve?: (input: I) => ToolExecution | Promise<ToolExecution>;
  readonly stopBatchAfterThis?: (input: I) => boolean;
  readonly approvalRule?: (input: I) => string;
}

const DefaultSchema = z.object({ id: z.string().optional(), path: z.string().optional() });

/** A tool whose behaviour is given by closures, for executor tests. */
export function testTool<I = { id?: string; path?: string }>(name: string, behaviour: TestToolBehaviour<I> = {}): AgentToolContribution {
  const parameters = toInputJsonSchema(behaviour.schema ?? DefaultSchema);
  @injectable()
  class TestTool implements ExecutableTool<I> {
    readonly name = name;
    readonly description = `Test tool ${name}.`;
    readonly parameters: JsonSchema = parameters;
    resolveExecution(input: I): ToolExecution | Promise<ToolExecution> {
      if (behaviour.resolve) return behaviour.resolve(input);
      const accesses = behaviour.accesses?.(input);
      return {
        ...(accesses ? { accesses } : {}),
        ...(behaviour.stopBatchAfterThis?.(input) ? { stopBatchAfterThis: true } : {}),
        description: `${name} ${JSON.stringify(input)}`,
        approvalRule: behaviour.approvalRule?.(input) ?? name,
        execute: async (ctx) => (behaviour.execute ? behaviour.execute(input, ctx) : { output: `${name} done` }),
      };
    }
  }
  return registerAgentToolService(createServiceId<TestTool>(`test.tool.${name}.${Math.random()}`), TestTool, {
    name,
    domain: 'test',
    requiredRuntimeCapabilities: [],
  });
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls until `check` holds (for events produced by real processes); fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
