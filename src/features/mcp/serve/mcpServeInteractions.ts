import type { ElicitRequestFormParams, ElicitResult, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Container } from 'inversify';
import { Emitter } from '../../../base/event';
import {
  ISessionInteractionService,
  NoInteractionHostError,
  type ApprovalRequest,
  type ApprovalResponse,
  type InteractionKind,
  type InteractionRequest,
  type InteractionResponse,
  type NotificationRequest,
  type PlanReviewRequest,
  type PlanReviewResponse,
  type QuestionAnswer,
  type QuestionRequest,
  type QuestionResponse,
} from '../../../services/interaction/interaction';
import type { ToolInputDisplay } from '../../../tool/display';

/** Who can reach the person behind the MCP client (the server, once a client is connected). */
export interface McpElicitor {
  /** The connected client declared form elicitation. */
  canElicit(): boolean;
  elicit(params: ElicitRequestFormParams, options: { readonly signal: AbortSignal; readonly toolCallId: string }): Promise<ElicitResult>;
  /** A client is connected, so a log message reaches it. */
  canNotify(): boolean;
  /** Sends an MCP log message (`notifications/message`). */
  notify(params: LoggingMessageNotification['params']): Promise<void>;
}

export interface McpServeInteractionsOptions {
  /** `--yes`: every approval request is granted, without asking the client. */
  readonly approveAll?: boolean;
  /**
   * A library host's own interaction service for everything but approvals: user tools the host
   * registered, notifications. Without it, such requests have no host.
   */
  readonly delegate?: ISessionInteractionService;
}

export const APPROVAL_DECISIONS = ['approve', 'approve_session', 'reject'] as const;

/** The `_meta` key of an approval elicitation: the call in machine-readable form, for clients that render it themselves. */
export const MCP_META_APPROVAL = 'toolhost/approval';

const DETAIL_MAX_CHARS = 1_000;
const META_ARGS_MAX_CHARS = 10_000;

function clip(text: string, max = DETAIL_MAX_CHARS): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

const PREVIEW_LINES = 12;
const PREVIEW_LINE_CHARS = 200;

/** The first lines of a text, each prefixed, with a count of the lines left out. */
function preview(text: string, prefix: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => prefix + clip(line, PREVIEW_LINE_CHARS));
  if (lines.length > PREVIEW_LINES) shown.push(`${prefix}… (${lines.length - PREVIEW_LINES} more lines)`);
  return shown;
}

function displayLines(display: ToolInputDisplay, args: unknown): string[] {
  switch (display.kind) {
    case 'command':
      return [`$ ${display.command}${display.cwd ? `   (in ${display.cwd})` : ''}`];
    case 'file_io':
      return [
        `${display.operation} ${display.path}${display.detail ? ` (${display.detail})` : ''}`,
        ...(display.content !== undefined ? preview(display.content, '| ') : []),
      ];
    case 'diff':
      return [
        `edit ${display.path}${display.hunks !== undefined ? ` (${display.hunks} change${display.hunks === 1 ? '' : 's'})` : ''}`,
        ...preview(display.before, '- '),
        ...preview(display.after, '+ '),
      ];
    case 'url_fetch':
      return [`${display.method ?? 'GET'} ${display.url}`];
    case 'search':
      return [`search ${JSON.stringify(display.query)}${display.scope ? ` in ${display.scope}` : ''}`];
    default:
      return [`arguments: ${clip(safeJson(args))}`];
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The form elicitation that asks for one approval. */
export function approvalElicitation(request: ApprovalRequest): ElicitRequestFormParams {
  const message = [
    `${request.toolName} wants to run: ${request.description}`,
    ...displayLines(request.display, request.args).map((line) => `    ${line}`),
    `Approve this call? "Approve for this session" also allows ${request.approvalRule} until the server stops.`,
  ].join('\n');
  return {
    mode: 'form',
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          description: `approve: run this call once; approve_session: also allow ${request.approvalRule} for the rest of the session; reject: do not run it.`,
          enum: [...APPROVAL_DECISIONS],
          enumNames: ['Approve', `Approve ${request.approvalRule} for this session`, 'Reject'],
        },
        reason: {
          type: 'string',
          title: 'Reason (optional)',
          description: 'When you reject: what the agent should do instead. It is passed on to the model.',
        },
      },
      required: ['decision'],
    },
    _meta: {
      [MCP_META_APPROVAL]: {
        toolCallId: request.toolCallId,
        toolName: request.toolName,
        // Large arguments (a whole file for Write) stay out; the display holds a preview.
        ...(safeJson(request.args).length <= META_ARGS_MAX_CHARS ? { args: request.args } : { argsOmitted: true }),
        description: request.description,
        display: request.display,
        approvalRule: request.approvalRule,
      },
    },
  };
}

