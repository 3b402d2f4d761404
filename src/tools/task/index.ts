// The task tool family's public surface (`toolhost/tools/task`): background tasks and their tools.
export { createTaskToolsFeature } from './taskFeature';
export { tasksConfig, TasksConfigSchema, type TasksConfig } from './taskConfig';
export {
  IAgentTaskService,
  TaskLimitError,
  isTerminalStatus,
  type TaskInfo,
  type TaskStatus,
  type StartProcessTaskOptions,
  type StartAgentTaskOptions,
  type AgentTaskEnd,
  type TaskKind,
  type TaskOutputRequest,
  type TaskOutputSlice,
  type TaskWaitResult,
} from './contract';
export { AgentTaskService } from './agentTaskService';
export { TaskListTool, ITaskListTool, taskListTool } from './taskList/taskListTool';
export { TaskOutputTool, ITaskOutputTool, taskOutputTool } from './taskOutput/taskOutputTool';
export { TaskStopTool, ITaskStopTool, taskStopTool } from './taskStop/taskStopTool';
export { WaitForTool, IWaitForTool, waitForTool } from './waitFor/waitForTool';
