import { z } from 'zod';

export const AGENT_TOOL_NAME = 'Agent';

/** What the schema offers besides the profiles: each only where it can work. */
export interface AgentSchemaOptions {
  readonly profiles: readonly string[];
  readonly background: boolean;
  readonly worktree: boolean;
}

export function createAgentInputSchema(options: AgentSchemaOptions) {
  const names = options.profiles as [string, ...string[]];
  return z.strictObject({
    description: z.string().min(3).max(80).describe('A short (3–80 characters) summary of the task, e.g. "Find the config loader"; it labels the subagent\'s requests.'),
    prompt: z.string().min(1).describe('The complete brief for the subagent: it sees none of your conversation.'),
    subagent_type: z.enum(names).optional().describe(`The profile to start: one of ${names.join(', ')}. Leave it out with resume.`),
    resume: z.string().min(1).optional().describe('The agent id of a subagent of yours that finished, to continue it with `prompt`.'),
    ...(options.background ? { run_in_background: z.boolean().optional().describe('Start it as a background task and return at once; WaitFor or TaskOutput get its result.') } : {}),
    ...(options.worktree ? { isolation: z.enum(['none', 'worktree']).optional().describe('worktree: the subagent works in a new git worktree of this repository (removed afterwards if it changed nothing).') } : {}),
  });
}

/** The input as the tool reads it (the optional properties of every variant). */
export interface AgentInput {
  readonly description: string;
  readonly prompt: string;
  readonly subagent_type?: string;
  readonly resume?: string;
  readonly run_in_background?: boolean;
  readonly isolation?: 'none' | 'worktree';
}

export const AGENT_SAMPLES: readonly unknown[] = [
  { description: 'Find the config loader', prompt: 'Find where toolhost.json is loaded and report the function names.', subagent_type: 'explore' },
  { description: 'Fix the typo', prompt: 'Fix the typo "recieve" in README.md.', subagent_type: 'general' },
];
