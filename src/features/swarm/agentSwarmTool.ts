import { inject, injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import { IConfigService } from '../../services/config/config';
import { IAgentWorkspaceService } from '../../services/workspace/workspace';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolExecutionContext, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { IAgentSubagentService, type ResolvedSubagentProfile } from '../../tools/agent/contract';
import { formatSwarm } from './swarmResult';
import { runSwarm } from './swarmRun';
import { AGENT_SWARM_SAMPLES, AGENT_SWARM_TOOL_NAME, type AgentSwarmInput, ITEM_PLACEHOLDER, createAgentSwarmInputSchema } from './swarmSchema';
import { DEFAULT_SWARM_CONCURRENCY, swarmConfig } from './swarmConfig';

const schemaCache = new Map<string, JsonSchema>();

/** A checked call: what execute runs. */
interface SwarmPlan {
  readonly input: AgentSwarmInput;
  readonly items: readonly string[];
  readonly resolved: ResolvedSubagentProfile;
  /** Each item's prompt, in item order. */
  readonly prompts: readonly string[];
  readonly isolated: boolean;
  readonly concurrency: number;
}

@injectable()
export class AgentSwarmTool implements ExecutableTool<AgentSwarmInput> {
  readonly name = AGENT_SWARM_TOOL_NAME;
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentSubagentService) private readonly subagents: IAgentSubagentService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
  ) {}

  get parameters(): JsonSchema {
    const options = { profiles: this.subagents.profileNames(), worktree: this.subagents.worktreeRepo() !== undefined };
    const key = JSON.stringify(options);
    let schema = schemaCache.get(key);
    if (!schema) {
      schema = toInputJsonSchema(createAgentSwarmInputSchema(options));
      schemaCache.set(key, schema);
    }
    return schema;
  }

  get description(): string {
    const config = this.config.section(swarmConfig);
    const profiles = this.subagents.profileNames().map((name) => {
      const resolved = this.subagents.resolveProfile(name)!;
      return `- \`${name}\` (${resolved.profile.readOnly ? 'read-only' : 'writes'}): ${resolved.profile.description}`;
    });
    return renderPrompt(loadDescriptionTemplate(__dirname, 'agentSwarm.md'), {
      MAX_ITEMS: String(config.maxItems),
      DEFAULT_CONCURRENCY: String(Math.min(DEFAULT_SWARM_CONCURRENCY, config.maxConcurrency)),
      MAX_CONCURRENCY: String(config.maxConcurrency),
      MAX_RESULT_CHARS: String(config.maxResultCharsPerItem),
      PROFILES: profiles.join('\n'),
      ISOLATION: this.subagents.worktreeRepo() !== undefined ? '- `isolation: "worktree"` gives each subagent its own git worktree, so writing subagents never touch your working tree or each other\'s; merge the branches of the ones that changed something.\n' : '',
    });
  }

  resolveExecution(input: AgentSwarmInput): ToolExecution {
    const planned = this.plan(input);
    if (typeof planned === 'string') return toolError(planned);
    const { resolved } = planned;
    const profileName = resolved.profile.name;
    return {
      // Every child of the swarm has these accesses; they hold no agent id, so a second resolution gives the same.
      accesses: this.subagents.accessesOf({ readOnly: resolved.profile.readOnly, isolated: planned.isolated }),
      // Read-only children change nothing; writing ones ask once for the whole swarm.
      approval: resolved.profile.readOnly ? 'auto' : 'ask',
      approvalRule: `${AGENT_SWARM_TOOL_NAME}(${profileName})`,
      matchesRule: (ruleArgs) => ruleArgs.trim() === profileName,
      description: `Starting a swarm of ${planned.items.length} ${profileName} subagents (${planned.concurrency} at a time): ${input.description}`,
      display: { kind: 'agent_call', agent_name: profileName, prompt: `${input.prompt_template}\n\n${ITEM_PLACEHOLDER} = ${planned.items.length} items: ${planned.items.join(', ')}` },
      execute: (ctx) => this.execute(planned, ctx),
    };
  }

  /** The checked call, or the error for the model. */
  private plan(input: AgentSwarmInput): SwarmPlan | string {
    const unavailable = this.subagents.unavailableReason();
    if (unavailable !== undefined) return unavailable;
    const config = this.config.section(swarmConfig);
    if (!input.prompt_template.includes(ITEM_PLACEHOLDER)) {
      return `prompt_template has no ${ITEM_PLACEHOLDER}. Put ${ITEM_PLACEHOLDER} where each item goes, e.g. "Review ${ITEM_PLACEHOLDER} for unchecked errors and report file:line for each."`;
    }
    if (input.items.length > config.maxItems) return `${input.items.length} items exceed swarm.maxItems (${config.maxItems}); split them over several AgentSwarm calls.`;
    const items = input.items.map((item) => item.trim());
    const blank = items.findIndex((item) => item === '');
    if (blank >= 0) return `item ${blank + 1} is only white space; give each item some text.`;
    const prompts = items.map((item) => input.prompt_template.split(ITEM_PLACEHOLDER).join(item));
    const firstOf = new Map<string, number>();
    for (const [index, prompt] of prompts.entries()) {
      const first = firstOf.get(prompt);
      if (first !== undefined) return `items ${first + 1} and ${index + 1} expand to the same prompt; give each item once.`;
      firstOf.set(prompt, index);
    }
    const concurrency = input.max_concurrency ?? Math.min(DEFAULT_SWARM_CONCURRENCY, config.maxConcurrency);
    if (concurrency > config.maxConcurrency) return `max_concurrency ${concurrency} exceeds swarm.maxConcurrency (${config.maxConcurrency}); ask for ${config.maxConcurrency} or fewer.`;
    const resolved = this.subagents.resolveProfile(input.subagent_type);
    if (!resolved) return `subagent_type "${input.subagent_type}" is not a profile; use one of: ${this.subagents.profileNames().join(', ')}.`;
    const worktree = input.isolation === 'worktree';
    if (worktree && this.subagents.worktreeRepo() === undefined) {
      return 'isolation "worktree" needs a git repository as the workspace and a runtime that runs processes; leave isolation out.';
    }
    const refusal = this.subagents.placementRefusal({ isolated: worktree });
    if (refusal !== undefined) return refusal;
    return { input, items, resolved, prompts, isolated: worktree, concurrency };
  }

  private async execute(plan: SwarmPlan, ctx: ToolExecutionContext): Promise<ToolResult> {
    const config = this.config.section(swarmConfig);
    const started = Date.now();
    const total = plan.items.length;
    const line = (c: { completed: number; failed: number; aborted: number }) => {
      const done = c.completed + c.failed + c.aborted;
      return `${done}/${total} done, ${c.failed} failed${c.aborted > 0 ? `, ${c.aborted} aborted` : ''}`;
    };
    // The children's ids are drawn now, when the call runs.
    const launches = plan.prompts.map((prompt, index) =>
      this.subagents.newLaunch({ description: `${plan.input.description} [${index + 1}/${total}]`, prompt, resolved: plan.resolved, worktree: plan.isolated }),
    );
    const results = await runSwarm({
      items: plan.items,
      launches,
      concurrency: plan.concurrency,
      rateLimitRetries: config.rateLimitRetries,
      signal: ctx.signal,
      // On toolhost workers while scale.jobs.subagents is "queue" (each item a job), else here.
      run: (launch, signal, onEvent) => this.subagents.runWhereConfigured(launch, signal, { progress: () => undefined, onEvent }),
      relaunch: (launch) =>
        this.subagents.newLaunch({ description: launch.description, prompt: launch.prompt, resolved: launch.resolved, worktree: launch.worktree !== undefined }),
      onSettled: (counts) => {
        const done = counts.completed + counts.failed + counts.aborted;
        ctx.onUpdate({ kind: 'progress', text: line(counts), progress: done, total });
      },
      onPaused: (waitMs, counts) => ctx.onUpdate({ kind: 'status', text: `rate limited: no new subagent starts for ${Math.ceil(waitMs / 1000)} s (${line(counts)})` }),
    });
    return formatSwarm({
      profileName: plan.resolved.profile.name,
      durationMs: Date.now() - started,
      results,
      cwd: this.workspace.cwd,
      capText: (outcome) => this.subagents.capText(outcome, config.maxResultCharsPerItem, 'swarm.maxResultCharsPerItem'),
    });
  }
}

export const IAgentSwarmTool = createServiceId<AgentSwarmTool>('tool.AgentSwarm');
export const agentSwarmTool = registerAgentToolService(IAgentSwarmTool, AgentSwarmTool, {
  name: AGENT_SWARM_TOOL_NAME,
  domain: 'agent',
  requiredRuntimeCapabilities: [],
  samples: AGENT_SWARM_SAMPLES,
  // Offered only while a runner is bound and below the depth limit, as Agent.
  when: (accessor) => accessor.get(IAgentSubagentService).unavailableReason() === undefined,
});