/** What the person's answer to an approval elicitation means. */
export function approvalFromElicitation(result: ElicitResult): ApprovalResponse {
  if (result.action === 'decline') return { decision: 'reject', feedback: 'The user declined the approval request.' };
  if (result.action === 'cancel') return { decision: 'reject', feedback: 'The user dismissed the approval request without deciding.' };
  const content = result.content ?? {};
  const decision = content.decision;
  const reason = typeof content.reason === 'string' && content.reason.trim() !== '' ? content.reason.trim() : undefined;
  if (decision === 'approve' || decision === 'approve_session') return { decision };
  if (decision === 'reject') return reason ? { decision: 'reject', feedback: reason } : { decision: 'reject' };
  // Accepted without a valid decision: nothing was approved.
  return { decision: 'reject', feedback: 'The approval form came back without a decision.' };
}

/** The `logger` of the log messages NotifyUser sends. */
export const MCP_NOTIFY_LOGGER = 'toolhost/notify';

/** The `_meta` key of a question elicitation: the questions in machine-readable form. */
export const MCP_META_QUESTION = 'toolhost/question';

const questionKey = (index: number) => `q${index + 1}`;
const otherKey = (index: number) => `q${index + 1}_other`;

/**
 * The form elicitation for AskUserQuestion: per question a choice (`qN`, a list for multi-select)
 * and an optional free-text answer (`qN_other`), the "Other" of the terminal.
 */
export function questionElicitation(request: QuestionRequest): ElicitRequestFormParams {
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {};
  request.questions.forEach((q, i) => {
    const labels = q.options.map((o) => o.label);
    const described = q.options.map((o) => `${o.label}${o.description ? `: ${o.description}` : ''}`).join('; ');
    properties[questionKey(i)] = q.multiSelect
      ? { type: 'array', title: q.header, description: `${q.question} (pick any) ${described}`, items: { type: 'string', enum: labels } }
      : { type: 'string', title: q.header, description: `${q.question} ${described}`, enum: labels };
    properties[otherKey(i)] = { type: 'string', title: `${q.header}: other answer (optional)`, description: `Your own answer to: ${q.question}` };
  });
  const message = [
    request.questions.length === 1 ? 'The agent asks:' : `The agent asks ${request.questions.length} questions:`,
    ...request.questions.map((q, i) => `${i + 1}. [${q.header}] ${q.question}`),
    'Pick an option or type your own answer. Declining tells the agent not to assume an answer.',
  ].join('\n');
  return {
    mode: 'form',
    message,
    requestedSchema: { type: 'object', properties },
    _meta: { [MCP_META_QUESTION]: { toolCallId: request.toolCallId, questions: request.questions } },
  };
}

