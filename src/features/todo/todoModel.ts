import { type TodoChange, type TodoChangeOutcome, TodoError, type TodoItem, type TodoStatus, TODO_STATUSES } from './contract';

/** What the state store keeps under `todo`. */
export interface TodoState {
  readonly items: readonly TodoItem[];
  /** The number of the next new id: ids are never reused. */
  readonly nextId: number;
}

export const EMPTY_TODO_STATE: TodoState = { items: [], nextId: 1 };
export const MAX_TODO_ITEMS = 100;
export const MAX_TODO_TITLE_CHARS = 200;

/** Why a stored value is not a todo list (undefined: it is one); the store sets such a value aside. */
export function todoStateProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'it is not a todo list';
  const { items, nextId } = value as { items?: unknown; nextId?: unknown };
  if (typeof nextId !== 'number' || !Number.isSafeInteger(nextId) || nextId < 1) return 'its "nextId" is not a positive integer';
  if (!Array.isArray(items)) return 'its "items" is not a list';
  const bad = items.findIndex(
    (i: Partial<TodoItem> | null) =>
      typeof i !== 'object' || i === null || typeof i.id !== 'string' || typeof i.title !== 'string' || !(TODO_STATUSES as readonly unknown[]).includes(i.status),
  );
  return bad === -1 ? undefined : `item ${bad + 1} is not {id, title, status}`;
}

/** A stored value (checked with todoStateProblem) as a TodoState; absent: the empty list. */
export function toTodoState(value: unknown): TodoState {
  if (value === undefined || todoStateProblem(value) !== undefined) return EMPTY_TODO_STATE;
  const { items, nextId } = value as TodoState;
  return { items: items.map(({ id, title, status }) => ({ id, title, status })), nextId };
}

/** One line, no control characters: a title is rendered on a line of its own. */
function cleanTitle(title: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = title.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (clean === '') throw new TodoError('A todo title is empty; give each item a short title.');
  if (clean.length > MAX_TODO_TITLE_CHARS) throw new TodoError(`A todo title has ${clean.length} characters; at most ${MAX_TODO_TITLE_CHARS}.`);
  return clean;
}

const isUnfinished = (status: TodoStatus) => status === 'pending' || status === 'in_progress';

function idRange(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'the list is empty';
  const ids = items.map((i) => i.id);
  const numbers = ids.map((id) => Number(id.slice(1)));
  const contiguous = numbers.every((n, k) => k === 0 || n === numbers[k - 1]! + 1);
  return contiguous && ids.length > 2 ? `${ids[0]}–${ids[ids.length - 1]}` : ids.join(', ');
}

/**
 * Applies a change to a list; pure. Throws TodoError with what to do instead when the change
 * names an id that is not in the list, names one twice, leaves two items in progress, or grows the
 * list past MAX_TODO_ITEMS.
 */
export function applyTodoChange(state: TodoState, change: TodoChange): { readonly state: TodoState; readonly outcome: TodoChangeOutcome } {
  const byId = new Map(state.items.map((i) => [i.id, i]));
  const known = (id: string): TodoItem => {
    const item = byId.get(id);
    if (!item) throw new TodoError(`${id} is not in the list (${idRange(state.items)}).`);
    return item;
  };
  const once = (ids: readonly string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) throw new TodoError(`${id} is named twice; name each item once per call.`);
      seen.add(id);
    }
  };
  let nextId = state.nextId;
  const fresh = (title: string, status: TodoStatus): TodoItem => ({ id: `t${nextId++}`, title: cleanTitle(title), status });
  let items: TodoItem[];
  let kept: string[] = [];
  switch (change.mode) {
    case 'set': {
      once(change.todos.flatMap((t) => (t.id === undefined ? [] : [t.id])));
      const listed = change.todos.map((t) => (t.id === undefined ? fresh(t.title, t.status) : { ...known(t.id), title: cleanTitle(t.title), status: t.status }));
      const listedIds = new Set(listed.map((i) => i.id));
      const omitted = state.items.filter((i) => !listedIds.has(i.id) && isUnfinished(i.status));
      kept = omitted.map((i) => i.id);
      items = [...listed, ...omitted];
      break;
    }
    case 'update': {
      once(change.update.map((u) => u.id));
      const updates = new Map(change.update.map((u) => [known(u.id).id, u]));
      for (const u of change.update) {
        if (u.status === undefined && u.title === undefined) throw new TodoError(`The update of ${u.id} changes nothing; give status or title.`);
      }
      items = state.items.map((i) => {
        const u = updates.get(i.id);
        return u ? { ...i, ...(u.title !== undefined ? { title: cleanTitle(u.title) } : {}), ...(u.status !== undefined ? { status: u.status } : {}) } : i;
      });
      break;
    }
    case 'add':
      items = [...state.items, ...change.add.map((a) => fresh(a.title, a.status ?? 'pending'))];
      break;
    case 'remove': {
      once(change.remove);
      const removed = new Set(change.remove.map((id) => known(id).id));
      items = state.items.filter((i) => !removed.has(i.id));
      break;
    }
    case 'clear':
      items = [];
      break;
  }
  const inProgress = items.filter((i) => i.status === 'in_progress').map((i) => i.id);
  if (inProgress.length > 1) {
    throw new TodoError(`${inProgress.length === 2 ? 'Two' : inProgress.length} items are in_progress (${inProgress.join(', ')}); keep one.`);
  }
  if (items.length > MAX_TODO_ITEMS) throw new TodoError(`The list would have ${items.length} items; at most ${MAX_TODO_ITEMS}: remove finished ones first.`);
  return { state: { items, nextId }, outcome: { items, kept } };
}

/** `todos: 5 (1 in progress, 2 pending, 2 done)`. */
export function todoSummary(items: readonly TodoItem[]): string {
  const count = (status: TodoStatus) => items.filter((i) => i.status === status).length;
  const parts = [
    [count('in_progress'), 'in progress'],
    [count('pending'), 'pending'],
    [count('done'), 'done'],
    [count('cancelled'), 'cancelled'],
  ]
    .filter(([n]) => n !== 0)
    .map(([n, label]) => `${n} ${label}`);
  return `todos: ${items.length}` + (parts.length > 0 ? ` (${parts.join(', ')})` : '');
}

/** `[in_progress] t2 Write the migration`, one line per item, in list order. */
export function todoLines(items: readonly TodoItem[]): string[] {
  return items.map((i) => `[${i.status}] ${i.id} ${i.title}`);
}

export function keptNote(kept: readonly string[]): string {
  const n = kept.length;
  return (
    `Kept ${n} unfinished item${n === 1 ? '' : 's'} you did not list (${kept.join(', ')}); ` +
    `remove ${n === 1 ? 'it' : 'them'} with remove: ${JSON.stringify(kept)} or mark ${n === 1 ? 'it' : 'them'} cancelled.`
  );
}

/** The block a host re-injects after compaction: the summary and the lines, always in the same form. */
export function renderTodoContext(items: readonly TodoItem[]): string {
  if (items.length === 0) return '';
  return ['<todo_list>', todoSummary(items), ...todoLines(items), '</todo_list>'].join('\n');
}
