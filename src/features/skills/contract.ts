import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';

/**
 * Where a skill was found. `user`: the home directory's roots (the user installed it there);
 * `workspace`: the workspace's roots (repository content, untrusted until the user approves it);
 * `config`: a folder of config `skills.paths` (treated like workspace skills, since a workspace
 * toolhost.json can name it).
 */
export type SkillScope = 'workspace' | 'user' | 'config';

/** A skill as its SKILL.md front matter declares it (the Agent Skills format), found in a root. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly scope: SkillScope;
  /** The skill's folder: canonical absolute path. */
  readonly dir: string;
  /** Its SKILL.md: canonical absolute path. */
  readonly file: string;
  /** The `allowed-tools` entries as approval rules (`Bash(git *)`), in the order given. */
  readonly allowedTools: readonly string[];
  /** `disable-model-invocation: true`: left out of the listing; only the user can run it. */
  readonly disableModelInvocation: boolean;
  /** Names of the `arguments` front matter list: `$<name>` in the body takes the argument at its position. */
  readonly argumentNames: readonly string[];
  /** The folder has a `scripts/` subfolder (code the skill may tell the agent to run). */
  readonly hasScripts: boolean;
  readonly license?: string;
  readonly compatibility?: string;
}

/** A problem with one SKILL.md or root. `error`: the skill is not listed; `warning`: it is, as read. */
export interface SkillDiagnostic {
  readonly severity: 'error' | 'warning';
  /** The SKILL.md, skill folder or root it is about. */
  readonly path: string;
  readonly message: string;
  /** The skill's name, when it is known. */
  readonly skill?: string;
}

export interface SkillListing {
  /** The roots that exist, canonical, in search order (a root linked to an earlier one is left out). */
  readonly roots: readonly string[];
  /** Every usable skill, in root order (first root first), then by folder name. */
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly SkillDiagnostic[];
}

export interface SkillSearchHit {
  readonly skill: Skill;
  /** Higher is better; hits come sorted by it. */
  readonly score: number;
}

/** An activated skill's content: its body and the files beside it. */
export interface LoadedSkill {
  readonly skill: Skill;
  /** SKILL.md after its front matter. */
  readonly body: string;
  /** Paths relative to the skill folder, sorted, SKILL.md left out; at most the limit asked for. */
  readonly files: readonly string[];
  /** More files exist than `files` lists (or the walk stopped at its bound). */
  readonly moreFiles: boolean;
}

/** A skill that cannot be loaded any more (its SKILL.md vanished or grew past the size limit). */
export class SkillLoadError extends Error {
  override readonly name = 'SkillLoadError';
}

/**
 * The skills an agent can use (Agent scope: the roots depend on its workspace and home). The
 * default reads `<root>/<name>/SKILL.md` in `<ws>/.agents/skills`, `<ws>/.claude/skills`,
 * `~/.agents/skills`, `~/.claude/skills` and config `skills.paths`, in that order; the first root
 * wins a duplicate name. A host can rebind it to serve skills from elsewhere.
 */
export interface ISkillCatalog {
  /** The skills and diagnostics now: revalidates the roots (one stat per SKILL.md) and rereads what changed. */
  list(): SkillListing;
  /** The last listing, without I/O (the first call lists). */
  snapshot(): SkillListing;
  /** A skill by name from the last listing (no I/O once listed). */
  get(name: string): Skill | undefined;
  /** Model-invocable skills of the last listing matching words of `query` in their name or description, best first, at most `limit` (default 10). */
  search(query: string, limit?: number): readonly SkillSearchHit[];
  /** Reads a skill's body and lists its files (up to `maxFiles`). Throws SkillLoadError when it cannot. */
  load(skill: Skill, maxFiles: number): Promise<LoadedSkill>;
  /** Fires when a listing differs from the previous one. */
  readonly onDidChange: Event<SkillListing>;
}
export const ISkillCatalog = createServiceId<ISkillCatalog>('SkillCatalog');

export const SKILL_TOOL_NAME = 'Skill';
/** The state key of the skills feature (approvals of workspace skills). */
export const SKILLS_STATE_KEY = 'skills';
export const SKILL_FILE_NAME = 'SKILL.md';
