import { inject, injectable, preDestroy } from 'inversify';
import { IConfigService } from '../../../services/config/config';
import { IAgentOptions, type AgentOptions } from '../../../services/workspace/workspace';
import type { ICronTrigger, ICronTriggerFactory } from '../../cron/contract';
import { IScaleRedis } from '../contract';
import { loadBullmq } from '../jobs/bullmqModule';
import { bullQueuePrefix, scaleConfig } from '../scaleConfig';
import { QueueCronTrigger } from './queueCronTrigger';

/** Fires the agent's cron jobs from BullMQ job schedulers when `scale.jobs.cron` is "queue". */
@injectable()
export class QueueCronTriggerFactory implements ICronTriggerFactory {
  private trigger?: QueueCronTrigger;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentOptions) private readonly agent: AgentOptions,
    @inject(IScaleRedis) private readonly redis: IScaleRedis,
  ) {}

  create(): ICronTrigger | undefined {
    const scale = this.config.section(scaleConfig);
    if (scale.jobs.cron !== 'queue' || !this.redis.enabled) return undefined;
    const bullmq = loadBullmq();
    this.trigger = new QueueCronTrigger({
      agentId: this.agent.id,
      queuePrefix: bullQueuePrefix(this.redis.keyPrefix),
      bullmq,
      connection: this.redis.connection(),
      openWorkerConnection: () => this.redis.openConnection({ maxRetriesPerRequest: null }),
      lockDurationMs: scale.jobs.lockDurationMs,
      stalledIntervalMs: scale.jobs.stalledIntervalMs,
    });
    return this.trigger;
  }

  @preDestroy()
  async dispose(): Promise<void> {
    await this.trigger?.dispose();
  }
}
