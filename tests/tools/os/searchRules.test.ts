import { spawnSync } from 'node:child_process';
import * as nodePath from 'node:path';
import { vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';
import { VCS_DIR_NAMES } from '../../../src/tools/os/search/ignoreTree';
import { callTool, openHarness, text } from '../../helpers/agentHarness';
import { useTempDir, writeFiles } from '../../helpers/tempDir';

/**
 * The shared search rules against ripgrep itself: Glob (its walk with our ignore rules) lists
 * exactly the files `rg --files` lists with the flags the ripgrep engine passes, on a tree that
 * exercises the gitignore corners.
 */
const dir = useTempDir();

const TREE: Record<string, string> = {
  '.gitignore': ['*.log', '!important.log', '/rootonly.txt', 'build/', 'docs/**/*.tmp', 'a/**/deep.txt', '**/cache', '\\#hash.txt', 'trailing.txt   ', '*.{bak,orig}'].join('\n'),
  '.ignore': ['!build/', 'secret-ish.txt'].join('\n'),
  '.rgignore': ['!secret-ish.txt', 'rg-only.txt'].join('\n'),
  'x.log': '',
  'important.log': '',
  'rootonly.txt': '',
  'sub/rootonly.txt': '',
  'build/out.js': '',
  'build/nested/x.js': '',
  'docs/a.tmp': '',
  'docs/x/y/b.tmp': '',
  'docs/keep.md': '',
  'a/deep.txt': '',
  'a/b/c/deep.txt': '',
  'src/cache/c.js': '',
  'src/cachefile.js': '',
  '#hash.txt': '',
  'trailing.txt': '',
  'x.bak': '',
  'x.orig': '',
  'secret-ish.txt': '',
  'rg-only.txt': '',
  'pkg/.gitignore': ['*.js', '!keep.js', 'sub/'].join('\n'),
  'pkg/a.js': '',
  'pkg/keep.js': '',
  'pkg/sub/x.ts': '',
  'pkg/other/sub/y.ts': '',
  'pkg/other/z.ts': '',
  '.hidden/h.txt': '',
  '.dotfile': '',
  'nested/.git/HEAD': '',
  'nested/n.log': '',
  'nested/.gitignore': '!*.log\nlocal.txt\n',
  'nested/local.txt': '',
  'nested/inner/x.txt': '',
};

function rgFiles(root: string, insideRepository: boolean, includeIgnored: boolean): string[] {
  const args = ['--no-config', '--files', '--hidden', '--no-ignore-global'];
  if (!insideRepository) args.push('--no-require-git');
  if (includeIgnored) args.push('--no-ignore');
  for (const vcs of VCS_DIR_NAMES) args.push('-g', `!${vcs}`);
  const result = spawnSync(vscodeRipgrepBinary()!, [...args, './'], { cwd: root, encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((p) => p.replace(/^\.\//, ''))
    .sort();
}

async function globFiles(root: string, includeIgnored: boolean): Promise<string[]> {
  const h = openHarness({ cwd: root, builtins: true });
  const out = text(await callTool(h.agent, 'Glob', { pattern: '**/*', include_ignored: includeIgnored, limit: 1000 }));
  await h.dispose();
  return out.split('\n').sort();
}

describe.each([
  ['in a git repository', true],
  ['outside any repository', false],
])('Glob lists what rg --files lists %s', (_name, repository) => {
  test.each([false, true])('include_ignored: %s', async (includeIgnored) => {
    writeFiles(dir.path, TREE);
    if (repository) writeFiles(dir.path, { '.git/HEAD': '', '.git/info/exclude': 'excluded.txt\n', 'excluded.txt': '' });
    const expected = rgFiles(dir.path, repository, includeIgnored);
    expect(expected.length).toBeGreaterThan(10);
    expect(await globFiles(dir.path, includeIgnored)).toEqual(expected);
    const sub = nodePath.join(dir.path, 'pkg');
    expect((await globFiles(sub, includeIgnored)).map((p) => `pkg/${p}`)).toEqual(rgFiles(sub, repository, includeIgnored).map((p) => `pkg/${p}`));
  });
});

/** git, run for a test tree (no global or system config, fixed identity). */
function git(cwd: string, ...args: string[]): void {
  const result = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
}

async function grepFiles(root: string, engine: 'builtin' | 'ripgrep'): Promise<string> {
  const h = openHarness({ cwd: root, builtins: true, config: { grep: { engine } } });
  const out = text(await callTool(h.agent, 'Grep', { pattern: '^', head_limit: 0 }));
  await h.dispose();
  return out.split('\n').sort().join('\n');
}

describe('a Jujutsu repository (a .jj folder) below a search folder that is no repository', () => {
  test('its folder stops the .gitignore files above it, as in rg (a .git folder there does not): Glob and both Grep engines', async () => {
    const root = nodePath.join(dir.path, 'root');
    writeFiles(root, {
      '.gitignore': '*.log\n',
      'top.log': 'x',
      'top.txt': 'x',
      'jj/.jj/repo/store': 'x',
      'jj/.gitignore': 'b.txt\n',
      'jj/a.log': 'x',
      'jj/b.txt': 'x',
      'jj/c.txt': 'x',
      'g/.git/HEAD': 'x',
      'g/a.log': 'x',
    });
    const expected = rgFiles(root, false, false);
    expect(expected).toEqual(['.gitignore', 'jj/.gitignore', 'jj/a.log', 'jj/c.txt', 'top.txt']);
    expect(await globFiles(root, false)).toEqual(expected);
    for (const engine of ['builtin', 'ripgrep'] as const) expect([engine, await grepFiles(root, engine)]).toEqual([engine, expected.join('\n')]);
  });
});

describe('a folder whose .git is a file (a worktree or a submodule)', () => {
  const files = { 'a.txt': 'x', 'sub/b.txt': 'x', 'x.log': 'x', 'excluded.txt': 'x', '.gitignore': '*.log\n' };

  function repoWithCommit(path: string): void {
    writeFiles(path, files);
    git(path, 'init', '-q');
    git(path, 'add', '.');
    git(path, 'commit', '-qm', 'files');
    writeFiles(path, { '.git/info/exclude': 'excluded.txt\n' });
  }

  test('a worktree below a search folder that is no repository: listed like rg --files, by Glob and both Grep engines', async () => {
    const repo = nodePath.join(dir.path, 'repo');
    const root = nodePath.join(dir.path, 'root');
    repoWithCommit(repo);
    writeFiles(root, { 'top.txt': 'x' });
    git(repo, 'worktree', 'add', '-q', nodePath.join(root, 'wt'));
    const expected = rgFiles(root, false, false);
    expect(expected).toEqual(expect.arrayContaining(['top.txt', 'wt/a.txt', 'wt/sub/b.txt']));
    expect(expected).not.toContain('wt/x.log');
    expect(await globFiles(root, false)).toEqual(expected);
    for (const engine of ['builtin', 'ripgrep'] as const) expect([engine, await grepFiles(root, engine)]).toEqual([engine, expected.join('\n')]);
  });

  test('a submodule inside a repository: listed like rg --files, by Glob and both Grep engines', async () => {
    const origin = nodePath.join(dir.path, 'origin');
    const root = nodePath.join(dir.path, 'super');
    repoWithCommit(origin);
    writeFiles(root, { 'top.txt': 'x' });
    git(root, 'init', '-q');
    git(root, 'submodule', '-q', 'add', origin, 'mod');
    // rg reads no exclude file for a submodule (its .git names a folder without a commondir file).
    writeFiles(root, { '.git/modules/mod/info/exclude': 'a.txt\n' });
    const expected = rgFiles(root, true, false);
    expect(expected).toEqual(expect.arrayContaining(['top.txt', 'mod/a.txt', 'mod/sub/b.txt', '.gitmodules']));
    expect(expected).not.toContain('mod/x.log');
    expect(await globFiles(root, false)).toEqual(expected);
    for (const engine of ['builtin', 'ripgrep'] as const) expect([engine, await grepFiles(root, engine)]).toEqual([engine, expected.join('\n')]);
  });
});