/** What the person's answer to a question elicitation means; a question left empty fails (the agent must not guess). */
export function questionFromElicitation(request: QuestionRequest, result: ElicitResult): QuestionResponse {
  if (result.action !== 'accept') return { status: 'dismissed' };
  const content = result.content ?? {};
  const answers = request.questions.map((q, i): QuestionAnswer => {
    const picked = content[questionKey(i)];
    const selected = (Array.isArray(picked) ? picked : picked === undefined || picked === '' ? [] : [picked]).filter((v): v is string => typeof v === 'string');
    const other = content[otherKey(i)];
    return typeof other === 'string' && other.trim() !== '' ? { selected, other: other.trim() } : { selected };
  });
  const unanswered = answers.findIndex((a) => a.selected.length === 0 && a.other === undefined);
  if (unanswered >= 0) throw new Error(`the form came back without an answer to ${JSON.stringify(request.questions[unanswered]!.question)}`);
  return { status: 'answered', answers };
}

/** The `_meta` key of a plan review elicitation: the plan in machine-readable form. */
export const MCP_META_PLAN_REVIEW = 'toolhost/plan_review';

export const PLAN_REVIEW_DECISIONS = ['approve', 'revise', 'reject'] as const;

/** The most of the plan the form's message shows; the whole plan is in `_meta` and in its file. */
const PLAN_MESSAGE_MAX_CHARS = 20_000;

/**
 * The form elicitation for ExitPlanMode: the plan in the message, a decision (approve, revise,
 * reject), the option to carry it out by when the agent named some, and feedback.
 */
export function planReviewElicitation(request: PlanReviewRequest): ElicitRequestFormParams {
  const options = request.options ?? [];
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {
    decision: {
      type: 'string',
      title: 'Decision',
      description: 'approve: leave plan mode and carry out the plan; revise: the agent changes the plan (say what in Feedback); reject: plan mode stays on and the agent stops.',
      enum: [...PLAN_REVIEW_DECISIONS],
      enumNames: ['Approve', 'Revise', 'Reject'],
    },
  };
  if (options.length > 0) properties.option = { type: 'string', title: 'Carry it out by (optional)', description: 'On approval: the way the agent proposed to go on.', enum: [...options] };
  properties.feedback = { type: 'string', title: 'Feedback (optional)', description: 'What should change (revise), or why not (reject). It is passed on to the model.' };
  const plan = request.plan.length > PLAN_MESSAGE_MAX_CHARS ? `${request.plan.slice(0, PLAN_MESSAGE_MAX_CHARS)}\n… (the rest is in ${request.path})` : request.plan;
  return {
    mode: 'form',
    message: [`The agent asks you to review its plan (${request.path}):`, '', plan, '', 'Approve it, ask for a revision, or reject it.'].join('\n'),
    requestedSchema: { type: 'object', properties, required: ['decision'] },
    _meta: { [MCP_META_PLAN_REVIEW]: { toolCallId: request.toolCallId, path: request.path, plan: request.plan, ...(options.length > 0 ? { options } : {}) } },
  };
}

/** What the person's answer to a plan review elicitation means; anything but a clear approval keeps plan mode on. */
export function planReviewFromElicitation(request: PlanReviewRequest, result: ElicitResult): PlanReviewResponse {
  if (result.action === 'decline') return { decision: 'reject', feedback: 'The user declined to review the plan.' };
  if (result.action === 'cancel') return { decision: 'reject', feedback: 'The user closed the plan review without deciding.' };
  const content = result.content ?? {};
  const feedback = typeof content.feedback === 'string' && content.feedback.trim() !== '' ? { feedback: content.feedback.trim() } : {};
  switch (content.decision) {
    case 'approve': {
      const option = content.option;
      return typeof option === 'string' && (request.options ?? []).includes(option) ? { decision: 'approve', option, ...feedback } : { decision: 'approve', ...feedback };
    }
    case 'revise':
    case 'reject':
      return { decision: content.decision, ...feedback };
    default:
      return { decision: 'reject', feedback: 'The plan review form came back without a decision.' };
  }
}

export const SERVE_UNAVAILABLE_HINT = 'start "toolhost mcp serve" with --yes to approve every call, or connect from an MCP client that supports elicitation';

