import { inject, injectable, preDestroy } from 'inversify';
import { DisposableStore } from '../../base/lifecycle';
import { IAgentToolExecutorService } from '../../services/executor/toolExecutor';
import type { ToolAccesses } from '../../tool/accesses';
import { IAgentToolActivationService } from '../../services/toolActivation/toolActivation';
import { ISkillCatalog, type Skill, SKILL_TOOL_NAME } from './contract';

/**
 * The skills feature's per-agent wiring: it keeps the Skill tool's activation in step with the
 * catalog (the tool is active while a model-invocable skill exists) and remembers which
 * workspace skills the user approved this session.
 */
@injectable()
export class AgentSkillsService {
  private readonly disposables = new DisposableStore();
  private readonly approved = new Set<string>();
  private relistScheduled = false;

  constructor(
    @inject(ISkillCatalog) private readonly catalog: ISkillCatalog,
    @inject(IAgentToolActivationService) activation: IAgentToolActivationService,
    @inject(IAgentToolExecutorService) executor: IAgentToolExecutorService,
  ) {
    this.disposables.add(catalog.onDidChange(() => activation.recompute()));
    // A call may have written a skill (Write, Edit, Bash, git checkout): list again once the burst of
    // finished calls is over. One that declared only reads (Read, Grep, an explore subagent) wrote none.
    this.disposables.add(
      executor.onDidExecuteTool((ctx) => {
        if (ctx.name === SKILL_TOOL_NAME || ctx.outcome !== 'executed' || this.relistScheduled || !mayWriteFiles(ctx.accesses)) return;
        this.relistScheduled = true;
        setImmediate(() => {
          this.relistScheduled = false;
          if (!this.disposables.isDisposed) this.catalog.list();
        });
      }, { name: 'skills relist' }),
    );
  }

  /** Whether this skill, as it is now (same SKILL.md), was approved to run this session. */
  isApproved(skill: Skill): boolean {
    return this.approved.has(approvalKey(skill));
  }

  markApproved(skill: Skill): void {
    this.approved.add(approvalKey(skill));
  }

  @preDestroy()
  dispose(): void {
    this.disposables.dispose();
  }
}

function mayWriteFiles(accesses: ToolAccesses): boolean {
  return accesses.some((access) => access.kind === 'all' || access.kind === 'process' || (access.kind === 'file' && access.op === 'write'));
}

/** A changed skill (other grants, a new scripts/ folder) is a different skill to approve. */
function approvalKey(skill: Skill): string {
  return JSON.stringify([skill.file, skill.allowedTools, skill.hasScripts]);
}
