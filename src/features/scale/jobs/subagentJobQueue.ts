import { inject, injectable } from 'inversify';
import { IConfigService } from '../../../services/config/config';
import type { ISubagentJobQueue, QueuedSubagentEnd, SubagentJob } from '../../../tools/agent/contract';
import { IAgentTaskService, type TaskInfo } from '../../../tools/task/contract';
import { scaleConfig } from '../scaleConfig';
import type { QueuedTaskService } from './queuedTaskService';
import { QueuedTaskServiceFactory } from './queuedTaskServiceFactory';

/** The stop reason of swarm items whose AgentSwarm call was aborted. */
export const SWARM_ABORTED_REASON = 'The AgentSwarm call was aborted';

/**
 * ISubagentJobQueue on the agent's queued task service: while `scale.jobs.subagents` is "queue",
 * background children and AgentSwarm items are BullMQ jobs (`agent`) that a `toolhost worker`
 * runs with its ISubagentJobHost.
 */
@injectable()
export class SubagentJobQueue implements ISubagentJobQueue {
  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentTaskService) private readonly tasks: IAgentTaskService,
    @inject(QueuedTaskServiceFactory) private readonly factory: QueuedTaskServiceFactory,
  ) {}

  private get service(): QueuedTaskService | undefined {
    // The agent's task service is the queued one only when the factory made it.
    return this.factory.service === this.tasks ? this.factory.service : undefined;
  }

  get enabled(): boolean {
    return this.config.section(scaleConfig).jobs.subagents === 'queue' && this.service !== undefined;
  }

  startBackground(job: SubagentJob, task: { readonly description: string; readonly command: string; readonly cwd: string }): { readonly task: TaskInfo; readonly ended: Promise<QueuedSubagentEnd> } {
    return this.require().startSubagent(job, task, false);
  }

  async run(job: SubagentJob, signal: AbortSignal): Promise<QueuedSubagentEnd> {
    const service = this.require();
    const { task, ended } = service.startSubagent(job, { description: job.description, command: `AgentSwarm ${job.profile}`, cwd: job.cwd ?? job.parent.cwd }, true);
    // An abort cancels the item: still queued, it never runs; running, its worker aborts the child.
    const onAbort = () => void service.stop(task.id, SWARM_ABORTED_REASON).catch(() => undefined);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await ended;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private require(): QueuedTaskService {
    const service = this.service;
    if (!service) throw new Error('Subagents are not queued here: set scale.jobs.subagents to "queue" and scale.redis.url.');
    return service;
  }
}
