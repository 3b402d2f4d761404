import { inject, injectable } from 'inversify';
import picomatch from 'picomatch';
import { closestMatch } from '../../base/strings';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import { IAgentToolApprovalService } from '../../services/approval/toolApproval';
import { IConfigService } from '../../services/config/config';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { escapeRuleText } from '../../tool/ruleMatch';
import { AgentSkillsService } from './agentSkillsService';
import { ISkillCatalog, type Skill, type SkillListing, SkillLoadError, SKILL_TOOL_NAME } from './contract';
import { expandSkillBody, formatActivation } from './skillActivation';
import { formatSkillListing } from './skillListing';
import { SKILL_SAMPLES, type SkillInput, SkillInputSchema } from './skillSchemas';
import { skillsConfig } from './skillsConfig';

/** Files of a skill folder an activation lists. */
export const SKILL_FILES_LISTED = 20;
/** Skills a query returns at most. */
export const SKILL_QUERY_LIMIT = 10;

const ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** Repository content is untrusted: a workspace (or config) skill that grants tools or brings scripts asks once. */
export function skillNeedsApproval(skill: Skill): boolean {
  return skill.scope !== 'user' && (skill.allowedTools.length > 0 || skill.hasScripts);
}

/** Session grants an activation adds: the skill's `allowed-tools`, and reading its own folder. */
export function skillGrants(skill: Skill): string[] {
  const folder = `${escapeRuleText(skill.dir)}/**`;
  return [...skill.allowedTools, `Read(${folder})`, `Glob(${folder})`, `Grep(${folder})`];
}

@injectable()
export class SkillTool implements ExecutableTool<SkillInput> {
  readonly name = SKILL_TOOL_NAME;
  readonly parameters: JsonSchema = toInputJsonSchema(SkillInputSchema);
  readonly annotations = ANNOTATIONS;
  constructor(
    @inject(ISkillCatalog) private readonly catalog: ISkillCatalog,
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentToolApprovalService) private readonly approvals: IAgentToolApprovalService,
    @inject(AgentSkillsService) private readonly session: AgentSkillsService,
  ) {}

  /** The description last rendered, for the listing and budget it was rendered from. */
  private rendered: { listing: SkillListing; budget: number; text: string } | undefined;

  get description(): string {
    const listing = this.catalog.list();
    const budget = this.config.section(skillsConfig).listingChars;
    if (this.rendered?.listing !== listing || this.rendered.budget !== budget) {
      const text = renderPrompt(loadDescriptionTemplate(__dirname, 'skill.md'), { SKILL_LISTING: formatSkillListing(listing.skills, budget).text });
      this.rendered = { listing, budget, text };
    }
    return this.rendered.text;
  }

  resolveExecution(input: SkillInput): ToolExecution {
    if (input.name !== undefined && input.query !== undefined) return toolError('Give either name (to run a skill) or query (to search the skills), not both.');
    if (input.query !== undefined) {
      if (input.args !== undefined) return toolError('args go with name, not query: search first, then run the skill with Skill({name, args}).');
      return this.resolveQuery(input.query);
    }
    if (input.name === undefined) return toolError('Give name (a listed skill to run) or query (words to search the skills by).');
    return this.resolveActivation(input.name, input.args ?? '');
  }

  private resolveQuery(query: string): ToolExecution {
    return {
      accesses: this.catalog.snapshot().roots.map((root) => ToolAccesses.readTree(root)),
      description: `Searching skills for "${query}"`,
      display: { kind: 'search', query, scope: 'skills' },
      approvalRule: SKILL_TOOL_NAME,
      // It reads skill names and descriptions only, and runs nothing.
      approval: 'auto',
      execute: async (): Promise<ToolResult> => {
        const listing = this.catalog.list();
        const hits = this.catalog.search(query, SKILL_QUERY_LIMIT);
        if (hits.length === 0) {
          const count = listing.skills.filter((s) => !s.disableModelInvocation).length;
          return toolError(`No skill matches "${query}"; try other words. ${count} skill${count === 1 ? ' is' : 's are'} listed in the Skill tool's description.`);
        }
        const lines = [`query: ${query}`, `matches: ${hits.length}`, '', ...hits.map((h) => `- ${h.skill.name} (${h.skill.scope}): ${h.skill.description}`), '', 'Run one with Skill({name: "…", args: "…"}).'];
        return {
          output: lines.join('\n'),
          structuredContent: { query, matches: hits.map((h) => ({ name: h.skill.name, scope: h.skill.scope, description: h.skill.description, dir: h.skill.dir })) },
        };
      },
    };
  }

  private resolveActivation(name: string, args: string): ToolExecution {
    const skill = this.catalog.get(name);
    if (!skill) return toolError(this.notFound(name));
    if (skill.disableModelInvocation) return toolError(`Skill "${name}" can only be run by the user.`);
    const mustAsk = skillNeedsApproval(skill) && !this.session.isApproved(skill);
    const what = [skill.allowedTools.length > 0 ? `grants ${skill.allowedTools.join(', ')} for the session` : '', skill.hasScripts ? 'has scripts/' : ''].filter(Boolean).join(' and ');
    return {
      accesses: [ToolAccesses.readTree(skill.dir)],
      description: mustAsk ? `Running skill "${name}" from the ${skill.scope}, which ${what}` : `Running skill "${name}"`,
      display: { kind: 'skill_call', skill_name: name, ...(args !== '' ? { args } : {}) },
      approvalRule: `${SKILL_TOOL_NAME}(${escapeRuleText(name)})`,
      matchesRule: (ruleArgs) => picomatch.isMatch(name, ruleArgs),
      // User-level skills, and skills that neither grant nor bring scripts, only add instructions.
      approval: mustAsk ? 'ask' : 'auto',
      execute: async (): Promise<ToolResult> => {
        let loaded;
        try {
          loaded = await this.catalog.load(skill, SKILL_FILES_LISTED);
        } catch (error) {
          if (error instanceof SkillLoadError) return toolError(error.message);
          throw error;
        }
        // Running means it was approved (asked, or by a rule): this skill, as it is, needs no asking again.
        if (skillNeedsApproval(skill)) this.session.markApproved(skill);
        const granted = skillGrants(skill);
        for (const rule of granted) this.approvals.grantForSession(rule);
        const body = expandSkillBody(loaded.body, args, skill.argumentNames);
        return {
          output: formatActivation(loaded, body, skill.allowedTools),
          structuredContent: { skill: skill.name, dir: skill.dir, scope: skill.scope, files: loaded.files, more_files: loaded.moreFiles, granted },
        };
      },
    };
  }

  private notFound(name: string): string {
    const names = this.catalog.snapshot().skills.filter((s) => !s.disableModelInvocation).map((s) => s.name);
    const suggestion = closestMatch(name, names) ?? this.catalog.search(name.replace(/[-_]/g, ' '), 1)[0]?.skill.name;
    return `Skill "${name}" not found;${suggestion !== undefined ? ` did you mean "${suggestion}"?` : ''} Skill({query}) searches.`;
  }
}

export const ISkillTool = createServiceId<SkillTool>('tool.Skill');

export const skillTool = registerAgentToolService(ISkillTool, SkillTool, {
  name: SKILL_TOOL_NAME,
  domain: 'skills',
  requiredRuntimeCapabilities: [],
  // A tool with nothing to run is left out of the model's tool list.
  when: (accessor) => accessor.get(ISkillCatalog).list().skills.some((s) => !s.disableModelInvocation),
  samples: SKILL_SAMPLES,
});
