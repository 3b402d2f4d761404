import { Feature } from '../../di/feature';
import { selectToolsTool } from './selectToolsTool';

/** Deferred tool loading: select_tools (active only when deferred loading is on). */
export function createToolSelectFeature(): Feature {
  return new Feature('toolSelect').contributeTool(selectToolsTool);
}
