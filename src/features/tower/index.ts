// The tower feature's public surface (`toolhost/features/tower`): the experimental Tower tools.
export { createTowerFeature } from './towerFeature';
export { TOWER_FLAG, TOWER_STATE_KEY, TowerError, type TowerState, type Mission, type MissionTask, type RosterEntry, type ReviewRecord } from './contract';
export { AgentTowerService } from './agentTowerService';
export { TowerStateStore, ITowerStateStore, towerStatePath, type TowerChange } from './towerStateStore';
