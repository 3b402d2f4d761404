import { z } from 'zod';

export const AGENT_SWARM_TOOL_NAME = 'AgentSwarm';
export const ITEM_PLACEHOLDER = '{{item}}';
export const MAX_ITEM_CHARS = 2_000;

/** What the schema offers besides the profiles: isolation only where a worktree can be made. */
export interface AgentSwarmSchemaOptions {
  readonly profiles: readonly string[];
  readonly worktree: boolean;
}

export function createAgentSwarmInputSchema(options: AgentSwarmSchemaOptions) {
  const names = options.profiles as [string, ...string[]];
  return z.strictObject({
    description: z.string().min(3).max(80).describe('A short (3–80 characters) summary of the whole swarm, e.g. "Review each route handler"; it labels the subagents\' requests.'),
    subagent_type: z.enum(names).describe(`The profile every subagent of the swarm runs: one of ${names.join(', ')}.`),
    prompt_template: z.string().min(1).describe(`The brief for each subagent, with ${ITEM_PLACEHOLDER} where its item goes. The subagents see none of your conversation.`),
    items: z.array(z.string().min(1).max(MAX_ITEM_CHARS)).min(2).describe(`The items, one subagent each (2 up to swarm.maxItems, each 1–${MAX_ITEM_CHARS} characters, all different).`),
    max_concurrency: z.number().int().min(1).optional().describe('Subagents running at once (default 8, at most swarm.maxConcurrency).'),
    ...(options.worktree ? { isolation: z.enum(['none', 'worktree']).optional().describe('worktree: each subagent works in its own new git worktree of this repository (removed afterwards if it changed nothing).') } : {}),
  });
}

/** The input as the tool reads it (the optional properties of every variant). */
export interface AgentSwarmInput {
  readonly description: string;
  readonly subagent_type: string;
  readonly prompt_template: string;
  readonly items: readonly string[];
  readonly max_concurrency?: number;
  readonly isolation?: 'none' | 'worktree';
}

export const AGENT_SWARM_SAMPLES: readonly unknown[] = [
  {
    description: 'Summarise each package',
    subagent_type: 'explore',
    prompt_template: 'Read the package in {{item}} and report in five lines what it does and what it depends on.',
    items: ['packages/core', 'packages/cli', 'packages/web'],
    max_concurrency: 3,
  },
];
