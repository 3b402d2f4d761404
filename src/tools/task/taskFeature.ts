import { Feature } from '../../di/feature';
import { AgentTaskService } from './agentTaskService';
import { IAgentTaskNotifications, IAgentTaskService, IAgentTaskServiceFactory } from './contract';
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
      bind(AgentTaskService).toSelf().inSingletonScope();
      // A factory (the scale feature's queue) may replace it; it keeps the in-process one for what it does not run.
      bind(IAgentTaskService)
        .toDynamicValue((context) => {
          const local = context.get(AgentTaskService);
          return context.get(IAgentTaskServiceFactory, { optional: true })?.create(local) ?? local;
        })
        .inSingletonScope();
      // Background tasks that end are reported to the model through the host's prompt queue.
      bind(IAgentTaskNotifications).to(TaskCompletionNotifier).inSingletonScope();
    })
    .startWithAgent(IAgentTaskNotifications)
    .contributeTool(taskListTool)
    .contributeTool(taskOutputTool)
    .contributeTool(taskStopTool)
    .contributeTool(waitForTool);
}
