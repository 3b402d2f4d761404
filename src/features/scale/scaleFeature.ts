import { Feature } from '../../di/feature';
import { IAgentTaskServiceFactory } from '../../tools/task/contract';
import { QueuedTaskServiceFactory } from './jobs/queuedTaskServiceFactory';
import { scaleConfig } from './scaleConfig';

/**
 * Past one process: the `scale` config section and, with `scale.jobs.backgroundTasks: "queue"`,
 * background Bash tasks as BullMQ jobs on `toolhost worker` processes. Redis and BullMQ are
 * required only when configured, so the core library loads no Redis client otherwise.
 */
export function scaleFeature() {
  return new Feature('scale')
    .contributeConfig(scaleConfig)
    .bindAgent(({ bind }) => bind(IAgentTaskServiceFactory).to(QueuedTaskServiceFactory).inSingletonScope());
}
