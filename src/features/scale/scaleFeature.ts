import { Feature } from '../../di/feature';
import { IAgentStateStore } from '../../services/agentState/agentState';
import { FileAgentStateStore } from '../../services/agentState/fileAgentStateStore';
import { ISubagentJobQueue } from '../../tools/agent/contract';
import { IAgentTaskServiceFactory } from '../../tools/task/contract';
import { ICronTriggerFactory } from '../cron/contract';
import { IScaleRedis } from './contract';
import { QueueCronTriggerFactory } from './cron/queueCronTriggerFactory';
import { QueuedTaskServiceFactory } from './jobs/queuedTaskServiceFactory';
import { SubagentJobQueue } from './jobs/subagentJobQueue';
import { RedisAgentStateStore } from './redisAgentStateStore';
import { scaleConfig } from './scaleConfig';
import { ScaleRedis } from './scaleRedis';

/**
 * Serving past one process: the `scale` config section and the App's Redis (IScaleRedis). With
 * `scale.redis.url` set, agent state lives in Redis (RedisAgentStateStore) instead of the default
 * files; with `scale.jobs.backgroundTasks: "queue"` background Bash tasks (and with
 * `scale.jobs.subagents: "queue"` background subagents and AgentSwarm items) are BullMQ jobs on
 * `toolhost worker` processes; with `scale.jobs.cron: "queue"` cron jobs are BullMQ job schedulers
 * fired by whichever process hosting the agent takes each occurrence. Unset, nothing changes and
 * no Redis client is loaded.
 */
export function createScaleFeature() {
  return new Feature('scale')
    .contributeConfig(scaleConfig)
    .bindApp(
      ({ bind, onActivation }) => {
        bind(IScaleRedis).to(ScaleRedis).inSingletonScope();
        // Replaces the core's default store only: a store the host bound itself stays.
        onActivation(IAgentStateStore, (context, store) => {
          const redis = context.get(IScaleRedis);
          return redis.enabled && store instanceof FileAgentStateStore ? new RedisAgentStateStore(redis.connection(), redis.keyPrefix) : store;
        });
      },
      [IScaleRedis],
    )
    .bindAgent(({ bind }) => {
      bind(QueuedTaskServiceFactory).toSelf().inSingletonScope();
      bind(IAgentTaskServiceFactory).toService(QueuedTaskServiceFactory);
      bind(ISubagentJobQueue).to(SubagentJobQueue).inSingletonScope();
      bind(ICronTriggerFactory).to(QueueCronTriggerFactory).inSingletonScope();
    });
}
