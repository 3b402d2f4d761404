// The cron feature's public surface (`toolhost/features/cron`): an agent's scheduled prompts, the App's timer, and the tools.
export { createCronFeature } from './cronFeature';
export {
  IAgentCronService,
  ICronScheduler,
  ICronTrigger,
  ICronTriggerFactory,
  type CronTriggerHandlers,
  type CronJobSpec,
  CronError,
  CRON_CATCH_UP,
  type CronCatchUp,
  type CronCreateRequest,
  type CronJobReport,
  type CronSkip,
  type CronFireEvent,
  type CronTimerFiring,
  type ClockJump,
} from './contract';
export { AgentCronService } from './agentCronService';
export { CronScheduler, CLOCK_JUMP_TOLERANCE_MS } from './cronScheduler';
export { CronTimerTrigger } from './cronTimerTrigger';
export { cronConfig, CronConfigSchema, type CronConfig } from './cronConfig';
export { CRON_STATE_KEY, MAX_CRON_JOBS, MAX_PROMPT_BYTES, DEFAULT_EXPIRES_IN_DAYS, MAX_EXPIRES_IN_DAYS, MAX_ONE_SHOT_DAYS, cronFireText } from './cronModel';
export { CRON_MACROS } from './cronSchedule';
export { CronCreateTool, CronDeleteTool, CronListTool, ICronCreateTool, ICronDeleteTool, ICronListTool, cronCreateTool, cronDeleteTool, cronListTool } from './cronTools';
export { CronCreateInputSchema, CronDeleteInputSchema, CronListInputSchema, type CronCreateInput, type CronDeleteInput, type CronListInput } from './cronSchemas';
