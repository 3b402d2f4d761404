import { Feature } from '../../di/feature';
import { AgentTaskService } from './agentTaskService';
import { IAgentStartup } from '../../di/agentStartup';
import { IAgentTaskNotifications, IAgentTaskService } from './contract';
import { tasksConfig } from './taskConfig';
import { TaskCompletionNotifier } from './taskNotifier';
import { taskListTool } from './taskList/taskListTool';
import { taskOutputTool } from './taskOutput/taskOutputTool';
import { taskStopTool } from './taskStop/taskStopTool';
import { waitForTool } from './waitFor/waitForTool';

/**
 * Background tasks: the Agent-scope task service (it owns the task processes and stops them when
 * the agent ends) and the tools to list, read, stop and wait for tasks. Bash starts tasks with
 * `run_in_background` only when this feature is present. Tasks that end are reported to the
 * model by themselves when the host takes prompts (IAgentPromptInjection).
 */
export function createTaskToolsFeature() {
  return new Feature('task')
    .contributeConfig(tasksConfig)
    .bindAgent(({ bind }) => {
      bind(IAgentTaskService).to(AgentTaskService).inSingletonScope();
      // Background tasks that end are reported to the model through the host's prompt queue.
      bind(IAgentTaskNotifications).to(TaskCompletionNotifier).inSingletonScope();
      bind(IAgentStartup).toService(IAgentTaskNotifications);
    })
    .contributeTool(taskListTool)
    .contributeTool(taskOutputTool)
    .contributeTool(taskStopTool)
    .contributeTool(waitForTool);
}
