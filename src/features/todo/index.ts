// The todo feature's public surface (`toolhost/features/todo`): the agent's durable todo list and the TodoList tool.
export { createTodoFeature } from './todoFeature';
export { IAgentTodoService, TodoError, TODO_STATUSES, type TodoItem, type TodoStatus, type TodoChange, type TodoChangeOutcome } from './contract';
export { AgentTodoService, TODO_STATE_KEY } from './agentTodoService';
export { TodoListTool, ITodoListTool, todoListTool, TODO_LIST_TOOL_NAME } from './todoListTool';
export { TodoListInputSchema, type TodoListInput } from './todoList';
export { applyTodoChange, renderTodoContext, MAX_TODO_ITEMS, MAX_TODO_TITLE_CHARS, type TodoState } from './todoModel';
