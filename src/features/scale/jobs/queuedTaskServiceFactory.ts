import { inject, injectable, preDestroy } from 'inversify';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { IConfigService } from '../../../services/config/config';
import { IAgentOptions, type AgentOptions } from '../../../services/workspace/workspace';
import { bashConfig } from '../../../tools/os/contract';
import { type IAgentTaskService, type IAgentTaskServiceFactory, tasksConfig } from '../../../tools/task/contract';
import { openRedisConnection } from '../redisConnection';
import { scaleConfig } from '../scaleConfig';
import { loadBullmq } from './bullmqModule';
import { QueuedTaskService } from './queuedTaskService';
import { type TaskJobData, taskKeys } from './taskRecords';

/** Replaces the agent's task service with the queued one when `scale.jobs.backgroundTasks` is "queue". */
@injectable()
export class QueuedTaskServiceFactory implements IAgentTaskServiceFactory {
  private service?: QueuedTaskService;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentOptions) private readonly agent: AgentOptions,
  ) {}

  create(local: IAgentTaskService): IAgentTaskService | undefined {
    const scale = this.config.section(scaleConfig);
    const url = scale.redis.url;
    if (scale.jobs.backgroundTasks !== 'queue' || url === undefined) return undefined;
    const { Queue } = loadBullmq();
    const keys = taskKeys(scale.redis.keyPrefix);
    const bash = this.config.section(bashConfig);
    this.service = new QueuedTaskService(local, {
      agentId: this.agent.id,
      connect: (): Redis => openRedisConnection(url),
      openQueue: (connection: Redis): Queue<TaskJobData> => new Queue<TaskJobData>(keys.queueName, { connection, prefix: keys.queuePrefix }),
      keys,
      maxRunning: this.config.section(tasksConfig).maxRunning,
      keepEndedS: scale.jobs.keepEndedTasksS,
      // Long enough for the worker's SIGTERM-then-SIGKILL, or for a lost worker to be noticed.
      stopWaitMs: bash.killGraceMs + scale.jobs.lockDurationMs + scale.jobs.stalledIntervalMs + 5000,
    });
    return this.service;
  }

  @preDestroy()
  async dispose(): Promise<void> {
    await this.service?.dispose();
  }
}
