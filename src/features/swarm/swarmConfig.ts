import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

export const SwarmConfigSchema = z.strictObject({
  maxItems: z.number().int().min(2).max(256).default(64).describe('The most items one AgentSwarm call takes.'),
  maxConcurrency: z.number().int().min(1).max(64).default(16).describe('The highest max_concurrency a call may ask for (children of one swarm running at once).'),
  maxResultCharsPerItem: z.number().int().min(200).max(20_000).default(4_000).describe('Characters of each child\'s final text the result keeps; the whole text is saved in the child\'s data folder.'),
  rateLimitRetries: z.number().int().min(0).max(10).default(3).describe('How often an item the provider rate-limited (the runner returned retryAfterMs) is started again, after the wait.'),
});

export const swarmConfig = defineConfigSection('swarm', SwarmConfigSchema.prefault({}));
export type SwarmConfig = z.output<typeof SwarmConfigSchema>;

/** max_concurrency when the call gives none (never above swarm.maxConcurrency). */
export const DEFAULT_SWARM_CONCURRENCY = 8;
