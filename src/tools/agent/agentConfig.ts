import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

const SubagentProfileConfigSchema = z.strictObject({
  description: z.string().min(1).describe('What the profile is for; the parent model reads it in the Agent tool description.'),
  tools: z.array(z.string().min(1)).optional().describe('Allowlist of the child\'s tools (default: every tool the child may have).'),
  disallowedTools: z.array(z.string().min(1)).optional().describe('Tools the child never gets.'),
  instructions: z.string().optional().describe('The system prompt the runner gives the child model.'),
  model: z.string().min(1).optional().describe('A model the runner should use for this profile.'),
  maxTurns: z.number().int().min(1).optional().describe('Model turns the child may take (default agent.maxTurns).'),
});
export type SubagentProfileConfig = z.output<typeof SubagentProfileConfigSchema>;

export const PROFILE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** The profiles every App has; config `agent.profiles` adds to them or replaces one by name. */
export const DEFAULT_SUBAGENT_PROFILES: Readonly<Record<string, SubagentProfileConfig>> = {
  explore: {
    description: 'Read-only: finds files, reads and searches code, and reports what it found. It never writes, so it runs beside your own reads.',
    tools: ['Read', 'Glob', 'Grep'],
    instructions: 'You explore a code base to answer a question. Use Glob, Grep and Read; you cannot change files. End with a concise answer that names the files and lines that matter.',
  },
  general: {
    description: 'General-purpose: reads, edits and writes files and runs commands to carry out a task, then reports what it changed.',
    instructions: 'You carry out a task in a code base with the tools you have. Work carefully; end with a concise report of what you did and which files you changed.',
  },
};

export const AgentConfigSchema = z.strictObject({
  maxDepth: z.number().int().min(1).max(8).default(1).describe('How deep subagents nest: 1 means subagents cannot start subagents.'),
  timeoutS: z.number().int().min(1).default(3_600).describe('A subagent is aborted after this many seconds.'),
  maxResultChars: z.number().int().min(1_000).max(45_000).default(20_000).describe('Characters of the child\'s final text the Agent result keeps.'),
  maxTurns: z.number().int().min(1).default(50).describe('Model turns a subagent may take unless its profile says otherwise.'),
  profiles: z
    .record(z.string().regex(PROFILE_NAME_PATTERN, 'a profile name is lowercase letters, digits and "-", starting with a letter'), SubagentProfileConfigSchema)
    .default({})
    .describe('Subagent profiles by name, added to (or replacing) the builtin explore and general.'),
});

export const agentConfig = defineConfigSection('agent', AgentConfigSchema.prefault({}));
export type AgentConfig = z.output<typeof AgentConfigSchema>;
