import { Feature } from '../scopes/feature';
import { AgentFileStateService } from '../services/fileState/agentFileStateService';
import { IAgentFileStateService } from '../services/fileState/fileState';
import { editTool } from './edit/editTool';
import { readTool } from './os/read/readTool';
import { writeTool } from './os/write/writeTool';
import { selectToolsTool } from './selectTools/selectToolsTool';

/** The OS tools: files, search and shell. */
export function createOsToolsFeature(): Feature {
  return (
    new Feature('os')
      // The stale-write guard: Read records what the agent saw, Write and Edit check it.
      .bindAgent(({ bind }) => bind(IAgentFileStateService).to(AgentFileStateService).inSingletonScope())
      .contributeTool(readTool)
      .contributeTool(writeTool)
      .contributeTool(editTool)
  );
}

/** Deferred tool loading: select_tools (active only when deferred loading is on). */
export function createToolSelectFeature(): Feature {
  return new Feature('toolSelect').contributeTool(selectToolsTool);
}

/** Every builtin feature, fresh instances (a Feature belongs to one App at a time). */
export function builtinFeatures(): Feature[] {
  return [createOsToolsFeature(), createToolSelectFeature()];
}
