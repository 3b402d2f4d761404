import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { ToolAccesses } from '../../tool/accesses';
import type { ToolInputDisplay } from '../../tool/display';
import type { ToolOutput } from '../../tool/contract';

/** Who asks, when it is not the agent the host was bound to. */
export interface InteractionOrigin {
  /** `from subagent <description>`: a subagent's request, passed on by its parent. */
  readonly from?: string;
}

/** Asking the host (a person, or a program acting for one) to approve a tool call. */
export interface ApprovalRequest extends InteractionOrigin {
  readonly kind: 'approval';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  /** One-line action text, e.g. "Running npm test". */
  readonly description: string;
  readonly display: ToolInputDisplay;
  /** The rule "approve for this session" would store, e.g. `Bash(npm test)`. */
  readonly approvalRule: string;
  /** The resources the call touches, as approval evaluated them. */
  readonly accesses?: ToolAccesses;
}

export interface ApprovalResponse {
  readonly decision: 'approve' | 'approve_session' | 'reject';
  /** Why the person rejected it, passed on to the model. */
  readonly feedback?: string;
}

/** Running a tool the host provides (a user tool). */
export interface UserToolRequest extends InteractionOrigin {
  readonly kind: 'user_tool';
  readonly toolCallId: string;
  readonly name: string;
  readonly args: unknown;
}

export interface UserToolResponse {
  readonly output: ToolOutput;
  readonly isError?: boolean;
}

/** A notice for the person; no answer is expected. */
export interface NotificationRequest extends InteractionOrigin {
  readonly kind: 'notification';
  readonly title: string;
  readonly body?: string;
  readonly severity?: 'info' | 'warning' | 'error';
}

/** One question put to the person, with 2–4 choices; the host adds a free-text "Other". */
export interface UserQuestion {
  readonly question: string;
  /** A short label (at most 12 characters), e.g. "Database". */
  readonly header: string;
  readonly options: readonly { readonly label: string; readonly description?: string }[];
  /** Several choices may be picked. */
  readonly multiSelect: boolean;
}

/** Asking the person one to four questions (AskUserQuestion). */
export interface QuestionRequest extends InteractionOrigin {
  readonly kind: 'question';
  readonly toolCallId: string;
  readonly questions: readonly UserQuestion[];
}

/** The answer to one question: the labels picked, and the text typed for "Other" (if any). */
export interface QuestionAnswer {
  readonly selected: readonly string[];
  readonly other?: string;
}

/** `answered`: one answer per question, in question order. `dismissed`: closed without answering. */
export type QuestionResponse =
  | { readonly status: 'answered'; readonly answers: readonly QuestionAnswer[] }
  | { readonly status: 'dismissed' };

/** Asking the person to review a plan (ExitPlanMode). */
export interface PlanReviewRequest extends InteractionOrigin {
  readonly kind: 'plan_review';
  readonly toolCallId: string;
  /** The plan text (Markdown). */
  readonly plan: string;
  /** The plan file. */
  readonly path: string;
  /** Named ways to go on the person may pick on approval, e.g. "start with the tests". */
  readonly options?: readonly string[];
}

export interface PlanReviewResponse {
  /** approve: leave plan mode; revise: change the plan (with feedback); reject: stop. */
  readonly decision: 'approve' | 'revise' | 'reject';
  readonly feedback?: string;
  /** The option picked, one of the request's `options`. */
  readonly option?: string;
}

export interface InteractionRequests {
  approval: [ApprovalRequest, ApprovalResponse];
  user_tool: [UserToolRequest, UserToolResponse];
  notification: [NotificationRequest, void];
  question: [QuestionRequest, QuestionResponse];
  plan_review: [PlanReviewRequest, PlanReviewResponse];
}
export type InteractionKind = keyof InteractionRequests;
export type InteractionRequest<K extends InteractionKind = InteractionKind> = InteractionRequests[K][0];
export type InteractionResponse<K extends InteractionKind> = InteractionRequests[K][1];

/** There is no host that can answer this kind of request. */
export class NoInteractionHostError extends Error {
  override readonly name = 'NoInteractionHostError';
}

/**
 * Thrown by a host from an approval request it cannot answer now but will accept with a repeated
 * call (stateless `mcp serve --http`: the caller repeats the call with a signed approval token).
 * The call ends with outcome `needs_approval` and this message, which says how to approve it.
 */
export class ApprovalPendingError extends Error {
  override readonly name = 'ApprovalPendingError';
}

/**
 * The host interface (Agent scope): approvals, user tools, notifications, questions, plan reviews. The CLI answers on a
 * TTY or by flags; a library host binds its own implementation; tests rebind it. A request is
 * cancelled through `signal`, and the promise then rejects.
 */
export interface ISessionInteractionService {
  /**
   * Whether someone can answer requests of this kind. Tools that need an answer (AskUserQuestion,
   * NotifyUser) are active only while it is true.
   */
  canRequest(kind: InteractionKind): boolean;
  /**
   * Fires when `canRequest` may answer differently (an MCP client connected, a terminal closed):
   * the agent then recomputes its active tools. A host whose answers never change leaves it out.
   */
  readonly onDidChangeAvailability?: Event<void>;
  /** When no one can answer: what the user can do instead, e.g. "run with --yes". */
  readonly unavailableHint?: string;
  request<K extends InteractionKind>(request: InteractionRequest<K> & { readonly kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>>;
}
export const ISessionInteractionService = createServiceId<ISessionInteractionService>('SessionInteractionService');
