import type { Feature, FeatureConfigInput } from '../di/feature';
import { createCronFeature } from '../features/cron/cronFeature';
import { createGoalFeature } from '../features/goal/goalFeature';
import { createHooksFeature } from '../features/hooks/hooksFeature';
import { createMcpFeature } from '../features/mcp/mcpFeature';
import { createTodoFeature } from '../features/todo/todoFeature';
import { createNotifyFeature } from '../features/notify/notifyFeature';
import { createPlanFeature } from '../features/plan/planFeature';
import { scaleFeature } from '../features/scale/scaleFeature';
import { createSkillsFeature } from '../features/skills/skillsFeature';
import { createSubagentRunnerFeature } from '../features/subagentRunner/subagentRunnerFeature';
import { createSwarmFeature } from '../features/swarm/swarmFeature';
import { createTowerFeature } from '../features/tower/towerFeature';
import { createAgentFeature } from '../tools/agent/agentFeature';
import { createAskUserFeature } from '../tools/askUser/askUserFeature';
import { createEditToolFeature } from '../tools/edit/editFeature';
import { createMediaFeature } from '../tools/media/mediaFeature';
import { createOsToolsFeature } from '../tools/os/osFeature';
import { createToolSelectFeature } from '../tools/selectTools/selectToolsFeature';
import { createTaskToolsFeature } from '../tools/task/taskFeature';
import { createWebSearchFeature } from '../tools/web/search/webSearchFeature';
import { createWebToolsFeature } from '../tools/web/webFeature';

/** The builtin features, in order. A new builtin feature is one more entry here. */
const createBuiltinFeatures = () =>
  [
    createOsToolsFeature(),
    createEditToolFeature(),
    createTaskToolsFeature(),
    createToolSelectFeature(),
    createAskUserFeature(),
    createNotifyFeature(),
    createMcpFeature(),
    createTodoFeature(),
    createGoalFeature(),
    createPlanFeature(),
    createCronFeature(),
    createHooksFeature(),
    createSkillsFeature(),
    createMediaFeature(),
    createWebToolsFeature(),
    createWebSearchFeature(),
    createAgentFeature(),
    createSubagentRunnerFeature(),
    createSwarmFeature(),
    createTowerFeature(),
    scaleFeature(),
  ] as const;

/** Every builtin feature, fresh instances (a Feature belongs to one App at a time). */
export function builtinFeatures(): Feature[] {
  return [...createBuiltinFeatures()];
}

type UnionToIntersection<U> = (U extends unknown ? (arg: U) => void : never) extends (arg: infer I) => void ? I : never;

/** The config input of every builtin feature's sections, typed (derived from the list: nothing to keep in sync). */
export type BuiltinConfigInput = UnionToIntersection<FeatureConfigInput<ReturnType<typeof createBuiltinFeatures>[number]>>;
