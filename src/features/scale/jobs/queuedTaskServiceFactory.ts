import { inject, injectable, preDestroy } from 'inversify';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { IConfigService } from '../../../services/config/config';
import { IAgentOptions, type AgentOptions } from '../../../services/workspace/workspace';
import { bashConfig } from '../../../tools/os/contract';
import { type IAgentTaskService, type IAgentTaskServiceFactory, tasksConfig } from '../../../tools/task/contract';
import { IScaleRedis } from '../contract';
import { scaleConfig } from '../scaleConfig';
import { loadBullmq } from './bullmqModule';
import { QueuedTaskService } from './queuedTaskService';
import { type TaskJobData, taskKeys } from './taskRecords';

/**
 * Replaces the agent's task service with the queued one when `scale.jobs.backgroundTasks` or
 * `scale.jobs.subagents` is "queue" (what is not queued still runs in the local service).
 */
@injectable()
export class QueuedTaskServiceFactory implements IAgentTaskServiceFactory {
  private created?: QueuedTaskService;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentOptions) private readonly agent: AgentOptions,
    @inject(IScaleRedis) private readonly redis: IScaleRedis,
  ) {}

  /** The queued service, once the agent's task service was created as one. */
  get service(): QueuedTaskService | undefined {
    return this.created;
  }

  create(local: IAgentTaskService): IAgentTaskService | undefined {
    const scale = this.config.section(scaleConfig);
    const queued = scale.jobs.backgroundTasks === 'queue' || scale.jobs.subagents === 'queue';
    if (!queued || !this.redis.enabled) return undefined;
    const { Queue } = loadBullmq();
    const keys = taskKeys(scale.redis.keyPrefix);
    const bash = this.config.section(bashConfig);
    this.created = new QueuedTaskService(local, {
      agentId: this.agent.id,
      roots: [this.agent.cwd, ...this.agent.additionalDirs],
      queueProcesses: scale.jobs.backgroundTasks === 'queue',
      redis: this.redis.connection(),
      openSubscriber: () => this.redis.openConnection(),
      openQueue: (connection: Redis): Queue<TaskJobData> => new Queue<TaskJobData>(keys.queueName, { connection, prefix: keys.queuePrefix }),
      keys,
      maxRunning: this.config.section(tasksConfig).maxRunning,
      keepEndedS: scale.jobs.keepEndedTasksS,
      // Long enough for the worker's SIGTERM-then-SIGKILL, or for a lost worker to be noticed.
      stopWaitMs: bash.killGraceMs + scale.jobs.lockDurationMs + scale.jobs.stalledIntervalMs + 5000,
    });
    return this.created;
  }

  @preDestroy()
  async dispose(): Promise<void> {
    await this.created?.dispose();
  }
}
