import { Feature } from '../../di/feature';
import { AgentTodoService } from './agentTodoService';
import { IAgentTodoService } from './contract';
import { todoListTool } from './todoListTool';

/** The agent's durable todo list (IAgentTodoService) and the TodoList tool. */
export function createTodoFeature() {
  return new Feature('todo').bindAgent(({ bind }) => bind(IAgentTodoService).to(AgentTodoService).inSingletonScope()).contributeTool(todoListTool);
}
