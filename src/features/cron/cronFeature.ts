import { Feature } from '../../di/feature';
import { AgentCronService } from './agentCronService';
import { IAgentCronService, ICronScheduler, ICronTrigger, ICronTriggerFactory } from './contract';
import { cronConfig } from './cronConfig';
import { CronScheduler } from './cronScheduler';
import { CronTimerTrigger } from './cronTimerTrigger';
import { cronCreateTool, cronDeleteTool, cronListTool } from './cronTools';

/**
 * Cron jobs of a main agent (IAgentCronService, durable in state `cron`) on the App's one timer
 * (ICronScheduler), or through another feature's ICronTriggerFactory (the scale feature's BullMQ job
 * schedulers), delivered through the host's IAgentPromptInjection; CronCreate, CronDelete and
 * CronList. Inactive unless the host binds IAgentPromptInjection.
 */
export function createCronFeature() {
  return new Feature('cron')
    .contributeConfig(cronConfig)
    .bindApp(({ bind }) => bind(ICronScheduler).to(CronScheduler).inSingletonScope(), [ICronScheduler])
    .bindAgent(({ bind }) => {
      bind(CronTimerTrigger).toSelf().inSingletonScope();
      // A factory (the scale feature's BullMQ job schedulers) may replace the App's timer.
      bind(ICronTrigger)
        .toDynamicValue((context) => context.get(ICronTriggerFactory, { optional: true })?.create() ?? context.get(CronTimerTrigger))
        .inSingletonScope();
      bind(IAgentCronService).to(AgentCronService).inSingletonScope();
    })
    // It loads the jobs, counts the fires missed while the agent was down and arms the timer at once.
    .startWithAgent(IAgentCronService)
    .contributeTool(cronCreateTool)
    .contributeTool(cronDeleteTool)
    .contributeTool(cronListTool);
}
