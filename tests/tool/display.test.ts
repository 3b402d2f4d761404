import { TOOL_INPUT_DISPLAY_KINDS, ToolInputDisplaySchema } from '../../src/tool/display';

describe('ToolInputDisplay', () => {
  test('has exactly the 13 kinds of the design', () => {
    expect([...TOOL_INPUT_DISPLAY_KINDS].sort()).toEqual(
      ['agent_call', 'command', 'diff', 'file_io', 'generic', 'goal_start', 'plan_review', 'search', 'skill_call', 'task', 'task_stop', 'todo_list', 'url_fetch'].sort(),
    );
  });

  test.each<[unknown, boolean]>([
    [{ kind: 'command', command: 'ls', cwd: '/w', language: 'bash' }, true],
    [{ kind: 'file_io', operation: 'read', path: '/w/a' }, true],
    [{ kind: 'file_io', operation: 'delete', path: '/w/a' }, false],
    [{ kind: 'diff', path: '/a', before: 'x', after: 'y', hunks: 1 }, true],
    [{ kind: 'todo_list', items: [{ title: 't', status: 'done' }] }, true],
    [{ kind: 'goal_start', objective: 'o', mode: 'auto' }, false],
    [{ kind: 'generic', summary: 's', detail: { any: ['thing'] } }, true],
    [{ kind: 'nope' }, false],
    [{ kind: 'search' }, false],
  ])('%j valid=%s', (value, valid) => {
    expect(ToolInputDisplaySchema.safeParse(value).success).toBe(valid);
  });
});
