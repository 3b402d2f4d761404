import { Feature } from '../scopes/feature';
import { globTool } from './os/glob/globTool';
import { readTool } from './os/read/readTool';

/** The OS tools: files, search and shell. */
export function createOsToolsFeature(): Feature {
  return new Feature('os').contributeTool(readTool).contributeTool(globTool);
}

/** Every builtin feature, fresh instances (a Feature belongs to one App at a time). */
export function builtinFeatures(): Feature[] {
  return [createOsToolsFeature()];
}
