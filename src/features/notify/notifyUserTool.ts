import { inject, injectable } from 'inversify';
import { errorMessage } from '../../base/errors';
import { createServiceId } from '../../di/serviceId';
import { type ServiceAccessor, registerAgentToolService } from '../../di/toolContribution';
import { ISessionInteractionService, type NotificationRequest } from '../../services/interaction/interaction';
import { IAgentServiceAccessor } from '../../services/toolActivation/toolActivation';
import { IAgentWorkspaceService } from '../../services/workspace/workspace';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { INotificationLimiter } from './notificationLimiter';
import { NOTIFY_USER_NAME, NOTIFY_USER_SAMPLES, type NotifyUserInput, NotifyUserInputSchema, cleanBody, cleanTitle } from './notify';

const PARAMETERS = toInputJsonSchema(NotifyUserInputSchema);

/** What NotifyUser returns besides its text: whether the notification went out, and if not, why. */
export type NotifyUserOutput = { readonly sent: true } | { readonly sent: false; readonly reason: string };

@injectable()
export class NotifyUserTool implements ExecutableTool<NotifyUserInput> {
  readonly name = NOTIFY_USER_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: false, openWorldHint: false };

  constructor(
    // Resolved at each call: a host rebound after the agent was created gets the notification.
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
    @inject(INotificationLimiter) private readonly limiter: INotificationLimiter,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'notifyUser.md'), {});
  }

  resolveExecution(input: NotifyUserInput): ToolExecution {
    const title = cleanTitle(input.title);
    if (title === '') return toolError('The title has no printable characters: give a short line of plain text.');
    const body = cleanBody(input.body ?? '');
    const notification: NotificationRequest = {
      kind: 'notification',
      title,
      ...(body !== '' ? { body } : {}),
      severity: input.severity ?? 'info',
    };
    return {
      accesses: ToolAccesses.none(),
      approvalRule: NOTIFY_USER_NAME,
      description: `Notifying the user: ${title}`,
      display: { kind: 'generic', summary: `Notifying the user: ${title}`, ...(body !== '' ? { detail: body } : {}) },
      execute: (ctx) => this.send(notification, input.dedupe_key, ctx.signal),
    };
  }

  private async send(notification: NotificationRequest, dedupeKey: string | undefined, signal: AbortSignal): Promise<ToolResult> {
    const host = this.services.get(ISessionInteractionService);
    if (!host.canRequest('notification')) return toolError('Could not notify the user: nobody receives notifications now. Say it in your reply instead.');
    const identity = { title: notification.title, body: notification.body ?? '', ...(dedupeKey !== undefined ? { dedupeKey } : {}) };
    const verdict = this.limiter.admit(this.workspace.agentId, identity);
    if (!verdict.send) return result({ sent: false, reason: verdict.reason });
    try {
      await host.request(notification, signal);
    } catch (error) {
      verdict.withdraw();
      if (signal.aborted) throw error;
      return toolError(`Could not notify the user: ${errorMessage(error)}.`);
    }
    return result({ sent: true });
  }
}

function result(output: NotifyUserOutput): ToolResult {
  // Not an error when suppressed: the model must not retry in a loop.
  return { output: output.sent ? 'sent: true' : `sent: false (${output.reason})`, structuredContent: output };
}

export const INotifyUserTool = createServiceId<NotifyUserTool>('tool.NotifyUser');
export const notifyUserTool = registerAgentToolService(INotifyUserTool, NotifyUserTool, {
  name: NOTIFY_USER_NAME,
  domain: 'notify',
  requiredRuntimeCapabilities: [],
  // It declares no accesses (it runs beside anything); a notice for the person is not worth asking about.
  approval: 'auto',
  samples: NOTIFY_USER_SAMPLES,
  when: (accessor) => accessor.get(ISessionInteractionService).canRequest('notification'),
});
