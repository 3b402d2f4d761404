import { inject, injectable } from 'inversify';
import { deadlineSignal } from '../../base/abort';
import { errorMessage } from '../../base/errors';
import { formatDuration } from '../../base/strings';
import { createServiceId } from '../../di/serviceId';
import { type ServiceAccessor, registerAgentToolService } from '../../di/toolContribution';
import { IConfigService } from '../../services/config/config';
import { ISessionInteractionService } from '../../services/interaction/interaction';
import { IAgentServiceAccessor } from '../../services/toolActivation/toolActivation';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import {
  ASK_USER_QUESTION_NAME,
  ASK_USER_QUESTION_SAMPLES,
  type AskUserQuestionInput,
  AskUserQuestionInputSchema,
  DISMISSED_TEXT,
  answerOutput,
  questionRequest,
  questionsConfig,
  questionsProblem,
} from './askUser';

const PARAMETERS = toInputJsonSchema(AskUserQuestionInputSchema);

/** The state key every question call writes: two calls of a batch are asked one after the other. */
export const QUESTION_STATE_KEY = 'user/question';

@injectable()
export class AskUserQuestionTool implements ExecutableTool<AskUserQuestionInput> {
  readonly name = ASK_USER_QUESTION_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    // Resolved at each call: a host rebound after the agent was created gets the question.
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'askUserQuestion.md'), {});
  }

  resolveExecution(input: AskUserQuestionInput): ToolExecution {
    const problem = questionsProblem(input);
    if (problem) return toolError(problem);
    const headers = input.questions.map((q) => q.header).join(', ');
    return {
      accesses: [ToolAccesses.writeState(QUESTION_STATE_KEY)],
      approvalRule: ASK_USER_QUESTION_NAME,
      description: `Asking the user: ${headers}`,
      display: { kind: 'generic', summary: `Asking the user: ${headers}`, detail: input.questions.map((q) => q.question) },
      execute: (ctx) => this.ask(input, ctx.toolCallId, ctx.signal),
    };
  }

  private async ask(input: AskUserQuestionInput, toolCallId: string, callSignal: AbortSignal): Promise<ToolResult> {
    const host = this.services.get(ISessionInteractionService);
    if (!host.canRequest('question')) return toolError('Could not ask the user: nobody can answer questions now. Ask in plain text instead.');
    const timeoutS = this.config.section(questionsConfig).timeoutS;
    const deadline = deadlineSignal(callSignal, timeoutS * 1000);
    const request = questionRequest(input, toolCallId);
    let output;
    try {
      output = answerOutput(request, await host.request(request, deadline.signal));
    } catch (error) {
      if (callSignal.aborted) throw error;
      if (deadline.timedOut) return toolError(`No answer within ${formatDuration(timeoutS * 1000)} (questions.timeoutS); ask again later or in plain text.`);
      // Never a fake dismissal: the model must not read a broken host as "the user declined".
      return toolError(`Could not ask the user: ${errorMessage(error)}. Ask in plain text instead.`);
    } finally {
      deadline.dispose();
    }
    const json = JSON.stringify(output);
    return { output: output.status === 'dismissed' ? `${json}\n\n${DISMISSED_TEXT}` : json, structuredContent: output };
  }
}

export const IAskUserQuestionTool = createServiceId<AskUserQuestionTool>('tool.AskUserQuestion');
export const askUserQuestionTool = registerAgentToolService(IAskUserQuestionTool, AskUserQuestionTool, {
  name: ASK_USER_QUESTION_NAME,
  domain: 'askUser',
  requiredRuntimeCapabilities: [],
  // Asking is the point of the call: an approval prompt before the question would ask twice.
  approval: 'auto',
  samples: ASK_USER_QUESTION_SAMPLES,
  // Offered only while someone can answer (headless runs would otherwise get empty or hanging answers).
  when: (accessor) => accessor.get(ISessionInteractionService).canRequest('question'),
});
