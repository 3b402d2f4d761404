import { inject, injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import type { ToolInputDisplay } from '../../tool/display';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { TODO_STATE_KEY } from './agentTodoService';
import { IAgentTodoService, type TodoChange, TodoError, type TodoItem } from './contract';
import { type TodoListInput, TodoListInputSchema, TODO_LIST_SAMPLES } from './todoList';
import { keptNote, todoLines, todoSummary } from './todoModel';

const PARAMETERS = toInputJsonSchema(TodoListInputSchema);
export const TODO_LIST_TOOL_NAME = 'TodoList';

/** The call's change, or undefined for a query; throws TodoError when it gives more than one mode. */
function toChange(input: TodoListInput): TodoChange | undefined {
  const changes: TodoChange[] = [];
  if (input.todos !== undefined) changes.push({ mode: 'set', todos: input.todos });
  if (input.update !== undefined) changes.push({ mode: 'update', update: input.update });
  if (input.add !== undefined) changes.push({ mode: 'add', add: input.add });
  if (input.remove !== undefined) changes.push({ mode: 'remove', remove: input.remove });
  if (input.clear === true) changes.push({ mode: 'clear' });
  if (changes.length > 1) throw new TodoError('Use one of todos, update, add, remove, clear per call.');
  return changes[0];
}

function describeChange(change: TodoChange | undefined): { readonly description: string; readonly display: ToolInputDisplay } {
  switch (change?.mode) {
    case undefined:
      return { description: 'Reading the todo list', display: { kind: 'generic', summary: 'Read the todo list' } };
    case 'set':
      return { description: `Setting the todo list (${change.todos.length} items)`, display: { kind: 'todo_list', items: change.todos.map(({ title, status }) => ({ title, status })) } };
    case 'add':
      return { description: `Adding ${change.add.length} todo items`, display: { kind: 'todo_list', items: change.add.map(({ title, status }) => ({ title, status: status ?? 'pending' })) } };
    case 'update': {
      const summary = `Update ${change.update.map((u) => `${u.id}${u.status ? ` → ${u.status}` : ''}`).join(', ')}`;
      return { description: summary.replace(/^Update/, 'Updating'), display: { kind: 'generic', summary } };
    }
    case 'remove':
      return { description: `Removing ${change.remove.join(', ')}`, display: { kind: 'generic', summary: `Remove ${change.remove.join(', ')}` } };
    case 'clear':
      return { description: 'Clearing the todo list', display: { kind: 'generic', summary: 'Clear the todo list' } };
  }
}

function listResult(items: readonly TodoItem[], kept: readonly string[] = []): ToolResult {
  const body = items.length === 0 ? ['The list is empty; add items with add or todos.'] : todoLines(items);
  const notes = kept.length > 0 ? ['', keptNote(kept)] : [];
  return {
    output: [todoSummary(items), '', ...body, ...notes].join('\n'),
    structuredContent: { todos: items, kept },
  };
}

@injectable()
export class TodoListTool implements ExecutableTool<TodoListInput> {
  readonly name = TODO_LIST_TOOL_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

  constructor(@inject(IAgentTodoService) private readonly todos: IAgentTodoService) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'todoList.md'), {});
  }

  resolveExecution(input: TodoListInput): ToolExecution {
    let change: TodoChange | undefined;
    try {
      change = toChange(input);
    } catch (error) {
      return toolError((error as TodoError).message);
    }
    const { description, display } = describeChange(change);
    return {
      accesses: [change === undefined ? ToolAccesses.readState(TODO_STATE_KEY) : ToolAccesses.writeState(TODO_STATE_KEY)],
      description,
      display,
      approvalRule: TODO_LIST_TOOL_NAME,
      execute: async (): Promise<ToolResult> => {
        if (change === undefined) return listResult(await this.todos.list());
        try {
          const outcome = await this.todos.apply(change);
          return listResult(outcome.items, outcome.kept);
        } catch (error) {
          if (error instanceof TodoError) return toolError(error.message);
          throw error;
        }
      },
    };
  }
}

export const ITodoListTool = createServiceId<TodoListTool>('tool.TodoList');
export const todoListTool = registerAgentToolService(ITodoListTool, TodoListTool, {
  name: TODO_LIST_TOOL_NAME,
  domain: 'todo',
  requiredRuntimeCapabilities: [],
  // Its own list in the agent's state: nothing a person needs to confirm.
  approval: 'auto',
  samples: TODO_LIST_SAMPLES,
});
