import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { isPathInside } from '../../tool/pathAccess';
import { toolError } from '../../tool/contract';
import { IConfigService } from '../config/config';
import { AbortWatch, GAVE_UP } from '../executor/abortWatch';
import { describeError } from '../executor/callEnd';
import type { ServiceAccessor } from '../../di/toolContribution';
import type { ToolCallInfo } from '../executor/toolExecutor';
import { ApprovalPendingError, type ApprovalRequest, ISessionInteractionService, NoInteractionHostError } from '../interaction/interaction';
import { IAgentServiceAccessor } from '../toolActivation/toolActivation';
import { IAgentWorkspaceService } from '../workspace/workspace';
import { type ApprovalDecision, evaluateApproval } from './approvalPolicy';
import { type ApprovalReview, IAgentSessionGrants, type IAgentToolApprovalService, type ApprovalReviewOptions } from './toolApproval';

const DO_NOT_RETRY = 'Do not retry the same call; choose a different approach or ask the user how to proceed.';

@injectable()
export class AgentToolApprovalService implements IAgentToolApprovalService {
  private dataDir: string | undefined;
  /** Host requests go one at a time, in the order they were made. */
  private hostQueue: Promise<unknown> = Promise.resolve();

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
    @inject(IAgentSessionGrants) private readonly grants: IAgentSessionGrants,
  ) {}

  /** Resolved at each use, so a host that rebinds the interaction service after createAgent gets the requests. */
  private get interactions(): ISessionInteractionService {
    return this.services.get(ISessionInteractionService);
  }

  get sessionGrants(): readonly string[] {
    return this.grants.rules;
  }

  grantForSession(rule: string): void {
    this.grants.add(rule);
  }

  revokeSessionGrant(rule: string): void {
    this.grants.remove(rule);
  }

  evaluate(call: ToolCallInfo): ApprovalDecision {
    // The agent's own data directory holds spilled outputs the model is told to Read.
    const dataDir = (this.dataDir ??= nodePath.resolve(this.workspace.dataDir));
    return evaluateApproval(
      this.config.config.approval,
      this.grants.rules,
      {
        toolName: call.name,
        accesses: call.accesses,
        approvalDefault: call.execution.approval ?? call.defaultApproval,
        matchesRule: call.execution.matchesRule?.bind(call.execution),
      },
      (path) => (this.workspace.isInside(path) || isPathInside(path, dataDir)) && !isMultiplyLinkedFile(path),
    );
  }

  async review(call: ToolCallInfo, options: ApprovalReviewOptions = {}): Promise<ApprovalReview> {
    const decision = this.evaluate(call);
    if (decision.kind === 'allow' && options.alwaysAsk !== true) return { approved: true, decision };
    if (decision.kind === 'deny') {
      return {
        approved: false,
        result: toolError(`Tool "${call.name}" was denied by the approval rule "${decision.rule}" (config approval.deny). ${DO_NOT_RETRY}`),
      };
    }
    if (!this.interactions.canRequest('approval')) return { approved: false, result: this.noHost(call) };
    const turn = this.hostQueue.then(() => this.ask(call, options));
    this.hostQueue = turn.catch(() => undefined);
    return turn;
  }

  private async ask(call: ToolCallInfo, options: ApprovalReviewOptions): Promise<ApprovalReview> {
    if (call.signal.aborted) return { approved: false, aborted: true, result: toolError(`Tool "${call.name}" was aborted`) };
    // An answer to an earlier request ("approve for this session") may cover this call by now.
    const now = options.alwaysAsk === true ? undefined : this.evaluate(call);
    if (now?.kind === 'allow') return { approved: true, decision: now };
    const action = call.execution.description ?? `Run ${call.name}`;
    const description = options.reason !== undefined ? `${action} (${options.reason})` : action;
    const request: ApprovalRequest = {
      kind: 'approval',
      toolCallId: call.toolCallId,
      toolName: call.name,
      args: call.args,
      description,
      display: call.execution.display ?? { kind: 'generic', summary: description, detail: call.args },
      approvalRule: call.execution.approvalRule,
      accesses: call.accesses,
    };
    const host = this.interactions;
    let response;
    // A host that ignores the abort is given up on after the grace period, so neither this call
    // nor the requests queued behind it wait for it forever.
    const watch = new AbortWatch(call.signal, this.config.config.executor.abortGraceMs);
    try {
      response = await watch.untilGraceOver(host.request(request, call.signal));
    } catch (error) {
      if (call.signal.aborted) return { approved: false, aborted: true, result: toolError(`Tool "${call.name}" was aborted`) };
      if (isNoHostError(error)) return { approved: false, result: this.noHost(call, host) };
      if (isPendingError(error)) return { approved: false, pending: true, result: toolError(`Tool "${call.name}" was not run: it needs approval. ${describeError(error)}`) };
      return {
        approved: false,
        result: toolError(`Tool "${call.name}" was not run: the approval request failed (${describeError(error)}). ${DO_NOT_RETRY}`),
      };
    } finally {
      watch.dispose();
    }
    if (response === GAVE_UP) return { approved: false, aborted: true, result: toolError(`Tool "${call.name}" was aborted`) };
    if (response.decision === 'approve' || response.decision === 'approve_session') {
      if (response.decision === 'approve_session') this.grantForSession(call.execution.approvalRule);
      return { approved: true, decision: { kind: 'asked', answer: response.decision } };
    }
    const feedback = typeof response.feedback === 'string' ? response.feedback.trim() : '';
    const reason = feedback ? ` Reason: ${feedback}` : '';
    return { approved: false, result: toolError(`Tool "${call.name}" was not run: the user rejected it.${reason} ${DO_NOT_RETRY}`) };
  }

  private noHost(call: ToolCallInfo, host: ISessionInteractionService = this.interactions) {
    const hint = host.unavailableHint;
    return toolError(
      `Tool "${call.name}" was not run: it needs approval and there is no one to approve it.` +
        ` To allow it, add a rule such as "${call.execution.approvalRule}" to approval.allow in toolhost.json${hint ? `, or ${hint}` : ''}. ${DO_NOT_RETRY}`,
    );
  }
}

function isPendingError(error: unknown): boolean {
  try {
    return error instanceof ApprovalPendingError;
  } catch {
    return false;
  }
}

function isNoHostError(error: unknown): boolean {
  try {
    return error instanceof NoInteractionHostError;
  } catch {
    return false;
  }
}

/**
 * A regular file with more than one link is the same file as another name, perhaps a secret's
 * (`.env`) or one outside the workspace: reading it is never approved as an inside read without
 * asking. Only the file's metadata is read; a path that does not exist (or cannot be read) is left
 * to the tool, which reports it.
 */
function isMultiplyLinkedFile(path: string): boolean {
  try {
    const stat = fs.statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && stat.isFile() && stat.nlink > 1;
  } catch {
    return false;
  }
}
