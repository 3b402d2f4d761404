// The select_tools family's public surface (`toolhost/tools/selectTools`): deferred tool loading.
export { createToolSelectFeature } from './selectToolsFeature';
export { SelectToolsTool, ISelectToolsTool, selectToolsTool } from './selectToolsTool';
export { SelectToolsInputSchema, type SelectToolsInput } from './selectTools';