/**
 * The host of `toolhost mcp serve`. Approvals go, in this order, to `--yes` (granted), to the
 * person behind the MCP client through form elicitation when the client declared it, or nowhere:
 * then the approval service denies the call with a message that names `approval.allow` and this
 * hint. Questions and plan reviews go to the client through form elicitation (never to `--yes`),
 * notifications as log messages. Other kinds of request (user tools) go to the `delegate`, if any.
 */
export class McpServeInteractions implements ISessionInteractionService {
  readonly unavailableHint = SERVE_UNAVAILABLE_HINT;
  private elicitor: McpElicitor | undefined;
  private readonly availability = new Emitter<void>();
  readonly onDidChangeAvailability = this.availability.event;

  constructor(private readonly options: McpServeInteractionsOptions = {}) {}

  /**
   * Makes this object the agent's host; pass it as `createAgent({overrides: (c) => interactions.bindTo(c)})`,
   * then give it to the McpAgentServer that serves the agent.
   */
  bindTo(container: Container): void {
    container.rebind(ISessionInteractionService).toConstantValue(this);
  }

  /** `--yes`: approvals are granted without asking. */
  get approvesAll(): boolean {
    return this.options.approveAll === true;
  }

  /** Attaches the server that can ask the client; undefined detaches it. */
  setElicitor(elicitor: McpElicitor | undefined): void {
    this.elicitor = elicitor;
    this.availability.fire();
  }

  /** The client connected or went away: what `canRequest` answers may have changed (the agent's tools follow). */
  clientChanged(): void {
    this.availability.fire();
  }

  canRequest(kind: InteractionKind): boolean {
    const delegated = this.options.delegate?.canRequest(kind) === true;
    switch (kind) {
      case 'approval':
        return this.options.approveAll === true || this.elicitor?.canElicit() === true;
      case 'question':
      case 'plan_review':
        // --yes approves calls; it never answers a question or reviews a plan for the person.
        return this.elicitor?.canElicit() === true || delegated;
      case 'notification':
        return this.elicitor?.canNotify() === true || delegated;
      default:
        return delegated;
    }
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { readonly kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    const elicitor = this.elicitor;
    if (request.kind === 'question' && elicitor?.canElicit()) {
      const question = request as QuestionRequest;
      const result = await elicitor.elicit(questionElicitation(question), { signal, toolCallId: question.toolCallId });
      return questionFromElicitation(question, result) as InteractionResponse<K>;
    }
    if (request.kind === 'plan_review' && elicitor?.canElicit()) {
      const review = request as PlanReviewRequest;
      const result = await elicitor.elicit(planReviewElicitation(review), { signal, toolCallId: review.toolCallId });
      return planReviewFromElicitation(review, result) as InteractionResponse<K>;
    }
    if (request.kind === 'notification' && elicitor?.canNotify()) {
      const notification = request as NotificationRequest;
      await elicitor.notify({
        level: notification.severity ?? 'info',
        logger: MCP_NOTIFY_LOGGER,
        data: notification.body !== undefined ? { title: notification.title, body: notification.body } : { title: notification.title },
      });
      return undefined as InteractionResponse<K>;
    }
    if (request.kind !== 'approval') {
      const delegate = this.options.delegate;
      if (delegate?.canRequest(request.kind)) return delegate.request<K>(request, signal);
      throw new NoInteractionHostError(`toolhost mcp serve cannot answer "${request.kind}" requests.`);
    }
    const approval = request as ApprovalRequest;
    if (this.options.approveAll) return { decision: 'approve' } satisfies ApprovalResponse as InteractionResponse<K>;
    if (!elicitor?.canElicit()) throw new NoInteractionHostError('The MCP client cannot be asked (it did not declare elicitation).');
    const result = await elicitor.elicit(approvalElicitation(approval), { signal, toolCallId: approval.toolCallId });
    return approvalFromElicitation(result) as InteractionResponse<K>;
  }
}
