import { Feature } from '../../di/feature';
import { AgentTowerService } from './agentTowerService';
import { ITowerStateStore, TowerStateStore } from './towerStateStore';
import { towerTools } from './towerTools';

/** The experimental Tower tools (env TOOLHOST_EXPERIMENTAL_TOWER): a file-based multi-agent protocol under `.tower/`. */
export function createTowerFeature() {
  let feature = new Feature('tower')
    .bindApp(({ bind }) => bind(ITowerStateStore).to(TowerStateStore).inSingletonScope(), [ITowerStateStore])
    .bindAgent(({ bind }) => bind(AgentTowerService).toSelf().inSingletonScope());
  for (const tool of towerTools) feature = feature.contributeTool(tool);
  return feature;
}
