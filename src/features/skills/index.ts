// The skills feature's public surface (`toolhost/features/skills`): the skill catalog port, its file-roots default and the Skill tool.
export { createSkillsFeature } from './skillsFeature';
export {
  ISkillCatalog,
  SkillLoadError,
  SKILL_TOOL_NAME,
  SKILL_FILE_NAME,
  type Skill,
  type SkillScope,
  type SkillDiagnostic,
  type SkillListing,
  type SkillSearchHit,
  type LoadedSkill,
} from './contract';
export { FileSkillCatalog, SkillFileCache, type ReadSkill, skillRoots, type SkillRoot, MAX_SKILL_FILE_BYTES, MAX_SKILLS_PER_ROOT } from './fileSkillCatalog';
export { parseSkillFile, type SkillFileText, type SkillFileProblem } from './frontMatter';
export { skillNameProblem, SKILL_NAME_MAX_CHARS, SKILL_DESCRIPTION_MAX_CHARS } from './skillRules';
export { formatSkillListing, type SkillListingText } from './skillListing';
export { expandSkillBody, splitArguments } from './skillActivation';
export { AgentSkillsService } from './agentSkillsService';
export { SkillTool, ISkillTool, skillTool, skillNeedsApproval, skillGrants, SKILL_FILES_LISTED, SKILL_QUERY_LIMIT } from './skillTool';
export { SkillInputSchema, type SkillInput } from './skillSchemas';
export { skillsConfig, SkillsConfigSchema, type SkillsConfig } from './skillsConfig';
