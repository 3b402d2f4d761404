// The plan feature's public surface (`toolhost/features/plan`): plan mode, its guard, EnterPlanMode and ExitPlanMode.
export { createPlanFeature } from './planFeature';
export { IAgentPlanModeService, PLAN_GUARD_ORDER, PlanModeError, type PlanModeState, type ModeChangedEvent, type PlanModeMcpTool } from './contract';
export { AgentPlanModeService } from './agentPlanModeService';
export { PLAN_MODE_STATE_KEY, ENTER_PLAN_MODE_NAME, EXIT_PLAN_MODE_NAME, planModeDecision, type PlanModeDecision } from './planGuard';
export { planConfig, PlanConfigSchema, type PlanConfig } from './planConfig';
export { EnterPlanModeTool, ExitPlanModeTool, IEnterPlanModeTool, IExitPlanModeTool, enterPlanModeTool, exitPlanModeTool, NO_REVIEWER_MESSAGE, AUTO_APPROVED_LABEL, PLAN_STARTED_SKIP_MESSAGE } from './planTools';
export { EnterPlanModeInputSchema, ExitPlanModeInputSchema, type EnterPlanModeInput, type ExitPlanModeInput } from './planSchemas';
