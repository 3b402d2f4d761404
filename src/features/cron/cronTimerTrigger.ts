import { inject, injectable, preDestroy } from 'inversify';
import { type AgentOptions, IAgentOptions } from '../../services/workspace/workspace';
import { type CronJobSpec, type CronTriggerHandlers, ICronScheduler, type ICronTrigger } from './contract';

/** ICronTrigger on the App's one timer: one scheduler entry per job, for its next occurrence, in this process only. */
@injectable()
export class CronTimerTrigger implements ICronTrigger {
  readonly shared = false;
  private handlers: CronTriggerHandlers | undefined;
  private readonly armed = new Set<string>();
  private readonly agentId: string;

  constructor(
    @inject(ICronScheduler) private readonly scheduler: ICronScheduler,
    @inject(IAgentOptions) options: AgentOptions,
  ) {
    this.agentId = options.id;
  }

  start(handlers: CronTriggerHandlers): void {
    this.handlers = handlers;
  }

  async arm(job: CronJobSpec, at: number): Promise<void> {
    const id = job.id;
    this.armed.add(id);
    this.scheduler.schedule(this.entryKey(id), at, (firing) => {
      this.armed.delete(id);
      void this.handlers?.fire(id, firing);
    });
  }

  async disarm(jobId: string): Promise<void> {
    this.armed.delete(jobId);
    this.scheduler.cancel(this.entryKey(jobId));
  }

  /** Cancels every entry it set (the agent is disposed; the App's timer goes on for the others). */
  @preDestroy()
  dispose(): void {
    for (const id of this.armed) this.scheduler.cancel(this.entryKey(id));
    this.armed.clear();
    this.handlers = undefined;
  }

  private entryKey(id: string): string {
    // Job ids have no "/": the key is unique whatever the agent id holds.
    return `${this.agentId}/${id}`;
  }
}
