import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';

/** The todo feature's contract for other features and hosts: the agent's todo list. */

export const TODO_STATUSES = ['pending', 'in_progress', 'done', 'cancelled'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  /** `t1`, `t2`, …: stable for the agent's life (never reused, not even after a clear). */
  readonly id: string;
  readonly title: string;
  readonly status: TodoStatus;
}

/** One change to the list: exactly one mode per call (the TodoList tool's modes). */
export type TodoChange =
  /** The whole list: items with an `id` keep it; unfinished items left out are kept at the end. */
  | { readonly mode: 'set'; readonly todos: readonly { readonly id?: string; readonly title: string; readonly status: TodoStatus }[] }
  | { readonly mode: 'update'; readonly update: readonly { readonly id: string; readonly status?: TodoStatus; readonly title?: string }[] }
  | { readonly mode: 'add'; readonly add: readonly { readonly title: string; readonly status?: TodoStatus }[] }
  | { readonly mode: 'remove'; readonly remove: readonly string[] }
  | { readonly mode: 'clear' };

export interface TodoChangeOutcome {
  readonly items: readonly TodoItem[];
  /** Unfinished items a `set` left out, kept at the end. */
  readonly kept: readonly string[];
}

/** A change the list refuses (unknown id, two items in progress, …); the message says what to do. */
export class TodoError extends Error {
  override readonly name = 'TodoError';
}

/**
 * The todo list of one agent (Agent scope), durable in IAgentStateStore under `todo`: an agent
 * created again with the same id and data directory has the list it left.
 */
export interface IAgentTodoService {
  list(): Promise<readonly TodoItem[]>;
  /** Applies one change; throws TodoError (nothing written) when the list refuses it. */
  apply(change: TodoChange): Promise<TodoChangeOutcome>;
  /**
   * A deterministic block (`<todo_list>…</todo_list>`) for a host to put back into the context
   * after compaction; the empty string when the list is empty.
   */
  renderForContext(): Promise<string>;
  /** Fires after each change, with the new list. */
  readonly onDidChange: Event<readonly TodoItem[]>;
}
export const IAgentTodoService = createServiceId<IAgentTodoService>('AgentTodoService');
