import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { errorMessage } from '../../base/errors';
import { createServiceId } from '../../di/serviceId';
import { type ServiceAccessor, registerAgentToolService } from '../../di/toolContribution';
import { IConfigService } from '../../services/config/config';
import { ISessionInteractionService, type PlanReviewResponse } from '../../services/interaction/interaction';
import { IAgentRuntimeService } from '../../services/runtime/runtime';
import { IAgentServiceAccessor } from '../../services/toolActivation/toolActivation';
import { type AgentOptions, IAgentOptions, isMainAgent } from '../../services/workspace/workspace';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import type { ToolInputDisplay } from '../../tool/display';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { IAgentFileStateService } from '../../tools/os/contract';
import { IAgentPlanModeService, PlanModeError } from './contract';
import { planConfig } from './planConfig';
import { ENTER_PLAN_MODE_NAME, EXIT_PLAN_MODE_NAME, PLAN_MODE_STATE_KEY } from './planGuard';
import {
  ENTER_PLAN_MODE_SAMPLES,
  type EnterPlanModeInput,
  EnterPlanModeInputSchema,
  EXIT_PLAN_MODE_SAMPLES,
  type ExitPlanModeInput,
  ExitPlanModeInputSchema,
  RESERVED_PLAN_OPTION_LABELS,
} from './planSchemas';

const ANNOTATIONS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const NO_REVIEWER_MESSAGE = 'No one can review the plan here; plan mode stays on. Ask the user in plain text, or run with plan.autoApprove.';
export const PLAN_STARTED_SKIP_MESSAGE = 'Skipped: plan mode started; call it again if it is read-only.';
export const AUTO_APPROVED_LABEL = 'auto-approved, not reviewed by a person';

@injectable()
export class EnterPlanModeTool implements ExecutableTool<EnterPlanModeInput> {
  readonly name = ENTER_PLAN_MODE_NAME;
  readonly parameters: JsonSchema = toInputJsonSchema(EnterPlanModeInputSchema);
  readonly annotations = ANNOTATIONS;
  constructor(
    @inject(IAgentPlanModeService) private readonly plan: IAgentPlanModeService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentFileStateService) @optional() private readonly fileState?: IAgentFileStateService,
  ) {}
  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'enterPlanMode.md'), {});
  }
  resolveExecution(): ToolExecution {
    return {
      accesses: [ToolAccesses.writeState(PLAN_MODE_STATE_KEY)],
      description: 'Entering plan mode',
      display: { kind: 'generic', summary: 'Enter plan mode' },
      approvalRule: ENTER_PLAN_MODE_NAME,
      // Later calls were chosen before the mode was on: the guard must see them again.
      stopBatchAfterThis: true,
      skippedMessage: PLAN_STARTED_SKIP_MESSAGE,
      execute: async (): Promise<ToolResult> => {
        try {
          const generation = this.runtime.generation;
          const { planFile } = await this.plan.enter();
          this.recordSeen(planFile, generation);
          return {
            output: [
              'mode: plan',
              `plan_file: ${planFile}`,
              '',
              'Plan mode is on: calls that would write anything but the plan file are refused.',
              '1. Explore with reads, searches and read-only shell commands.',
              `2. Write the plan to ${planFile}.`,
              '3. Call ExitPlanMode to ask the user to review it.',
              'Calls after EnterPlanMode in the same batch were skipped: call them again if they only read.',
            ].join('\n'),
            structuredContent: { mode: 'plan', plan_file: planFile },
          };
        } catch (error) {
          if (error instanceof PlanModeError) return toolError(error.message);
          throw error;
        }
      },
    };
  }

  /** The agent has seen the empty file it created: its first Write of the plan needs no Read. */
  private recordSeen(planFile: string, generation: number): void {
    const stat = fs.statSync(planFile);
    this.fileState?.record(planFile, { size: 0, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, sha256: EMPTY_SHA256 }, generation);
  }
}

/** The SHA-256 of no bytes: the plan file as EnterPlanMode creates it. */
const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** The plan text; throws PlanModeError when the file is missing or empty. */
function readPlan(planFile: string): string {
  let text: string;
  try {
    text = fs.readFileSync(planFile, 'utf8');
  } catch (error) {
    throw new PlanModeError(`Could not read the plan file ${planFile} (${errorMessage(error)}); write the plan there and call ExitPlanMode again.`);
  }
  if (text.trim() === '') throw new PlanModeError(`The plan file ${planFile} is empty; write the plan there and call ExitPlanMode again.`);
  return text;
}

function approvedResult(plan: string, planFile: string, label: string, option: string | undefined): ToolResult {
  return {
    output: [`Plan ${label}; plan mode is off. Carry out the plan${option !== undefined ? `, as picked: ${option}` : ''}.`, '', `<plan path="${planFile}">`, plan, '</plan>'].join('\n'),
    structuredContent: { decision: 'approve', approval: label, plan_file: planFile, ...(option !== undefined ? { option } : {}) },
  };
}

