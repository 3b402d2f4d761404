import { inject, injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import { Emitter } from '../../base/event';
import { DisposableStore } from '../../base/lifecycle';
import { shellEnvironment } from '../../base/shell/shellEnv';
import { askBeforeApproval } from '../../services/approval/askBeforeApproval';
import { IAgentToolApprovalService } from '../../services/approval/toolApproval';
import { IConfigService } from '../../services/config/config';
import {
  type BeforeExecuteContext,
  type DidExecuteContext,
  IAgentToolExecutorService,
  type ToolCallInfo,
} from '../../services/executor/toolExecutor';
import { IAgentWorkspaceService } from '../../services/workspace/workspace';
import { outputText, type ToolResult, toolError } from '../../tool/contract';
import { type CommandHookProblem, type IAgentCommandHooksService, ICommandHookSessionId } from './commandHooks';
import { type HookAnswer, readHookRun } from './hookAnswer';
import { runHookCommand } from './hookCommandRunner';
import { type CommandHookConfig, type HookEventName, type HookMatcherGroup, hooksConfig } from './hooksConfig';
import { compileToolMatcher, type ToolNameMatcher } from './toolMatcher';

/** PreToolUse hooks run before approval (order 0), so a hook can deny what a rule would allow. */
export const PRE_TOOL_USE_HOOK_ORDER = -10;

interface CompiledGroup {
  readonly matches: ToolNameMatcher;
  readonly hooks: readonly CommandHookConfig[];
}

function compile(groups: readonly HookMatcherGroup[]): readonly CompiledGroup[] {
  return groups.map((g) => ({ matches: compileToolMatcher(g.matcher), hooks: g.hooks }));
}

/** The hooks whose matcher matches; one command listed twice runs once (as in Claude Code). */
function matchingHooks(groups: readonly CompiledGroup[], toolName: string): CommandHookConfig[] | undefined {
  let found: CommandHookConfig[] | undefined;
  for (const group of groups) {
    if (!group.matches(toolName)) continue;
    for (const hook of group.hooks) if (!found?.some((h) => h.command === hook.command)) (found ??= []).push(hook);
  }
  return found;
}

/** The answer of several hooks run together: deny wins over ask, ask over allow. */
function combine(answers: readonly HookAnswer[]): { decision?: 'allow' | 'ask' | 'deny'; reason?: string; context: string[]; stop?: string } {
  const rank = { deny: 3, ask: 2, allow: 1 } as const;
  let decision: 'allow' | 'ask' | 'deny' | undefined;
  for (const a of answers) if (a.decision && (!decision || rank[a.decision] > rank[decision])) decision = a.decision;
  const reasons = answers.filter((a) => a.decision === decision && a.reason !== undefined).map((a) => a.reason!);
  const stop = answers.find((a) => a.stopTurn)?.stopTurn?.reason;
  return {
    ...(decision ? { decision } : {}),
    ...(reasons.length > 0 ? { reason: reasons.join('\n') } : {}),
    context: answers.flatMap((a) => (a.additionalContext !== undefined ? [a.additionalContext] : [])),
    ...(stop !== undefined ? { stop } : {}),
  };
}

function withNote(result: ToolResult, note: string): ToolResult {
  const output = typeof result.output === 'string' ? `${result.output}\n\n${note}` : [...result.output, { type: 'text' as const, text: note }];
  return { ...result, output };
}

@injectable()
export class AgentCommandHooksService implements IAgentCommandHooksService {
  private pre: readonly CompiledGroup[] = [];
  private post: readonly CompiledGroup[] = [];
  private registrations = new DisposableStore();
  private readonly disposables = new DisposableStore();
  private readonly problems = new Emitter<CommandHookProblem>();
  /** PreToolUse `additionalContext`, added to the call's result once it ran. */
  private readonly pendingContext = new Map<string, string[]>();
  private env: NodeJS.ProcessEnv | undefined;
  readonly onDidReportProblem = this.problems.event;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentToolExecutorService) private readonly executor: IAgentToolExecutorService,
    @inject(IAgentToolApprovalService) private readonly approval: IAgentToolApprovalService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(ICommandHookSessionId) private readonly sessionId: string,
  ) {
    this.disposables.add(config.onDidChange(() => this.sync()));
    this.sync();
  }

  /** Registers on the executor only the slots the configuration uses. */
  private sync(): void {
    const hooks = this.config.section(hooksConfig);
    this.pre = compile(hooks.PreToolUse);
    this.post = compile(hooks.PostToolUse);
    this.registrations.dispose();
    this.registrations = new DisposableStore();
    if (this.pre.length > 0) {
      this.registrations.add(this.executor.onBeforeExecuteTool((ctx) => this.beforeTool(ctx), { name: 'PreToolUse command hooks', order: PRE_TOOL_USE_HOOK_ORDER }));
    }
    if (this.post.length > 0 || this.pre.length > 0) {
      this.registrations.add(this.executor.onDidExecuteTool((ctx) => this.afterTool(ctx), { name: 'PostToolUse command hooks' }));
    }
  }

  /** Returns nothing (no promise, no spawn) when no hook matches: the call goes on at once. */
  private beforeTool(ctx: BeforeExecuteContext): Promise<void> | undefined {
    const hooks = matchingHooks(this.pre, ctx.name);
    return hooks ? this.runPre(ctx, hooks) : undefined;
  }

  private async runPre(ctx: BeforeExecuteContext, hooks: readonly CommandHookConfig[]): Promise<void> {
    const answer = combine(await this.runAll('PreToolUse', ctx, hooks, {}));
    if (answer.context.length > 0) this.pendingContext.set(ctx.toolCallId, answer.context);
    const stop = answer.stop !== undefined ? { stopTurn: true } : {};
    if (answer.decision === 'deny') {
      ctx.veto(toolError(`Tool "${ctx.name}" was blocked by a PreToolUse hook: ${answer.reason ?? 'no reason given'}`, stop), 'vetoed');
    } else if (answer.stop !== undefined) {
      ctx.veto(toolError(`Tool "${ctx.name}" was not run: a PreToolUse hook ended the turn: ${answer.stop}`, stop), 'vetoed');
    } else if (answer.decision === 'ask') {
      await askBeforeApproval(this.approval, ctx, `a PreToolUse hook asks${answer.reason ? `: ${answer.reason}` : ''}`);
    } else if (answer.decision === 'allow' && this.approval.evaluate(ctx).kind !== 'deny') {
      // Like Claude Code: a hook's allow skips the prompt, never a deny rule (approval then denies).
      ctx.allow();
    }
  }

  private afterTool(ctx: DidExecuteContext): Promise<void> | undefined {
    const context = this.pendingContext.get(ctx.toolCallId);
    if (context) this.pendingContext.delete(ctx.toolCallId);
    const hooks = ctx.outcome === 'executed' ? matchingHooks(this.post, ctx.name) : undefined;
    if (!hooks) {
      if (context) ctx.result = withNote(ctx.result, contextNote(context));
      return undefined;
    }
    return this.runPost(ctx, hooks, context ?? []);
  }

  private async runPost(ctx: DidExecuteContext, hooks: readonly CommandHookConfig[], preContext: readonly string[]): Promise<void> {
    const response = { output: outputText(ctx.result.output), is_error: ctx.result.isError === true };
    const answer = combine(await this.runAll('PostToolUse', ctx, hooks, { tool_response: response }));
    let result = ctx.result;
    const context = [...preContext, ...answer.context];
    if (context.length > 0) result = withNote(result, contextNote(context));
    if (answer.decision === 'deny') result = withNote(result, `<hook_feedback event="PostToolUse">\n${answer.reason}\n</hook_feedback>`);
    ctx.result = result;
    if (answer.stop !== undefined) ctx.stopTurn();
  }

  /** Runs the hooks in parallel; each one's problem is reported, none throws. */
  private async runAll(event: HookEventName, info: ToolCallInfo, hooks: readonly CommandHookConfig[], extra: Readonly<Record<string, unknown>>): Promise<HookAnswer[]> {
    const stdin = JSON.stringify({
      session_id: this.sessionId,
      agent_id: this.workspace.agentId,
      cwd: this.workspace.cwd,
      hook_event_name: event,
      tool_name: info.name,
      tool_input: info.args,
      tool_use_id: info.toolCallId,
      ...extra,
    });
    this.env ??= shellEnvironment(process.env, { CLAUDE_PROJECT_DIR: this.workspace.cwd, TOOLHOST_PROJECT_DIR: this.workspace.cwd });
    return Promise.all(
      hooks.map(async (hook) => {
        let answer: HookAnswer;
        try {
          const run = await runHookCommand({ command: hook.command, cwd: this.workspace.cwd, env: this.env!, stdin, timeoutMs: hook.timeout * 1000, signal: info.signal });
          answer = readHookRun(event, run, hook.timeout);
        } catch (error) {
          answer = { problem: { kind: 'spawn-error', message: `the hook could not be run: ${errorMessage(error)}` } };
        }
        if (answer.problem) this.report({ event, command: hook.command, toolName: info.name, toolCallId: info.toolCallId, ...answer.problem });
        return answer;
      }),
    );
  }

  private report(problem: CommandHookProblem): void {
    try {
      this.problems.fire(problem);
    } catch {
      // A listener's failure is not the hook's.
    }
  }

  @preDestroy()
  dispose(): void {
    this.registrations.dispose();
    this.disposables.dispose();
    this.problems.dispose();
  }
}

function contextNote(context: readonly string[]): string {
  return `<hook_context>\n${context.join('\n')}\n</hook_context>`;
}
