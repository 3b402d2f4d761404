// The edit tool family's public surface (`toolhost/tools/edit`).
export { createEditToolFeature } from './editFeature';
export { editConfig, EditConfigSchema, type EditConfig } from './editConfig';
export { EditTool, IEditTool, editTool } from './editTool';
export { EditInputSchema, type EditInput } from './edit';