@injectable()
export class ExitPlanModeTool implements ExecutableTool<ExitPlanModeInput> {
  readonly name = EXIT_PLAN_MODE_NAME;
  readonly parameters: JsonSchema = toInputJsonSchema(ExitPlanModeInputSchema);
  readonly annotations = ANNOTATIONS;
  constructor(
    @inject(IAgentPlanModeService) private readonly plan: IAgentPlanModeService,
    @inject(IAgentOptions) private readonly options: AgentOptions,
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
  ) {}
  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'exitPlanMode.md'), {});
  }
  resolveExecution(input: ExitPlanModeInput): ToolExecution {
    const options = (input.options ?? []).map((o) => ({ label: o.label.trim(), description: o.description?.trim() ?? '' }));
    const labels = options.map((o) => o.label);
    const reserved = labels.find((l) => (RESERVED_PLAN_OPTION_LABELS as readonly string[]).includes(l));
    if (reserved !== undefined) return toolError(`The option label "${reserved}" is reserved for the review itself (${RESERVED_PLAN_OPTION_LABELS.join(', ')}); name the way to carry out the plan instead.`);
    const twice = labels.find((l, i) => labels.indexOf(l) !== i);
    if (twice !== undefined) return toolError(`The option label "${twice}" is given twice; give each option its own label.`);
    return {
      accesses: [ToolAccesses.readTree(nodePath.join(this.options.dataDir, 'plans')), ToolAccesses.writeState(PLAN_MODE_STATE_KEY)],
      description: 'Asking the user to review the plan',
      display: this.display(options),
      approvalRule: EXIT_PLAN_MODE_NAME,
      execute: async (ctx): Promise<ToolResult> => {
        try {
          return await this.review(labels, ctx.toolCallId, ctx.signal);
        } catch (error) {
          if (error instanceof PlanModeError) return toolError(error.message);
          throw error;
        }
      },
    };
  }

  /** `plan_review` with the plan file and the options; the plan text is read only when the call runs. */
  private display(options: { label: string; description: string }[]): ToolInputDisplay {
    const planFile = this.plan.knownPlanFile;
    return { kind: 'plan_review', ...(planFile !== undefined ? { path: planFile } : {}), ...(options.length > 0 ? { options } : {}) };
  }

  private async review(labels: readonly string[], toolCallId: string, signal: AbortSignal): Promise<ToolResult> {
    const state = await this.plan.current();
    if (!state) throw new PlanModeError('Plan mode is not active; call EnterPlanMode first.');
    const plan = readPlan(state.planFile);
    const host = this.services.get(ISessionInteractionService);
    if (!host.canRequest('plan_review')) {
      if (!this.config.section(planConfig).autoApprove) return toolError(NO_REVIEWER_MESSAGE);
      await this.plan.exit('auto-approved');
      return approvedResult(plan, state.planFile, AUTO_APPROVED_LABEL, undefined);
    }
    let response: PlanReviewResponse;
    try {
      response = await host.request({ kind: 'plan_review', toolCallId, plan, path: state.planFile, ...(labels.length > 0 ? { options: labels } : {}) }, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return toolError(`Could not ask for a review of the plan: ${errorMessage(error)}. Plan mode stays on; ask the user in plain text.`);
    }
    const feedback = response.feedback?.trim() ? `\n\nFeedback: ${response.feedback.trim()}` : '';
    switch (response.decision) {
      case 'approve':
        await this.plan.exit('reviewed');
        return approvedResult(plan, state.planFile, 'approved by the user', response.option);
      case 'revise':
        return {
          output: `The user asked for changes; plan mode stays on. Change the plan in ${state.planFile} and call ExitPlanMode again.${feedback}`,
          structuredContent: { decision: 'revise', plan_file: state.planFile, ...(response.feedback !== undefined ? { feedback: response.feedback } : {}) },
        };
      case 'reject':
        return toolError(`The user rejected the plan; plan mode stays on and the turn ends. Wait for the user.${feedback}`, { stopTurn: true });
    }
  }
}

/** Plan mode is the main agent's: a subagent shares its parent's service and is held by its guard. */
const onMainAgent = (accessor: ServiceAccessor): boolean => isMainAgent(accessor.get(IAgentOptions));
const SUBAGENT_PLAN_MODE_REASON = "a subagent is held to its parent's plan mode and has none of its own";

export const IEnterPlanModeTool = createServiceId<EnterPlanModeTool>('tool.EnterPlanMode');
export const IExitPlanModeTool = createServiceId<ExitPlanModeTool>('tool.ExitPlanMode');

export const enterPlanModeTool = registerAgentToolService(IEnterPlanModeTool, EnterPlanModeTool, {
  name: ENTER_PLAN_MODE_NAME,
  domain: 'plan',
  requiredRuntimeCapabilities: [],
  // Turning on a mode that only restricts: nothing to confirm.
  approval: 'auto',
  // A mode nobody could review the way out of would trap the agent.
  when: (accessor) => onMainAgent(accessor) && (accessor.get(ISessionInteractionService).canRequest('plan_review') || accessor.get(IConfigService).section(planConfig).autoApprove),
  inactiveReason: (accessor) => (onMainAgent(accessor) ? 'no one can review a plan here (no plan_review host, plan.autoApprove off)' : SUBAGENT_PLAN_MODE_REASON),
  samples: ENTER_PLAN_MODE_SAMPLES,
});
export const exitPlanModeTool = registerAgentToolService(IExitPlanModeTool, ExitPlanModeTool, {
  name: EXIT_PLAN_MODE_NAME,
  domain: 'plan',
  requiredRuntimeCapabilities: [],
  // The plan review is the approval.
  approval: 'auto',
  when: onMainAgent,
  inactiveReason: () => SUBAGENT_PLAN_MODE_REASON,
  samples: EXIT_PLAN_MODE_SAMPLES,
});
