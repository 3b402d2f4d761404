import { spawnSync } from 'node:child_process';
import * as nodePath from 'node:path';
import { vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';
import { VCS_DIR_NAMES } from '../../../src/tools/os/search/ignoreTree';
import { callTool, openHarness, text } from '../../helpers/agentHarness';
import { useTempDir, writeFiles } from '../../helpers/tempDir';

/**
 * The shared search rules against ripgrep itself: Glob (tinyglobby plus our ignore rules) lists
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
