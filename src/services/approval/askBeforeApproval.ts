import type { BeforeExecuteContext } from '../executor/toolExecutor';
import { type IAgentToolApprovalService, refusedApprovalOutcome } from './toolApproval';

/**
 * Settles a call from a before-execute hook that runs before approval, by asking the host even
 * when a rule, a session grant or the tool's default would allow it (a deny rule still denies).
 * A yes approves the call (approval does not ask again; later before-listeners still run and
 * may veto it); anything else vetoes it with the answer's result. The way a PreToolUse hook's "ask" and plan mode's read-only MCP calls force a question.
 */
export async function askBeforeApproval(approval: IAgentToolApprovalService, ctx: BeforeExecuteContext, reason: string): Promise<void> {
  const review = await approval.review(ctx, { alwaysAsk: true, reason });
  if (review.approved) ctx.approve();
  else ctx.veto(review.result, refusedApprovalOutcome(review));
}
