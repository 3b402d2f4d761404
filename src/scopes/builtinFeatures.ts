import type { Feature } from '../di/feature';
import { createMcpFeature } from '../features/mcp/mcpFeature';
import { createEditToolFeature } from '../tools/edit/editFeature';
import { createOsToolsFeature } from '../tools/os/osFeature';
import { createToolSelectFeature } from '../tools/selectTools/selectToolsFeature';
import { createTaskToolsFeature } from '../tools/task/taskFeature';

/** Every builtin feature, fresh instances (a Feature belongs to one App at a time). */
export function builtinFeatures(): Feature[] {
  return [createOsToolsFeature(), createEditToolFeature(), createTaskToolsFeature(), createToolSelectFeature(), createMcpFeature()];
}
