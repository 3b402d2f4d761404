import { injectable } from 'inversify';
import { z } from 'zod';
import { createServiceId } from '../../src/di/serviceId';
import { type AgentToolContribution, type AgentToolContributionOptions, registerAgentToolService } from '../../src/di/toolContribution';
import { ToolAccesses } from '../../src/tool/accesses';
import type { ExecutableTool, JsonSchema, ToolExecution } from '../../src/tool/contract';
import { toInputJsonSchema } from '../../src/tool/inputSchema';

/** How many times each fake tool class was constructed, by tool name. */
export const constructions = new Map<string, number>();

export function constructionCount(name: string): number {
  return constructions.get(name) ?? 0;
}

const EchoSchema = z.object({ text: z.string() });

/**
 * A tool contribution whose class counts its constructions. Each call makes a new class, so
 * counts never leak between tests that use different names.
 */
export function countingTool(
  name: string,
  options: Partial<AgentToolContributionOptions> = {},
): AgentToolContribution {
  @injectable()
  class CountingTool implements ExecutableTool<{ text: string }> {
    readonly name = name;
    readonly description = `Echoes text (${name}).`;
    readonly parameters: JsonSchema = toInputJsonSchema(EchoSchema);
    constructor() {
      constructions.set(name, constructionCount(name) + 1);
    }
    resolveExecution(input: { text: string }): ToolExecution {
      return {
        accesses: ToolAccesses.none(),
        approvalRule: name,
        execute: async () => ({ output: `${name}: ${input.text}` }),
      };
    }
  }
  return registerAgentToolService(createServiceId<CountingTool>(`test.${name}.${Math.random()}`), CountingTool, {
    name,
    domain: 'test',
    requiredRuntimeCapabilities: [],
    ...options,
  });
}
