import { Feature } from '../../di/feature';
import { editTool } from './editTool';

/** Edit: exact string replacement in one file. It uses the os family's file-state service. */
export function createEditToolFeature(): Feature {
  return new Feature('edit', { requires: ['os'] }).contributeTool(editTool);
}
