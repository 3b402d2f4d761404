import { createServiceId } from '../../di/serviceId';

/** Who asks to speak to the model between turns. */
export const PROMPT_INJECTION_ORIGINS = ['cron', 'task', 'notification'] as const;
export type PromptInjectionOrigin = (typeof PROMPT_INJECTION_ORIGINS)[number];

/** A prompt for the agent's model that no user typed (a cron fire, a finished task). */
export interface PromptInjectionRequest {
  readonly origin: PromptInjectionOrigin;
  /** What the delivery is about (a cron job's id): deliveries with the same origin and key coalesce. */
  readonly key: string;
  readonly text: string;
  /**
   * When a delivery with the same origin and key is still waiting (the agent is busy), merge this
   * one into it instead of queueing a second: the waiting delivery keeps its place and takes this
   * newer text, and the answer is `coalesced`.
   */
  readonly coalesce: boolean;
}

/**
 * `queued`: it will reach the model at the agent's next idle turn (or at once when idle).
 * `coalesced`: merged into a waiting delivery of the same key. `dropped`: the host will not deliver it.
 */
export type PromptInjectionResult = 'queued' | 'coalesced' | 'dropped';

/**
 * The host's queue of prompts for an agent's model (Agent scope; the host binds it, e.g.
 * `createAgent({ overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue(queue) })`).
 * Features that deliver later work (cron) are active only while one is bound.
 */
export interface IAgentPromptInjection {
  enqueue(request: PromptInjectionRequest): PromptInjectionResult | Promise<PromptInjectionResult>;
}
export const IAgentPromptInjection = createServiceId<IAgentPromptInjection>('AgentPromptInjection');

/** The default binding: no host takes prompts, so nothing is delivered (and features that need delivery stay inactive). */
export const NO_PROMPT_INJECTION: IAgentPromptInjection = Object.freeze({ enqueue: (): PromptInjectionResult => 'dropped' });

/** Whether a host took the port (anything but the default). */
export function hasPromptInjection(injection: IAgentPromptInjection): boolean {
  return injection !== NO_PROMPT_INJECTION;
}
