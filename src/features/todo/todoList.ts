import { z } from 'zod';
import { TODO_STATUSES } from './contract';
import { MAX_TODO_ITEMS, MAX_TODO_TITLE_CHARS } from './todoModel';

const Status = z.enum(TODO_STATUSES);
const Title = z.string().min(1).max(MAX_TODO_TITLE_CHARS);
const Id = z.string().min(1).describe('An item id from the list, e.g. "t3".');

export const TodoListInputSchema = z.object({
  todos: z
    .array(z.object({ id: Id.optional(), title: Title, status: Status }))
    .max(MAX_TODO_ITEMS)
    .optional()
    .describe('The whole list, in order. Give an existing item its id to keep it; items without an id are new. Unfinished items you leave out are kept.'),
  update: z
    .array(z.object({ id: Id, status: Status.optional(), title: Title.optional() }))
    .min(1)
    .optional()
    .describe('Changes to existing items, by id.'),
  add: z
    .array(z.object({ title: Title, status: Status.optional().describe('Default pending.') }))
    .min(1)
    .optional()
    .describe('New items, appended.'),
  remove: z.array(Id).min(1).optional().describe('Ids of items to remove.'),
  clear: z.literal(true).optional().describe('Remove every item.'),
});
export type TodoListInput = z.infer<typeof TodoListInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const TODO_LIST_SAMPLES: readonly TodoListInput[] = [
  {},
  { todos: [{ title: 'Read the failing test', status: 'done' }, { title: 'Fix the parser', status: 'in_progress' }] },
  { update: [{ id: 't2', status: 'done' }] },
  { add: [{ title: 'Run the suite' }] },
  { remove: ['t1'] },
  { clear: true },
];
