import { inject, injectable, optional } from 'inversify';
import { IConfigService } from '../../services/config/config';
import { IAgentToolRegistryService } from '../../services/toolRegistry/toolRegistry';
import { IAgentTaskService, TaskLimitError } from '../task/contract';
import { agentConfig } from './agentConfig';
import { AgentSubagentService } from './agentSubagentService';
import { type DetachedSubagent, type DetachedSubagentRequest, type ISubagentLauncher, SubagentLaunchError } from './contract';
import { resolveSubagentProfile, subagentProfiles } from './subagentProfiles';

/** ISubagentLauncher over this agent's subagent service and task service. */
@injectable()
export class SubagentLauncher implements ISubagentLauncher {
  constructor(
    @inject(AgentSubagentService) private readonly subagents: AgentSubagentService,
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentTaskService) @optional() private readonly tasks: IAgentTaskService | undefined,
  ) {}

  get available(): boolean {
    return this.subagents.hasRunner && this.tasks !== undefined;
  }

  newAgentId(): string {
    return this.subagents.newAgentId();
  }

  startDetached(request: DetachedSubagentRequest): DetachedSubagent {
    const config = this.config.section(agentConfig);
    if (!this.subagents.hasRunner) throw new SubagentLaunchError('No subagent runner is bound to this App, so subagents cannot run; do the work yourself.');
    if (!this.tasks) throw new SubagentLaunchError('Background tasks are not available to this agent, so a detached subagent cannot run.');
    if (this.subagents.lineage.depth >= config.maxDepth) throw new SubagentLaunchError(`Subagents cannot start subagents (agent.maxDepth ${config.maxDepth}).`);
    const resolved = resolveSubagentProfile(request.profile, config, this.registry);
    if (!resolved) throw new SubagentLaunchError(`"${request.profile}" is not a subagent profile; use one of: ${[...subagentProfiles(config).keys()].join(', ')}.`);
    const agentId = request.agentId ?? this.subagents.newAgentId();
    type Settled = Awaited<DetachedSubagent['settled']>;
    let settle!: (value: Settled) => void;
    const settled = new Promise<Settled>((resolve) => (settle = resolve));
    let task;
    try {
      task = this.tasks.startAgent({
        description: request.description,
        command: `subagent ${request.profile}`,
        agentId,
        cwd: request.cwd ?? this.subagents.lineageCwd,
        run: async (signal, log) => {
          const outcome = await this.subagents.run({ agentId, description: request.description, prompt: request.prompt, resolved, ...(request.cwd !== undefined ? { cwd: request.cwd } : {}) }, signal, { progress: (text) => log(`[${text}]\n`) });
          log(outcome.text);
          settle({ status: outcome.status, ...(outcome.error !== undefined ? { error: outcome.error } : {}) });
          return { status: outcome.status === 'completed' ? 'completed' : 'failed', ...(outcome.error !== undefined ? { stopReason: outcome.error } : {}) };
        },
      });
    } catch (error) {
      if (error instanceof TaskLimitError) throw new SubagentLaunchError(error.message);
      throw error;
    }
    const tasks = this.tasks;
    const taskId = task.id;
    return {
      agentId,
      taskId,
      profile: request.profile,
      settled,
      stop: async (reason) => {
        await tasks.stop(taskId, reason);
        await settled;
      },
    };
  }
}
