import { Feature } from '../di/feature';
import { createMcpFeature } from '../features/mcp/mcpFeature';
import { AgentFileStateService } from '../tools/os/fileState/agentFileStateService';
import { IAgentFileStateService } from '../tools/os/contract';
import { AgentTaskService } from '../tools/task/agentTaskService';
import { IAgentTaskService } from '../tools/task/contract';
import { editTool } from '../tools/edit/editTool';
import { bashTool } from '../tools/os/bash/bashTool';
import { IGrepEngineService, IRipgrepLocatorService } from '../tools/os/grep/grepEngineSelection';
import { GrepEngineService } from '../tools/os/grep/grepEngineService';
import { RipgrepLocatorService } from '../tools/os/grep/ripgrepLocatorService';
import { globTool } from '../tools/os/glob/globTool';
import { grepTool } from '../tools/os/grep/grepTool';
import { readTool } from '../tools/os/read/readTool';
import { writeTool } from '../tools/os/write/writeTool';
import { selectToolsTool } from '../tools/selectTools/selectToolsTool';
import { taskListTool } from '../tools/task/taskList/taskListTool';
import { taskOutputTool } from '../tools/task/taskOutput/taskOutputTool';
import { taskStopTool } from '../tools/task/taskStop/taskStopTool';
import { waitForTool } from '../tools/task/waitFor/waitForTool';

/** The OS tools: files, search and shell. */
export function createOsToolsFeature(): Feature {
  return (
    new Feature('os')
      .bindApp(
        ({ bind }) => {
          bind(IRipgrepLocatorService).to(RipgrepLocatorService).inSingletonScope();
          bind(IGrepEngineService).to(GrepEngineService).inSingletonScope();
        },
        [IRipgrepLocatorService, IGrepEngineService],
      )
      // The stale-write guard: Read records what the agent saw, Write and Edit check it.
      .bindAgent(({ bind }) => bind(IAgentFileStateService).to(AgentFileStateService).inSingletonScope())
      .contributeTool(readTool)
      .contributeTool(writeTool)
      .contributeTool(editTool)
      .contributeTool(globTool)
      .contributeTool(grepTool)
      .contributeTool(bashTool)
  );
}

/** Deferred tool loading: select_tools (active only when deferred loading is on). */
export function createToolSelectFeature(): Feature {
  return new Feature('toolSelect').contributeTool(selectToolsTool);
}

/**
 * Background tasks: the Agent-scope task service (it owns the task processes and stops them when
 * the agent ends) and the tools to list, read, stop and wait for tasks. Bash starts tasks with
 * `run_in_background` only when this feature is present.
 */
export function createTaskToolsFeature(): Feature {
  return new Feature('task')
    .bindAgent(({ bind }) => bind(IAgentTaskService).to(AgentTaskService).inSingletonScope())
    .contributeTool(taskListTool)
    .contributeTool(taskOutputTool)
    .contributeTool(taskStopTool)
    .contributeTool(waitForTool);
}

/** Every builtin feature, fresh instances (a Feature belongs to one App at a time). */
export function builtinFeatures(): Feature[] {
  return [createOsToolsFeature(), createTaskToolsFeature(), createToolSelectFeature(), createMcpFeature()];
}
