import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { IAgentStateStore } from '../services/agentState/agentState';
import { FileAgentStateStore } from '../services/agentState/fileAgentStateStore';
import { IToolArgsValidatorService } from '../services/argsValidation/toolArgsValidator';
import { IClock, SystemClock } from '../services/clock/clock';
import { ToolArgsValidatorService } from '../services/argsValidation/toolArgsValidatorService';
import { IAgentSessionGrants, IAgentToolApprovalService, SessionGrants } from '../services/approval/toolApproval';
import { AgentToolApprovalService } from '../services/approval/agentToolApprovalService';
import { IConfigService } from '../services/config/config';
import { ConfigService } from '../services/config/configService';
import { IAgentToolExecutorService } from '../services/executor/toolExecutor';
import { AgentToolExecutorService } from '../services/executor/agentToolExecutorService';
import { ISessionInteractionService } from '../services/interaction/interaction';
import { NoHostInteractionService } from '../services/interaction/noHostInteractionService';
import { IAgentModelService } from '../services/model/model';
import { AgentModelService } from '../services/model/agentModelService';
import { IAgentProfileService } from '../services/profile/profile';
import { AgentProfileService } from '../services/profile/agentProfileService';
import { IAgentRuntimeService } from '../services/runtime/runtime';
import { AgentRuntimeService } from '../services/runtime/agentRuntimeService';
import { IBuiltinToolAssemblyService } from '../services/toolAssembly/builtinToolAssembly';
import { BuiltinToolAssemblyService } from '../services/toolAssembly/builtinToolAssemblyService';
import { IAgentToolActivationService } from '../services/toolActivation/toolActivation';
import { AgentToolActivationService } from '../services/toolActivation/agentToolActivationService';
import { IAgentToolRegistryService } from '../services/toolRegistry/toolRegistry';
import { AgentToolRegistryService } from '../services/toolRegistry/agentToolRegistryService';
import { IAgentToolResultTruncationService } from '../services/truncation/toolResultTruncation';
import { AgentToolResultTruncationService } from '../services/truncation/agentToolResultTruncationService';
import { IAgentToolSelectService } from '../services/toolSelect/toolSelect';
import { AgentToolSelectService } from '../services/toolSelect/agentToolSelectService';
import { IAgentUserToolService } from '../services/userTools/userTools';
import { IAgentPromptInjection, NO_PROMPT_INJECTION } from '../services/promptInjection/promptInjection';
import { AgentUserToolService } from '../services/userTools/agentUserToolService';
import { IAgentWorkspaceService } from '../services/workspace/workspace';
import { IAgentFactory } from '../services/agentFactory/agentFactory';
import { AgentWorkspaceService } from '../services/workspace/agentWorkspaceService';
import { IAgentToolPolicyService } from '../services/toolPolicy/toolPolicy';
import { AgentToolPolicyService } from '../services/toolPolicy/agentToolPolicyService';

/** App-scope services of the core; each must resolve from an App with no agent. */
export const CORE_APP_SERVICES: readonly ServiceIdentifier<unknown>[] = [
  IConfigService,
  IBuiltinToolAssemblyService,
  IToolArgsValidatorService,
  IAgentStateStore,
  IClock,
  IAgentFactory,
];

export const coreAppModule = new ContainerModule(({ bind }) => {
  bind(IConfigService).to(ConfigService).inSingletonScope();
  bind(IBuiltinToolAssemblyService).to(BuiltinToolAssemblyService).inSingletonScope();
  bind(IToolArgsValidatorService).to(ToolArgsValidatorService).inSingletonScope();
  bind(IAgentStateStore).to(FileAgentStateStore).inSingletonScope();
  bind(IClock).to(SystemClock).inSingletonScope();
});

/** Agent-scope services of the core, bound in every Agent container. */
export const coreAgentModule = new ContainerModule(({ bind }) => {
  bind(IAgentRuntimeService).to(AgentRuntimeService).inSingletonScope();
  bind(IAgentWorkspaceService).to(AgentWorkspaceService).inSingletonScope();
  bind(IAgentProfileService).to(AgentProfileService).inSingletonScope();
  bind(IAgentToolPolicyService).to(AgentToolPolicyService).inSingletonScope();
  bind(IAgentToolRegistryService).to(AgentToolRegistryService).inSingletonScope();
  bind(IAgentToolActivationService).to(AgentToolActivationService).inSingletonScope();
  bind(ISessionInteractionService).to(NoHostInteractionService).inSingletonScope();
  bind(IAgentSessionGrants).to(SessionGrants).inSingletonScope();
  bind(IAgentToolApprovalService).to(AgentToolApprovalService).inSingletonScope();
  bind(IAgentToolResultTruncationService).to(AgentToolResultTruncationService).inSingletonScope();
  bind(IAgentToolExecutorService).to(AgentToolExecutorService).inSingletonScope();
  bind(IAgentModelService).to(AgentModelService).inSingletonScope();
  bind(IAgentToolSelectService).to(AgentToolSelectService).inSingletonScope();
  bind(IAgentUserToolService).to(AgentUserToolService).inSingletonScope();
  // The host rebinds it to take prompts between turns (cron fires).
  bind(IAgentPromptInjection).toConstantValue(NO_PROMPT_INJECTION);
});

/** Agent-scope services of the core every agent constructs at once; the tool-select service wires the deferred-tool guard. */
export const CORE_AGENT_STARTUP: readonly ServiceIdentifier<unknown>[] = [IAgentToolSelectService];
