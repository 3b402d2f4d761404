import { injectable } from 'inversify';
import { z } from 'zod';
import { createServiceId } from '../../src/di/serviceId';
import { type AgentToolContribution, type AgentToolContributionOptions, registerAgentToolService } from '../../src/di/toolContribution';
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
  /** Count the constructions of the tool's class, read with constructionCount(name). */
  readonly countConstructions?: boolean;
  /** Registration metadata; default no runtime capability, no condition, inline. */
  readonly requiredRuntimeCapabilities?: AgentToolContributionOptions['requiredRuntimeCapabilities'];
  readonly when?: AgentToolContributionOptions['when'];
  readonly disclosure?: AgentToolContributionOptions['disclosure'];
  /** The contribution's approval default (a tool that declares no accesses asks without `auto`). */
  readonly approval?: AgentToolContributionOptions['approval'];
}

const DefaultSchema = z.object({ id: z.string().optional(), path: z.string().optional() });

/** How many times each counted test tool class was constructed, by tool name. */
const constructions = new Map<string, number>();

export function constructionCount(name: string): number {
  return constructions.get(name) ?? 0;
}

/**
 * A tool contribution whose behaviour is given by closures. Each call makes a new class, so
 * construction counts never leak between tests that use different names.
 */
export function testTool<I = { id?: string; path?: string }>(name: string, behaviour: TestToolBehaviour<I> = {}): AgentToolContribution {
  const parameters = toInputJsonSchema(behaviour.schema ?? DefaultSchema);
  @injectable()
  class TestTool implements ExecutableTool<I> {
    readonly name = name;
    readonly description = `Test tool ${name}.`;
    readonly parameters: JsonSchema = parameters;
    constructor() {
      if (behaviour.countConstructions) constructions.set(name, constructionCount(name) + 1);
    }
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
    requiredRuntimeCapabilities: behaviour.requiredRuntimeCapabilities ?? [],
    ...(behaviour.when ? { when: behaviour.when } : {}),
    ...(behaviour.disclosure ? { disclosure: behaviour.disclosure } : {}),
    ...(behaviour.approval ? { approval: behaviour.approval } : {}),
  });
}
