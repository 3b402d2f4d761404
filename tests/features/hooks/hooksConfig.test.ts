import { createHooksFeature } from '../../../src/features/hooks/hooksFeature';
import { compileToolMatcher } from '../../../src/features/hooks/toolMatcher';
import { configSchemaFor } from '../../../src/scopes/appScope';
import { ConfigError, parseConfig as parseWith } from '../../../src/services/config/configLoader';

const HOOKS_ONLY = configSchemaFor([createHooksFeature()]);
const parseConfig = (input: unknown) => parseWith(input, 'configuration', HOOKS_ONLY);

function issues(input: unknown): string[] {
  try {
    parseConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

const withHook = (hook: object, matcher?: string) => ({ hooks: { PreToolUse: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [hook] }] } });

describe('config hooks', () => {
  test('defaults to no hooks; a Claude Code settings block is accepted as it is, timeout 60 s by default', () => {
    expect(parseConfig({}).hooks).toEqual({ PreToolUse: [], PostToolUse: [] });
    const settings = {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh', timeout: 30 }] }],
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --check' }] }],
    };
    expect(parseConfig({ hooks: settings }).hooks).toEqual({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh', timeout: 30 }] }],
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --check', timeout: 60 }] }],
    });
  });

  test('bad config is a clear config error', () => {
    expect(issues(withHook({ type: 'command', command: 'x' }, 'Bash(['))).toEqual([
      expect.stringMatching(/^hooks\.PreToolUse\[0\]\.matcher: is not a valid regular expression \(.+\); write an exact tool name, names separated by \|, or a JavaScript regex$/),
    ]);
    expect(issues(withHook({ type: 'command', command: '   ' }))).toEqual(['hooks.PreToolUse[0].hooks[0].command: must not be empty: give the shell command to run']);
    expect(issues(withHook({ type: 'command', command: 'x', timeout: 0 }))).toEqual(['hooks.PreToolUse[0].hooks[0].timeout: must be more than 0 seconds']);
    expect(issues(withHook({ type: 'command', command: 'x', timeout: 7200 }))).toEqual(['hooks.PreToolUse[0].hooks[0].timeout: must be at most 3600 seconds']);
    expect(issues(withHook({ type: 'prompt', command: 'x' }))).toEqual(['hooks.PreToolUse[0].hooks[0].type: only "command" hooks are supported (type: "command")']);
    expect(issues({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [] }] } })).toEqual(['hooks.PreToolUse[0].hooks: needs at least one hook']);
    expect(issues({ hooks: { Stop: [] } })).toEqual(['hooks.Stop: unknown key (known keys: PreToolUse, PostToolUse)']);
  });
});

describe('compileToolMatcher', () => {
  const matches = (matcher: string | undefined, names: string[]) => names.filter(compileToolMatcher(matcher));
  const names = ['Bash', 'BashOutput', 'Edit', 'Write', 'NotebookEdit', 'mcp__github__create_issue', 'mcp__github__list', 'mcp__gitlab__list', 'xmcp__github__y'];

  test('absent, "" and "*" match every tool', () => {
    expect(matches(undefined, names)).toEqual(names);
    expect(matches('', names)).toEqual(names);
    expect(matches('*', names)).toEqual(names);
  });

  test('letters, digits, _ and | are exact names', () => {
    expect(matches('Bash', names)).toEqual(['Bash']);
    expect(matches('Edit|Write', names)).toEqual(['Edit', 'Write']);
    expect(matches('mcp__github__list', names)).toEqual(['mcp__github__list']);
  });

  test('anything else is a regex tested as Claude Code tests it (unanchored; ^ anchors)', () => {
    expect(matches('^mcp__github__.*', names)).toEqual(['mcp__github__create_issue', 'mcp__github__list']);
    expect(matches('mcp__.*__list', names)).toEqual(['mcp__github__list', 'mcp__gitlab__list']);
    expect(matches('^Bash', names)).toEqual(['Bash', 'BashOutput']);
    expect(matches('Notebook.*', names)).toEqual(['NotebookEdit']);
  });

  test('a pattern that does not compile throws', () => {
    expect(() => compileToolMatcher('Bash([')).toThrow(SyntaxError);
  });
});
