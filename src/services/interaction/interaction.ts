import { createServiceId } from '../../di/serviceId';
import type { ToolInputDisplay } from '../../tool/display';
import type { ToolOutput } from '../../tool/contract';

/** Asking the host (a person, or a program acting for one) to approve a tool call. */
export interface ApprovalRequest {
  readonly kind: 'approval';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  /** One-line action text, e.g. "Running npm test". */
  readonly description: string;
  readonly display: ToolInputDisplay;
  /** The rule "approve for this session" would store, e.g. `Bash(npm test)`. */
  readonly approvalRule: string;
}

export interface ApprovalResponse {
  readonly decision: 'approve' | 'approve_session' | 'reject';
  /** Why the person rejected it, passed on to the model. */
  readonly feedback?: string;
}

/** Running a tool the host provides (a user tool). */
export interface UserToolRequest {
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
export interface NotificationRequest {
  readonly kind: 'notification';
  readonly title: string;
  readonly body?: string;
  readonly severity?: 'info' | 'warning' | 'error';
}

export interface InteractionRequests {
  approval: [ApprovalRequest, ApprovalResponse];
  user_tool: [UserToolRequest, UserToolResponse];
  notification: [NotificationRequest, void];
}
export type InteractionKind = keyof InteractionRequests;
export type InteractionRequest<K extends InteractionKind = InteractionKind> = InteractionRequests[K][0];
export type InteractionResponse<K extends InteractionKind> = InteractionRequests[K][1];

/** There is no host that can answer this kind of request. */
export class NoInteractionHostError extends Error {
  override readonly name = 'NoInteractionHostError';
}

/**
 * The host interface (Agent scope): approvals, user tools, notifications. The CLI answers on a
 * TTY or by flags; a library host binds its own implementation; tests rebind it. A request is
 * cancelled through `signal`, and the promise then rejects.
 */
export interface ISessionInteractionService {
  /** Whether someone can answer requests of this kind. */
  canRequest(kind: InteractionKind): boolean;
  /** When no one can answer: what the user can do instead, e.g. "run with --yes". */
  readonly unavailableHint?: string;
  request<K extends InteractionKind>(request: InteractionRequest<K> & { readonly kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>>;
}
export const ISessionInteractionService = createServiceId<ISessionInteractionService>('SessionInteractionService');
