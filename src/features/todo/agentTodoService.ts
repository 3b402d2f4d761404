import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { type AgentStateOwner, IAgentStateStore, type JsonValue, updateAgentState } from '../../services/agentState/agentState';
import { type AgentOptions, IAgentOptions } from '../../services/workspace/workspace';
import { type IAgentTodoService, type TodoChange, type TodoChangeOutcome, type TodoItem } from './contract';
import { applyTodoChange, renderTodoContext, todoStateProblem, toTodoState } from './todoModel';

/** The state key of the todo list. */
export const TODO_STATE_KEY = 'todo';

@injectable()
export class AgentTodoService implements IAgentTodoService {
  private readonly changeEmitter = new Emitter<readonly TodoItem[]>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly owner: AgentStateOwner;

  constructor(
    @inject(IAgentStateStore) private readonly store: IAgentStateStore,
    @inject(IAgentOptions) options: AgentOptions,
  ) {
    this.owner = { agentId: options.id, dataDir: options.dataDir };
  }

  async list(): Promise<readonly TodoItem[]> {
    return toTodoState((await this.store.get(this.owner, TODO_STATE_KEY, { check: todoStateProblem }))?.value).items;
  }

  async apply(change: TodoChange): Promise<TodoChangeOutcome> {
    const { result } = await updateAgentState(this.store, this.owner, TODO_STATE_KEY, (current) => {
      const applied = applyTodoChange(toTodoState(current?.value), change);
      return { value: applied.state as unknown as JsonValue, result: applied.outcome };
    }, { check: todoStateProblem });
    this.changeEmitter.fire(result.items);
    return result;
  }

  async renderForContext(): Promise<string> {
    return renderTodoContext(await this.list());
  }

  @preDestroy()
  dispose(): void {
    this.changeEmitter.dispose();
  }
}
