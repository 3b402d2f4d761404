// The tower feature's public surface (`toolhost/features/tower`): the experimental Tower tools.
export { createTowerFeature } from './towerFeature';
export { TOWER_FLAG, TOWER_STATE_KEY, TOWER_MAX_BUDGET, TOWER_SPAWN_PAUSE_MS, TowerError, type TowerState, type SpawnBudget, type Mission, type MissionTask, type RosterEntry, type ReviewRecord } from './contract';
export { AgentTowerService } from './agentTowerService';
export { TowerStateStore, ITowerStateStore, towerStatePath, type TowerChange } from './towerStateStore';
