import { Feature } from '../../di/feature';
import { editConfig } from './editConfig';
import { editTool } from './editTool';

/** Edit: exact string replacement in one file. It uses the os family's file-state service. */
export function createEditToolFeature() {
  return new Feature('edit', { requires: ['os'] }).contributeConfig(editConfig).contributeTool(editTool);
}
