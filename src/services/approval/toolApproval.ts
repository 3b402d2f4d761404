import { injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import type { ToolResult } from '../../tool/contract';
import type { ToolCallInfo } from '../executor/toolExecutor';
import type { ApprovalDecision } from './approvalPolicy';

export type ApprovalReview =
  | { readonly approved: true; readonly decision: ApprovalDecision | { kind: 'asked'; answer: 'approve' | 'approve_session' } }
  | {
      readonly approved: false;
      readonly result: ToolResult;
      readonly aborted?: boolean;
      /** The host could not decide now and takes the approval with a repeated call (ApprovalPendingError): the outcome is `needs_approval`. */
      readonly pending?: boolean;
    };

/** The outcome of a call whose approval review did not approve it. */
export function refusedApprovalOutcome(review: ApprovalReview & { readonly approved: false }): 'aborted' | 'denied' | 'needs_approval' {
  return review.aborted === true ? 'aborted' : review.pending === true ? 'needs_approval' : 'denied';
}

export interface ApprovalReviewOptions {
  /** Ask the host even when a rule, a grant or the tool's default would allow the call (deny rules still deny). */
  readonly alwaysAsk?: boolean;
  /** Why it is asked, added to the request's description. */
  readonly reason?: string;
}

/**
 * Approval (Agent scope): config `approval` rules, session grants, the tool's default, and the
 * host. With no host to ask, the answer is a denial, never a silent approval. The executor consults
 * it before any other `onBeforeExecuteTool` listener.
 */
export interface IAgentToolApprovalService {
  /** The rule-based decision alone, without asking anyone. */
  evaluate(call: ToolCallInfo): ApprovalDecision;
  /** Decides, asking the host when needed; host requests go one at a time, in call order. */
  review(call: ToolCallInfo, options?: ApprovalReviewOptions): Promise<ApprovalReview>;
  readonly sessionGrants: readonly string[];
  grantForSession(rule: string): void;
  revokeSessionGrant(rule: string): void;
}
export const IAgentToolApprovalService = createServiceId<IAgentToolApprovalService>('AgentToolApprovalService');

/**
 * The rules "approve for this session" stored (Agent scope). A subagent shares its parent's: a
 * grant given to either covers both.
 */
export interface IAgentSessionGrants {
  readonly rules: readonly string[];
  add(rule: string): void;
  remove(rule: string): void;
}
export const IAgentSessionGrants = createServiceId<IAgentSessionGrants>('AgentSessionGrants');

@injectable()
export class SessionGrants implements IAgentSessionGrants {
  private list: string[] = [];

  get rules(): readonly string[] {
    return this.list;
  }

  add(rule: string): void {
    if (!this.list.includes(rule)) this.list.push(rule);
  }

  remove(rule: string): void {
    this.list = this.list.filter((r) => r !== rule);
  }
}
