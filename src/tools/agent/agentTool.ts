import { inject, injectable, optional } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import { IConfigService } from '../../services/config/config';
import { IAgentToolRegistryService } from '../../services/toolRegistry/toolRegistry';
import { IAgentWorkspaceService } from '../../services/workspace/workspace';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { IAgentTaskNotifications, IAgentTaskService, TaskLimitError } from '../task/contract';
import { agentConfig } from './agentConfig';
import { formatOutcome, runLoggedChild, taskEndOf } from './agentResult';
import { AGENT_SAMPLES, AGENT_TOOL_NAME, type AgentInput, createAgentInputSchema } from './agentSchema';
import { AgentSubagentService, MAX_RESUMABLE_SUBAGENTS } from './agentSubagentService';
import type { SubagentLaunch } from './contract';

const BACKGROUND_TOOLS = ['TaskOutput', 'TaskStop', 'WaitFor'] as const;
const schemaCache = new Map<string, JsonSchema>();

@injectable()
export class AgentTool implements ExecutableTool<AgentInput> {
  readonly name = AGENT_TOOL_NAME;
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(AgentSubagentService) private readonly subagents: AgentSubagentService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentTaskService) @optional() private readonly tasks: IAgentTaskService | undefined,
    @inject(IAgentTaskNotifications) @optional() private readonly notifications: IAgentTaskNotifications | undefined,
  ) {}

  private get profileNames(): string[] {
    return this.subagents.profileNames();
  }

  private get backgroundAvailable(): boolean {
    return this.tasks !== undefined && BACKGROUND_TOOLS.every((name) => this.registry.get(name) !== undefined);
  }

  private get worktreeRepo(): string | undefined {
    return this.subagents.worktreeRepo();
  }

  get parameters(): JsonSchema {
    const options = { profiles: this.profileNames, background: this.backgroundAvailable, worktree: this.worktreeRepo !== undefined };
    const key = JSON.stringify(options);
    let schema = schemaCache.get(key);
    if (!schema) {
      schema = toInputJsonSchema(createAgentInputSchema(options));
      schemaCache.set(key, schema);
    }
    return schema;
  }

  get description(): string {
    const profiles = this.profileNames.map((name) => {
      const resolved = this.subagents.resolveProfile(name)!;
      return `- \`${name}\` (${resolved.profile.readOnly ? 'read-only' : 'writes'}): ${resolved.profile.description}`;
    });
    return renderPrompt(loadDescriptionTemplate(__dirname, 'agent.md'), {
      PROFILES: profiles.join('\n'),
      BACKGROUND: this.backgroundAvailable
        ? '- `run_in_background: true` starts it as a background task and returns its task_id at once; WaitFor or TaskOutput get the result, TaskStop ends it.\n'
        : '',
      ISOLATION: this.worktreeRepo !== undefined ? '- `isolation: "worktree"` gives a writing subagent its own git worktree, so its changes stay out of your working tree until you merge its branch.\n' : '',
    });
  }

  resolveExecution(input: AgentInput): ToolExecution {
    const unavailable = this.subagents.unavailableReason();
    if (unavailable !== undefined) return toolError(unavailable);
    if (input.resume !== undefined && input.subagent_type !== undefined) {
      return toolError(`resume continues subagent ${input.resume} with the profile it had; leave out subagent_type (or start a new subagent without resume).`);
    }
    // A new child's id is drawn when it runs: resolving the call again (the executor does, right before it runs) must give the same accesses.
    let agentId: string | undefined;
    let profileName: string;
    let keptWorktree = false;
    if (input.resume !== undefined) {
      const previous = this.subagents.child(input.resume);
      if (!previous) {
        return toolError(
          `${input.resume} is not one of the last ${MAX_RESUMABLE_SUBAGENTS} subagents this agent started; resume takes the agent_id of a recent Agent result, or start a new subagent.`,
        );
      }
      const task = this.tasks?.list().find((t) => t.agentId === input.resume && t.status === 'running');
      // A child on a worker runs while its task does (its result is noted a moment after the task ended).
      if (previous.queued ? task !== undefined : previous.running) {
        return toolError(`Agent ${input.resume} is running; wait for it${task ? ` (WaitFor task_ids ["${task.id}"])` : ''} before resuming.`);
      }
      agentId = input.resume;
      profileName = previous.profileName;
      // Its changes are in the worktree its last run kept: it continues there, isolated as before.
      keptWorktree = previous.keptWorktree !== undefined;
    } else {
      if (input.subagent_type === undefined) return toolError(`Give subagent_type (one of: ${this.profileNames.join(', ')}), or resume with the agent_id of an earlier subagent.`);
      profileName = input.subagent_type;
    }
    const resolved = this.subagents.resolveProfile(profileName);
    if (!resolved) return toolError(`subagent_type "${profileName}" is not a profile; use one of: ${this.profileNames.join(', ')}.`);
    if (input.run_in_background === true && !this.backgroundAvailable) {
      return toolError('Background subagents are not available here (the task tools are not active); run it in the foreground.');
    }
    const repoDir = input.isolation === 'worktree' || keptWorktree ? this.worktreeRepo : undefined;
    if ((input.isolation === 'worktree' || keptWorktree) && repoDir === undefined) return toolError('isolation "worktree" needs a git repository as the workspace and a runtime that runs processes; leave isolation out.');
    const refusal = input.run_in_background === true ? this.subagents.placementRefusal({ isolated: repoDir !== undefined }) : undefined;
    if (refusal !== undefined) return toolError(refusal);
    const launchOf = (): SubagentLaunch => {
      const id = agentId ?? this.subagents.newAgentId();
      return {
        agentId: id,
        description: input.description,
        prompt: input.prompt,
        resolved,
        ...(repoDir !== undefined ? { worktree: { path: this.subagents.worktreePathOf(id), repoDir } } : {}),
      };
    };
    const background = input.run_in_background === true;
    return {
      accesses: this.subagents.accessesOf({ readOnly: resolved.profile.readOnly, isolated: repoDir !== undefined }),
      approval: 'auto',
      approvalRule: `${AGENT_TOOL_NAME}(${profileName})`,
      matchesRule: (ruleArgs) => ruleArgs.trim() === profileName,
      description: `Starting subagent ${profileName}: ${input.description}`,
      display: { kind: 'agent_call', agent_name: profileName, prompt: input.prompt, ...(background ? { background } : {}) },
      execute: async (ctx) => {
        if (agentId !== undefined) await this.subagents.queuedRunNoted(agentId);
        return background ? this.startInBackground(launchOf()) : this.runInForeground(launchOf(), ctx.signal, (text) => ctx.onUpdate({ kind: 'status', text }));
      },
    };
  }

  private async runInForeground(launch: SubagentLaunch, signal: AbortSignal, progress: (text: string) => void): Promise<ToolResult> {
    const outcome = await this.subagents.run(launch, signal, { progress });
    return formatOutcome(outcome, { cwd: this.workspace.cwd, maxResultChars: this.config.section(agentConfig).maxResultChars });
  }

  private async startInBackground(launch: SubagentLaunch): Promise<ToolResult> {
    const tasks = this.tasks!;
    const format = { cwd: this.workspace.cwd, maxResultChars: this.config.section(agentConfig).maxResultChars };
    const shown = { description: launch.description, command: `${AGENT_TOOL_NAME} ${launch.resolved.profile.name}`, cwd: launch.worktree?.path ?? this.workspace.cwd };
    const queue = this.subagents.jobQueue;
    let task;
    try {
      if (queue) {
        // On a worker: it runs the child as runLoggedChild does here, into the task's output.
        const queued = queue.startBackground(this.subagents.jobOf(launch, true), shown);
        this.subagents.noteChild(launch.agentId, launch.resolved.profile.name, undefined, queued.ended);
        task = queued.task;
      } else {
        task = tasks.startAgent({ ...shown, agentId: launch.agentId, run: async (signal, log) => taskEndOf(await runLoggedChild(this.subagents, launch, signal, log, format)) });
      }
    } catch (error) {
      if (error instanceof TaskLimitError) return toolError(error.message);
      throw error;
    }
    const lines = [
      `task_id: ${task.id}`,
      `agent_id: ${launch.agentId}`,
      `subagent_type: ${launch.resolved.profile.name}`,
      'status: running',
      ...(this.notifications?.active ? ['automatic_notification: true (you are told when it ends; do not poll it)'] : []),
      `next_step: WaitFor with task_ids ["${task.id}"] waits for it; TaskOutput with task_id "${task.id}" shows its result once it ended; TaskStop ends it.`,
    ];
    return { output: lines.join('\n'), structuredContent: { task_id: task.id, agent_id: launch.agentId, subagent_type: launch.resolved.profile.name, status: 'running' } };
  }
}

export const IAgentTool = createServiceId<AgentTool>('tool.Agent');
export const agentTool = registerAgentToolService(IAgentTool, AgentTool, {
  name: AGENT_TOOL_NAME,
  domain: 'agent',
  requiredRuntimeCapabilities: [],
  approval: 'auto',
  samples: AGENT_SAMPLES,
  // Offered only while a runner is bound, and not past the depth limit (subagents get none by default).
  when: (accessor) => accessor.get(AgentSubagentService).canStart,
});
