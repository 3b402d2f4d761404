import { Feature } from '../../di/feature';
import { AgentSkillsService } from './agentSkillsService';
import { ISkillCatalog } from './contract';
import { FileSkillCatalog, SkillFileCache } from './fileSkillCatalog';
import { skillsConfig } from './skillsConfig';
import { skillTool } from './skillTool';

/** Agent Skills: the skill catalog (SKILL.md files in the workspace, home and configured roots) and the Skill tool. */
export function createSkillsFeature() {
  return new Feature('skills')
    .contributeConfig(skillsConfig)
    .bindApp(({ bind }) => {
      bind(SkillFileCache).toSelf().inSingletonScope();
    }, [SkillFileCache])
    .bindAgent(({ bind }) => {
      bind(ISkillCatalog).to(FileSkillCatalog).inSingletonScope();
      bind(AgentSkillsService).toSelf().inSingletonScope();
    })
    // It keeps the Skill tool's activation in step with the catalog.
    .startWithAgent(AgentSkillsService)
    .contributeTool(skillTool);
}
