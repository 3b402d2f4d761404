import { inject, injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService, type ServiceAccessor } from '../../di/toolContribution';
import { IClock } from '../../services/clock/clock';
import { hasPromptInjection, IAgentPromptInjection } from '../../services/promptInjection/promptInjection';
import { IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { ToolAccesses } from '../../tool/accesses';
import type { ExecutableTool, JsonSchema, ToolAnnotations, ToolExecution, ToolResult } from '../../tool/contract';
import { toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { matchTextRule } from '../../tool/ruleMatch';
import { type CronCreateRequest, CronError, type CronJobReport, IAgentCronService } from './contract';
import { CRON_STATE_KEY, cronJobFields, cronJobLines, isoSeconds, MAX_CRON_JOBS } from './cronModel';
import {
  CRON_CREATE_SAMPLES,
  CRON_DELETE_SAMPLES,
  CRON_LIST_SAMPLES,
  type CronCreateInput,
  CronCreateInputSchema,
  type CronDeleteInput,
  CronDeleteInputSchema,
  type CronListInput,
  CronListInputSchema,
} from './cronSchemas';

const description = (file: string) => renderPrompt(loadDescriptionTemplate(__dirname, file), {});
const WRITE_ANNOTATIONS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

/** The cron tools exist on a main agent whose host takes prompts between turns (a fire has nowhere to go otherwise). */
export const onMainAgentWithPromptInjection = (accessor: ServiceAccessor): boolean =>
  isMainAgent(accessor.get(IAgentOptions)) && hasPromptInjection(accessor.get(IAgentPromptInjection));

/** Runs a cron operation; a CronError is the call's error result, with its message for the model. */
async function cronCall(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CronError) return toolError(error.message);
    throw error;
  }
}

function jobResult(job: CronJobReport, now: number, note: string): ToolResult {
  return { output: `${cronJobLines(job, now)}\n\n${note}`, structuredContent: cronJobFields(job, now) };
}

function toRequest(input: CronCreateInput): CronCreateRequest {
  return {
    cron: input.cron,
    prompt: input.prompt,
    ...(input.recurring !== undefined ? { recurring: input.recurring } : {}),
    ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.expires_in_days !== undefined ? { expiresInDays: input.expires_in_days } : {}),
    ...(input.catch_up !== undefined ? { catchUp: input.catch_up } : {}),
  };
}

@injectable()
export class CronCreateTool implements ExecutableTool<CronCreateInput> {
  readonly name = 'CronCreate';
  readonly parameters: JsonSchema = toInputJsonSchema(CronCreateInputSchema);
  readonly annotations = WRITE_ANNOTATIONS;
  constructor(
    @inject(IAgentCronService) private readonly cron: IAgentCronService,
    @inject(IClock) private readonly clock: IClock,
  ) {}
  get description(): string {
    return description('cronCreate.md');
  }
  resolveExecution(input: CronCreateInput): ToolExecution {
    const request = toRequest(input);
    let nextRuns: readonly number[];
    try {
      ({ nextRuns } = this.cron.check(request));
    } catch (error) {
      if (error instanceof CronError) return toolError(error.message);
      throw error;
    }
    const schedule = `${input.cron.trim()}${input.recurring === false ? ' (once)' : ''}`;
    return {
      accesses: [ToolAccesses.writeState(CRON_STATE_KEY)],
      description: `Scheduling "${input.name ?? input.cron.trim()}" (${input.cron.trim()})`,
      display: { kind: 'generic', summary: `Cron ${schedule}, next ${nextRuns.map(isoSeconds).join(', ')}`, detail: input.prompt },
      approvalRule: `CronCreate(${input.cron.trim()})`,
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, input.cron.trim()),
      execute: () =>
        cronCall(async () => {
          const job = await this.cron.create(request);
          return jobResult(job, this.clock.now(), 'delivery: at your next idle turn; fires while you are busy are merged into the one waiting.');
        }),
    };
  }
}

@injectable()
export class CronDeleteTool implements ExecutableTool<CronDeleteInput> {
  readonly name = 'CronDelete';
  readonly parameters: JsonSchema = toInputJsonSchema(CronDeleteInputSchema);
  readonly annotations: ToolAnnotations = { ...WRITE_ANNOTATIONS, destructiveHint: true, idempotentHint: false };
  constructor(
    @inject(IAgentCronService) private readonly cron: IAgentCronService,
    @inject(IClock) private readonly clock: IClock,
  ) {}
  get description(): string {
    return description('cronDelete.md');
  }
  resolveExecution(input: CronDeleteInput): ToolExecution {
    const id = input.id.trim();
    return {
      accesses: [ToolAccesses.writeState(CRON_STATE_KEY)],
      description: `Deleting cron job ${id}`,
      display: { kind: 'generic', summary: `Delete cron job ${id}` },
      approvalRule: `CronDelete(${id})`,
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, id),
      execute: () =>
        cronCall(async () => {
          const job = await this.cron.delete(id);
          return jobResult(job, this.clock.now(), `Deleted ${job.id}; it will not fire again.`);
        }),
    };
  }
}

@injectable()
export class CronListTool implements ExecutableTool<CronListInput> {
  readonly name = 'CronList';
  readonly parameters: JsonSchema = toInputJsonSchema(CronListInputSchema);
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
  constructor(
    @inject(IAgentCronService) private readonly cron: IAgentCronService,
    @inject(IClock) private readonly clock: IClock,
  ) {}
  get description(): string {
    return description('cronList.md');
  }
  resolveExecution(): ToolExecution {
    return {
      accesses: [ToolAccesses.readState(CRON_STATE_KEY)],
      description: 'Listing the cron jobs',
      display: { kind: 'generic', summary: 'List cron jobs' },
      approvalRule: 'CronList',
      execute: async () => {
        const jobs = await this.cron.list();
        const now = this.clock.now();
        const scheduled = jobs.filter((j) => j.status === 'scheduled').length;
        const header = `jobs: ${scheduled} scheduled${jobs.length > scheduled ? `, ${jobs.length - scheduled} ended` : ''} (at most ${MAX_CRON_JOBS})`;
        const body = jobs.length === 0 ? 'There are no cron jobs; CronCreate schedules one.' : jobs.map((j) => cronJobLines(j, now)).join('\n\n');
        return { output: `${header}\n\n${body}`, structuredContent: { jobs: jobs.map((j) => cronJobFields(j, now)) } };
      },
    };
  }
}

export const ICronCreateTool = createServiceId<CronCreateTool>('tool.CronCreate');
export const ICronDeleteTool = createServiceId<CronDeleteTool>('tool.CronDelete');
export const ICronListTool = createServiceId<CronListTool>('tool.CronList');

const common = { domain: 'cron', requiredRuntimeCapabilities: [], when: onMainAgentWithPromptInjection } as const;
export const cronCreateTool = registerAgentToolService(ICronCreateTool, CronCreateTool, {
  ...common,
  name: 'CronCreate',
  // It schedules autonomous future work: a person confirms each job (a rule `CronCreate(<cron>)` can allow some).
  approval: 'ask',
  samples: CRON_CREATE_SAMPLES,
});
export const cronDeleteTool = registerAgentToolService(ICronDeleteTool, CronDeleteTool, { ...common, name: 'CronDelete', approval: 'auto', samples: CRON_DELETE_SAMPLES });
export const cronListTool = registerAgentToolService(ICronListTool, CronListTool, { ...common, name: 'CronList', samples: CRON_LIST_SAMPLES });
