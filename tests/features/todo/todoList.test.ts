import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createTodoFeature } from '../../../src/features/todo/todoFeature';
import { IAgentTodoService, type TodoItem } from '../../../src/features/todo/contract';
import { applyTodoChange } from '../../../src/features/todo/todoModel';
import { IAgentStateStore, type AgentStateWarning } from '../../../src/services/agentState/agentState';
import { agentStateFilePath } from '../../../src/services/agentState/fileAgentStateStore';
import { type Harness, useAgent } from '../../helpers/agentHarness';

const fixture = useAgent({ tempDataDir: true });
const open = (): Harness => fixture.open({ id: 'main', features: [createTodoFeature()] });
const call = (h: Harness, args: unknown) => h.call('TodoList', args);

describe('TodoList through the executor', () => {
  test('query of an empty list, then add: stable ids, counts, [status] lines, structured content; runs unasked', async () => {
    const h = open();
    const empty = await call(h, {});
    expect([empty.outcome, empty.output]).toEqual(['executed', 'todos: 0\n\nThe list is empty; add items with add or todos.']);
    const added = await call(h, { add: [{ title: 'Read the test' }, { title: 'Fix the parser', status: 'in_progress' }] });
    expect(added.outcome).toBe('executed');
    expect(added.output).toBe('todos: 2 (1 in progress, 1 pending)\n\n[pending] t1 Read the test\n[in_progress] t2 Fix the parser');
    expect(added.structuredContent).toEqual({
      todos: [
        { id: 't1', title: 'Read the test', status: 'pending' },
        { id: 't2', title: 'Fix the parser', status: 'in_progress' },
      ],
      kept: [],
    });
    expect(h.startedEvents.map((e) => e.display?.kind)).toEqual(['generic', 'todo_list']);
  });

  test('every mode: set keeps ids by id, update, remove, clear; ids are never reused', async () => {
    const h = open();
    await call(h, { add: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] });
    expect((await call(h, { todos: [{ id: 't2', title: 'b renamed', status: 'done' }, { title: 'd', status: 'in_progress' }, { id: 't1', title: 'a', status: 'cancelled' }] })).output).toBe(
      'todos: 4 (1 in progress, 1 pending, 1 done, 1 cancelled)\n\n[done] t2 b renamed\n[in_progress] t4 d\n[cancelled] t1 a\n[pending] t3 c\n\n' +
        'Kept 1 unfinished item you did not list (t3); remove it with remove: ["t3"] or mark it cancelled.',
    );
    expect((await call(h, { update: [{ id: 't4', status: 'done' }, { id: 't3', title: 'c2', status: 'in_progress' }] })).output).toBe(
      'todos: 4 (1 in progress, 2 done, 1 cancelled)\n\n[done] t2 b renamed\n[done] t4 d\n[cancelled] t1 a\n[in_progress] t3 c2',
    );
    expect((await call(h, { remove: ['t1', 't2'] })).output).toBe('todos: 2 (1 in progress, 1 done)\n\n[done] t4 d\n[in_progress] t3 c2');
    expect((await call(h, { clear: true })).output).toBe('todos: 0\n\nThe list is empty; add items with add or todos.');
    expect((await call(h, { add: [{ title: 'e' }] })).output).toBe('todos: 1 (1 pending)\n\n[pending] t5 e');
  });

  test('a set that leaves out finished items drops them, unfinished ones are kept and named', async () => {
    const h = open();
    await call(h, { add: [{ title: 'a', status: 'done' }, { title: 'b' }, { title: 'c', status: 'in_progress' }, { title: 'd' }] });
    const result = await call(h, { todos: [{ id: 't2', title: 'b', status: 'pending' }] });
    expect(result.output).toBe(
      'todos: 3 (1 in progress, 2 pending)\n\n[pending] t2 b\n[in_progress] t3 c\n[pending] t4 d\n\n' +
        'Kept 2 unfinished items you did not list (t3, t4); remove them with remove: ["t3","t4"] or mark them cancelled.',
    );
    expect(result.structuredContent).toMatchObject({ kept: ['t3', 't4'] });
  });

  test.each([
    [{ update: [{ id: 't9', status: 'done' }] }, 't9 is not in the list (t1–t3).'],
    [{ remove: ['t2', 't2'] }, 't2 is named twice; name each item once per call.'],
    [{ update: [{ id: 't1', status: 'in_progress' }] }, 'Two items are in_progress (t1, t2); keep one.'],
    [{ todos: [{ id: 't7', title: 'x', status: 'pending' }] }, 't7 is not in the list (t1–t3).'],
    [{ add: [{ title: 'x' }], remove: ['t1'] }, 'Use one of todos, update, add, remove, clear per call.'],
    [{ update: [{ id: 't1' }] }, 'The update of t1 changes nothing; give status or title.'],
    [{ add: [{ title: ' \n ' }] }, 'A todo title is empty; give each item a short title.'],
  ])('%j is an error that says what to do, and changes nothing', async (args, message) => {
    const h = open();
    await call(h, { add: [{ title: 'a' }, { title: 'b', status: 'in_progress' }, { title: 'c' }] });
    const before = fs.readFileSync(agentStateFilePath({ agentId: 'main', dataDir: fixture.dataDir }, 'todo'), 'utf8');
    const result = await call(h, args);
    expect([result.isError, result.output]).toEqual([true, message]);
    expect(fs.readFileSync(agentStateFilePath({ agentId: 'main', dataDir: fixture.dataDir }, 'todo'), 'utf8')).toBe(before);
  });

  test('declares readState/writeState of todo, never all', async () => {
    const h = open();
    const tool = h.agent.registry.get('TodoList')!.tool;
    const query = await tool.resolveExecution({} as never);
    const write = await tool.resolveExecution({ clear: true } as never);
    expect([!query.isError && query.accesses, !write.isError && write.accesses]).toEqual([
      [{ kind: 'state', key: 'todo', op: 'read' }],
      [{ kind: 'state', key: 'todo', op: 'write' }],
    ]);
  });

  test('durable: an agent created again with the same id and data dir has the list; renderForContext is the same block', async () => {
    const first = open();
    await call(first, { add: [{ title: 'Write the migration', status: 'in_progress' }, { title: 'Run it' }] });
    const block = await first.agent.get(IAgentTodoService).renderForContext();
    expect(block).toBe('<todo_list>\ntodos: 2 (1 in progress, 1 pending)\n[in_progress] t1 Write the migration\n[pending] t2 Run it\n</todo_list>');
    await first.dispose();
    const second = open();
    expect(await second.agent.get(IAgentTodoService).renderForContext()).toBe(block);
    expect((await call(second, { add: [{ title: 'Check' }] })).output).toContain('[pending] t3 Check');
    expect(await second.agent.get(IAgentTodoService).renderForContext()).not.toBe(block);
    await second.agent.get(IAgentTodoService).apply({ mode: 'clear' });
    expect(await second.agent.get(IAgentTodoService).renderForContext()).toBe('');
  });

  test('onDidChange fires with the new list after each change', async () => {
    const h = open();
    const seen: (readonly TodoItem[])[] = [];
    h.agent.get(IAgentTodoService).onDidChange((items) => seen.push(items));
    await call(h, { add: [{ title: 'a' }] });
    await call(h, {});
    await call(h, { update: [{ id: 't1', status: 'done' }] });
    expect(seen.map((items) => items.map((i) => i.status))).toEqual([['pending'], ['done']]);
  });

  test.each([
    ['not JSON', '{"version":3,"value":{"items":['],
    ['JSON state that is not a todo list', '{"version":3,"value":{"items":[{"id":"t1","title":"x","status":"someday"}],"nextId":2}}'],
  ])('a corrupted todo file (%s): a warning, an empty list, the file kept aside; the next write starts fresh', async (_what, content) => {
    const file = agentStateFilePath({ agentId: 'main', dataDir: fixture.dataDir }, 'todo');
    fs.mkdirSync(nodePath.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    const h = open();
    const warnings: AgentStateWarning[] = [];
    h.app.get(IAgentStateStore).onWarning((w) => warnings.push(w));
    const result = await call(h, {});
    expect([result.outcome, result.output]).toEqual(['executed', 'todos: 0\n\nThe list is empty; add items with add or todos.']);
    expect(warnings.map((w) => w.key)).toEqual(['todo']);
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe(content);
    expect((await call(h, { add: [{ title: 'x' }] })).output).toContain('[pending] t1 x');
  });
});

describe('applyTodoChange', () => {
  test('ids in an error range are listed when not contiguous; titles lose control characters', () => {
    const state = applyTodoChange({ items: [], nextId: 1 }, { mode: 'add', add: [{ title: 'a\tb\u0007' }, { title: 'b' }, { title: 'c' }] }).state;
    expect(state.items[0]!.title).toBe('a b');
    const gappy = applyTodoChange(state, { mode: 'remove', remove: ['t2'] }).state;
    expect(() => applyTodoChange(gappy, { mode: 'remove', remove: ['t2'] })).toThrow('t2 is not in the list (t1, t3).');
    expect(() => applyTodoChange({ items: [], nextId: 4 }, { mode: 'remove', remove: ['t1'] })).toThrow('t1 is not in the list (the list is empty).');
  });
});
