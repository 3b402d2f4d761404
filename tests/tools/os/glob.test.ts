import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isToolErrorResult, type RunnableToolExecution } from '../../../src/tool/contract';
import { listGlob, newestFirst } from '../../../src/tools/os/glob/globListing';
import { listGlobWithRipgrep, ripgrepGlobFilter, ripgrepGlobThreads } from '../../../src/tools/os/glob/ripgrepGlob';
import { vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';
import type { SearchFs } from '../../../src/tools/os/search/ignoreTree';
import { compileGlobPattern } from '../../../src/tools/os/search/searchGlob';
import { localSearchFs } from '../../../src/tools/os/search/searchPaths';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { ageInOrder } from '../../helpers/mtimes';
import { executeAfter, hookedRuntime, replaceWithSymlink } from '../../helpers/pathSwap';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';
import { argLoggingRg, writeAncestorIgnoreLayouts } from '../../helpers/ancestorIgnores';

const fx = useAgent({ builtins: true });

async function glob(input: Record<string, unknown>): Promise<string> {
  return text(await callTool(fx.agent, 'Glob', input));
}


describe('Glob output', () => {
  beforeEach(() => fx.open());

  test('lists matching files at any depth, newest first, relative to the working directory', async () => {
    writeFiles(fx.dir, { 'a.ts': '', 'src/b.ts': '', 'src/deep/c.ts': '', 'src/d.js': '', 'README.md': '' });
    ageInOrder(fx.dir, ['src/b.ts', 'src/deep/c.ts', 'a.ts']);
    expect(await glob({ pattern: '**/*.ts' })).toBe('src/b.ts\nsrc/deep/c.ts\na.ts');
    expect(await glob({ pattern: '*.ts' })).toBe('src/b.ts\nsrc/deep/c.ts\na.ts');
  });

  test('a pattern with a slash is matched from the search folder; ./ anchors to its top level', async () => {
    writeFiles(fx.dir, { 'a.ts': '', 'src/b.ts': '', 'src/deep/c.ts': '', 'lib/src/e.ts': '' });
    ageInOrder(fx.dir, ['a.ts', 'src/b.ts', 'src/deep/c.ts', 'lib/src/e.ts']);
    expect(await glob({ pattern: 'src/*.ts' })).toBe('src/b.ts');
    expect(await glob({ pattern: 'src/**/*.ts' })).toBe('src/b.ts\nsrc/deep/c.ts');
    expect(await glob({ pattern: './*.ts' })).toBe('a.ts');
    expect(await glob({ pattern: 'src/' })).toBe('src/b.ts\nsrc/deep/c.ts');
    expect(await glob({ pattern: '**/*.{ts,md}', path: 'lib' })).toBe('lib/src/e.ts');
    expect(await glob({ pattern: `${fx.dir}/src/*.ts` })).toBe('src/b.ts');
  });

  test('only files are listed, hidden files included, VCS folders and symlinks left out', async () => {
    writeFiles(fx.dir, {
      '.github/workflows/ci.yml': '',
      '.eslintrc.yml': '',
      '.git/config.yml': '',
      '.hg/x.yml': '',
      '.svn/y.yml': '',
      'dir.yml/inner.txt': '',
    });
    fs.symlinkSync(nodePath.join(fx.dir, '.eslintrc.yml'), nodePath.join(fx.dir, 'link.yml'));
    fs.symlinkSync(nodePath.join(fx.dir, '.github'), nodePath.join(fx.dir, 'linkdir'));
    ageInOrder(fx.dir, ['.github/workflows/ci.yml', '.eslintrc.yml']);
    expect(await glob({ pattern: '**/*.yml' })).toBe('.github/workflows/ci.yml\n.eslintrc.yml');
    expect(await glob({ pattern: '.git/**' })).toBe(
      'No files match ".git/**" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to include them.',
    );
    expect(await glob({ pattern: 'linkdir/**', include_ignored: true })).toBe('No files match "linkdir/**" in the working directory.');
  });

  test('paths outside the working directory are absolute', async () => {
    const outside = makeTempDir();
    try {
      writeFiles(outside, { 'x/a.txt': '' });
      expect(await glob({ pattern: '**/*.txt', path: outside })).toBe(`${outside}/x/a.txt`);
    } finally {
      removeDir(outside);
    }
  });
});

describe('Glob paging', () => {
  test('limit and offset page through the newest-first list, with a line that says how to continue', async () => {
    fx.open({ config: { glob: { defaultLimit: 2 } } });
    const names = ['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt'];
    writeFiles(fx.dir, Object.fromEntries(names.map((n) => [n, ''])));
    ageInOrder(fx.dir, names);
    expect(await glob({ pattern: '*.txt' })).toBe('f1.txt\nf2.txt\nShowing files 1-2 of 5, newest first. Use offset=2 to see more.');
    expect(await glob({ pattern: '*.txt', offset: 2, limit: 2 })).toBe('f3.txt\nf4.txt\nShowing files 3-4 of 5, newest first. Use offset=4 to see more.');
    expect(await glob({ pattern: '*.txt', offset: 4 })).toBe('f5.txt\nShowing files 5-5 of 5, newest first.');
    expect(await glob({ pattern: '*.txt', offset: 9 })).toBe('No files at offset=9: 5 files match. Use a smaller offset.');
    const cut = await callTool(fx.agent, 'Glob', { pattern: '*.txt' });
    expect(cut.truncated).toBe(true);
    expect((await callTool(fx.agent, 'Glob', { pattern: '*.txt', limit: 10 })).truncated).toBeUndefined();
  });

  test('files with the same modification time are listed in path order', async () => {
    fx.open();
    writeFiles(fx.dir, { 'b.txt': '', 'a.txt': '', 'c/a.txt': '' });
    const t = new Date('2024-01-01T00:00:00Z');
    for (const f of ['b.txt', 'a.txt', 'c/a.txt']) fs.utimesSync(nodePath.join(fx.dir, f), t, t);
    expect(await glob({ pattern: '*.txt' })).toBe('a.txt\nb.txt\nc/a.txt');
  });
});

describe('Glob ignore rules', () => {
  beforeEach(() => fx.open());

  test('.gitignore files apply in a git repository, nested ones to their folder, and include_ignored lists everything', async () => {
    writeFiles(fx.dir, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': 'dist/\n*.log\n',
      'src/.gitignore': 'generated.ts\n!keep.log\n',
      'src/a.ts': '',
      'src/generated.ts': '',
      'src/keep.log': '',
      'src/x.log': '',
      'dist/out.ts': '',
      'app.log': '',
    });
    ageInOrder(fx.dir, ['src/a.ts', 'src/generated.ts', 'src/keep.log', 'src/x.log', 'dist/out.ts', 'app.log', 'src/.gitignore', '.gitignore']);
    expect(await glob({ pattern: '**/*' })).toBe('src/a.ts\nsrc/keep.log\nsrc/.gitignore\n.gitignore');
    expect(await glob({ pattern: '**/*.{ts,log}', include_ignored: true })).toBe('src/a.ts\nsrc/generated.ts\nsrc/keep.log\nsrc/x.log\ndist/out.ts\napp.log');
  });

  test('.gitignore applies in a folder that is not a git repository, and from folders above the search folder', async () => {
    writeFiles(fx.dir, { '.gitignore': '*.tmp\n', 'sub/a.tmp': '', 'sub/b.txt': '' });
    expect(await glob({ pattern: '*', path: 'sub' })).toBe('sub/b.txt');
  });

  test('.ignore takes precedence over .gitignore and can re-include what it ignores', async () => {
    writeFiles(fx.dir, {
      '.git/HEAD': '',
      '.gitignore': 'build/\n',
      '.ignore': '!build/\n',
      'build/out.js': '',
      'src/.gitignore': 'k.txt\n',
      'src/k.txt': '',
    });
    expect(await glob({ pattern: '**/*.{js,txt}' })).toBe('build/out.js');
  });

  test('.gitignore files above the repository root do not apply; those of an outer repository stop at a nested one', async () => {
    const outer = makeTempDir();
    try {
      writeFiles(outer, {
        '.gitignore': 'a.txt\n',
        'repo/.git/HEAD': '',
        'repo/.gitignore': 'b.txt\n',
        'repo/a.txt': '',
        'repo/b.txt': '',
        'repo/nested/.git/HEAD': '',
        'repo/nested/b.txt': '',
        'repo/nested/c.txt': '',
      });
      await fx.app.dispose();
      fx.open({ cwd: nodePath.join(outer, 'repo') });
      expect((await glob({ pattern: '**/*.txt' })).split('\n').sort()).toEqual(['a.txt', 'nested/b.txt', 'nested/c.txt']);
    } finally {
      removeDir(outer);
    }
  });

  test('.git/info/exclude applies', async () => {
    writeFiles(fx.dir, { '.git/info/exclude': 'secret-notes.md\n', 'secret-notes.md': '', 'notes.md': '' });
    expect(await glob({ pattern: '*.md' })).toBe('notes.md');
  });

  test('an ignored folder given as a pattern prefix is still ignored', async () => {
    writeFiles(fx.dir, { '.gitignore': 'dist/\n', 'dist/a.js': '', 'src/b.js': '' });
    expect(await glob({ pattern: 'dist/**/*.js' })).toMatch(/^No files match "dist\/\*\*\/\*\.js" in the working directory\./);
    expect(await glob({ pattern: 'dist/**/*.js', include_ignored: true })).toBe('dist/a.js');
  });
});

describe('Glob and secrets', () => {
  beforeEach(() => fx.open());

  test('sensitive files are left out and counted', async () => {
    writeFiles(fx.dir, { '.env': 'X=1', '.env.local': 'Y=2', '.env.example': 'X=', 'config/id_rsa': 'k', 'app.ts': '' });
    ageInOrder(fx.dir, ['app.ts', '.env.example']);
    expect(await glob({ pattern: '**/*' })).toBe(
      'app.ts\n.env.example\nLeft out 3 matching files that hold secrets (env files, private keys, credentials); no tool reads them.',
    );
    expect(await glob({ pattern: '.env' })).toBe(
      'No files match ".env" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to include them.\n' +
        'Left out 1 matching file that holds secrets (env files, private keys, credentials); no tool reads them.',
    );
  });
});

describe('Glob searches exactly the folder it was resolved with', () => {
  let outside = '';
  beforeEach(() => {
    outside = makeTempDir('toolhost-outside-');
    writeFiles(outside, { 'notes.txt': 'outside\n', 'id_ed25519.pub': 'key\n' });
  });
  afterEach(() => removeDir(outside));

  test('a folder swapped for a link outside the workspace after resolution is not searched', async () => {
    fx.open();
    writeFiles(fx.dir, { 'sub/in.txt': '' });
    const result = await executeAfter(fx.agent, 'Glob', { pattern: '**/*', path: 'sub' }, () => replaceWithSymlink(nodePath.join(fx.dir, 'sub'), outside));
    expect(result).toEqual({
      isError: true,
      output: `"sub" changed between the approval and the search (it is now a link to "${outside}"); nothing was searched. Check the path and call again.`,
    });
  });

  test('a folder swapped for a link while it is walked: the results are discarded', async () => {
    const sub = nodePath.join(fx.dir, 'sub');
    let swapped = false;
    const swapOnList = (path: string) => {
      if (swapped || path !== sub) return;
      swapped = true;
      replaceWithSymlink(sub, outside);
    };
    fx.open({ runtime: hookedRuntime({ beforeReaddir: swapOnList }) });
    writeFiles(fx.dir, { 'sub/in.txt': '' });
    expect(await glob({ pattern: '**/*', path: 'sub' })).toBe(
      `"sub" changed between the approval and the end of the search (it is now a link to "${outside}"); its results were discarded. Check the path and call again.`,
    );
    expect(swapped).toBe(true);
  });
});

describe('Glob errors', () => {
  beforeEach(() => fx.open());

  test('names with ( ) | , are literal; [ ] and { } are glob syntax unless escaped (as in rg -g)', async () => {
    writeFiles(fx.dir, { 'b(2).txt': '', 'b2.txt': '', 'd|e.txt': '', 'e.txt': '', '[x].txt': '', 'x.txt': '', '{y}.txt': '', 'y.txt': '', 'a,b': '' });
    expect(await glob({ pattern: 'b(2).txt' })).toBe('b(2).txt');
    expect(await glob({ pattern: 'd|e.txt' })).toBe('d|e.txt');
    expect(await glob({ pattern: '[x].txt' })).toBe('x.txt');
    expect(await glob({ pattern: '\\[x\\].txt' })).toBe('[x].txt');
    expect(await glob({ pattern: '{y}.txt' })).toBe('y.txt');
    expect(await glob({ pattern: '\\{y\\}.txt' })).toBe('{y}.txt');
    expect(await glob({ pattern: 'a,b' })).toBe('a,b');
  });

  test('a glob whose regex would backtrack for minutes on a long name is answered at once: as a pattern, an ignore line and a Grep glob', async () => {
    await fx.app.dispose();
    fx.open({ config: { grep: { engine: 'builtin' } } });
    // Seven stars fail on 250 a's only after trying every split: a backtracking regex took 48 s with five.
    const risky = '*a*a*a*a*a*a*b';
    writeFiles(fx.dir, { [`${'a'.repeat(250)}.txt`]: 'needle\n', [`${'a'.repeat(40)}b`]: 'needle\n' });
    expect(await glob({ pattern: risky })).toBe(`${'a'.repeat(40)}b`);
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle', glob: risky }))).toBe(`${'a'.repeat(40)}b`);
    writeFiles(fx.dir, { '.gitignore': `${risky}\n` });
    expect(await glob({ pattern: '*' })).toBe(`.gitignore\n${'a'.repeat(250)}.txt`);
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle' }))).toBe(`${'a'.repeat(250)}.txt`);
  });

  test('only the folders a pattern can match in are listed: a literal prefix and a fixed depth', async () => {
    writeFiles(fx.dir, { 'src/a.ts': '', 'src/deep/b.ts': '', 'other/src/c.ts': '', 'c.ts': '' });
    const listed: string[] = [];
    // The real disk, through the runtime path (no local fast path), recording each folder listed.
    const recording: SearchFs = { ...localSearchFs, local: undefined, readdir: (path, options) => (listed.push(nodePath.relative(fx.dir, path) || '.'), localSearchFs.readdir(path, options)) };
    const list = async (pattern: string) => {
      listed.length = 0;
      const compiled = compileGlobPattern(pattern, fx.dir);
      if ('error' in compiled) throw new Error(compiled.error);
      const { files } = await listGlob(recording, fx.dir, compiled, { includeIgnored: false, signal: new AbortController().signal });
      return { files: [...files].sort(), listed: [...listed].sort() };
    };
    expect(await list('src/*.ts')).toEqual({ files: ['src/a.ts'], listed: ['.', 'src'] });
    expect(await list('*/*.ts')).toEqual({ files: ['src/a.ts'], listed: ['.', 'other', 'src'] });
    expect(await list('src/**')).toEqual({ files: ['src/a.ts', 'src/deep/b.ts'], listed: ['.', 'src', 'src/deep'] });
    expect(await list('**/src/*.ts')).toEqual({ files: ['other/src/c.ts', 'src/a.ts'], listed: ['.', 'other', 'other/src', 'src', 'src/deep'] });
  });

  test('a large listing is exactly newest first', async () => {
    const names = Array.from({ length: 2_600 }, (_, i) => `d${i % 7}/f${String(i).padStart(4, '0')}.ts`);
    writeFiles(fx.dir, Object.fromEntries(names.map((n) => [n, ''])));
    // A shuffled age order, so neither path order nor creation order is the answer.
    const newestFirst = [...names].sort((a, b) => ((a.charCodeAt(7) * 31 + a.length) % 13) - ((b.charCodeAt(7) * 31 + b.length) % 13) || (a < b ? 1 : -1));
    ageInOrder(fx.dir, newestFirst);
    const pages: string[] = [];
    for (let offset = 0; offset < names.length; offset += 1000) {
      pages.push(...(await glob({ pattern: '**/*.ts', limit: 1000, offset })).split('\n').filter((l) => l.endsWith('.ts')));
    }
    expect(pages).toEqual(newestFirst);
  });

  test('a glob rg refuses is refused with its reason', async () => {
    expect(await glob({ pattern: 'a}' })).toBe('The pattern "a}" is not a valid glob: unopened alternate group; missing "{" (write "\\}" for a literal brace).');
    expect(await glob({ pattern: '{a' })).toBe('The pattern "{a" is not a valid glob: unclosed alternate group; missing "}" (write "\\{" for a literal brace).');
    expect(await glob({ pattern: 'x[ab' })).toBe('The pattern "x[ab" is not a valid glob: unclosed character class; missing "]" (write "\\[" for a literal bracket).');
    expect(await glob({ pattern: '[z-a]' })).toBe('The pattern "[z-a]" is not a valid glob: invalid range; "z" > "a" (write the smaller character first).');
  });

  test('a missing path, a file as path, "..", "!" and an absolute pattern outside the folder', async () => {
    writeFiles(fx.dir, { 'a.txt': '' });
    expect(await glob({ pattern: '*', path: 'nope' })).toBe('"nope" does not exist. Check the path, or leave path out to search the working directory.');
    expect(await glob({ pattern: '*', path: 'a.txt' })).toBe('"a.txt" is a file, not a folder. Glob searches folders; to read this file, use Read.');
    expect(await glob({ pattern: '../*' })).toBe('The pattern "../*" contains "..". Set path to the folder to search and keep the pattern inside it.');
    expect(await glob({ pattern: '!*.txt' })).toMatch(/^The pattern "!\*\.txt" starts with "!"/);
    expect(await glob({ pattern: '/etc/*.conf' })).toMatch(/^The pattern "\/etc\/\*\.conf" is an absolute path outside the search folder/);
    expect(await glob({ pattern: '*', path: '../..' })).toMatch(/is not an absolute path. You must provide an absolute path to search outside the working directory/);
  });

  test('a timeout from config returns partial results with a notice', async () => {
    await fx.app.dispose();
    fx.open({ config: { glob: { timeoutMs: 1 } } });
    writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`d${i % 40}/e${i}/f${i}.txt`, ''])));
    const out = await glob({ pattern: '**/*.txt', limit: 1000 });
    expect(out.split('\n')[0]).toBe('Glob timed out after 0.001 s; the list below is partial. Narrow the pattern or the path.');
    expect(out.split('\n').length).toBeLessThan(401);
  });
});

const rg = vscodeRipgrepBinary();
const withRg = rg ? describe : describe.skip;

withRg('Glob with rg walking (a big tree, a pattern over all of it)', () => {
  beforeEach(() => fx.open());

  async function walks(pattern: string): Promise<{ ours: string[]; rg: string[] }> {
    const compiled = compileGlobPattern(pattern, fx.dir);
    if ('error' in compiled) throw new Error(compiled.error);
    const options = { includeIgnored: false, signal: new AbortController().signal };
    const listing = await listGlobWithRipgrep(rg!, fx.dir, compiled, options);
    return { ours: [...(await listGlob(localSearchFs, fx.dir, compiled, options)).files].sort(), rg: [...listing!.files].sort() };
  }

  test('ignore files still win over the pattern, and a file they re-include is listed only when the pattern matches it', async () => {
    writeFiles(fx.dir, {
      '.gitignore': 'gen/\n*.gen.ts\n!keep.js\n',
      'a.ts': '',
      'x.gen.ts': '',
      'keep.js': '',
      'gen/b.ts': '',
      'src/c.ts': '',
      'src/gen/d.ts': '',
      // Re-included by a nested .rgignore and a .ignore: rg's file type still leaves them out, so its list is taken as is.
      'src/.rgignore': '!*.md\n',
      'src/notes.md': '',
      '.ignore': '!*.gen.js\n',
      'y.gen.js': '',
    });
    fs.mkdirSync(nodePath.join(fx.dir, '.git'));
    // A file type (rg's `--type`) and an ignore file (`--ignore-file`): rg's `-g` would list x.gen.ts.
    expect(ripgrepGlobFilter(compileGlobPattern('*.ts', fx.dir) as never)).toEqual({ type: '*.ts' });
    expect(ripgrepGlobFilter(compileGlobPattern('**/src/*.ts', fx.dir) as never)).toEqual({ ignoreFile: '*\n!*/\n!**/src/*.ts\n' });
    expect(await walks('*.ts')).toEqual({ ours: ['a.ts', 'src/c.ts'], rg: ['a.ts', 'src/c.ts'] });
    expect(await walks('**/src/*.ts')).toEqual({ ours: ['src/c.ts'], rg: ['src/c.ts'] });
    expect(await walks('**/*.{ts,md}')).toEqual({ ours: ['a.ts', 'src/c.ts', 'src/notes.md'], rg: ['a.ts', 'src/c.ts', 'src/notes.md'] });
  });

  test.each([
    [1, 1],
    [2, 1],
    [3, 2],
    [16, 15],
  ])('on %i cores rg walks with %i threads, leaving a core to the thread that stats what it lists', (cores, threads) => {
    expect(ripgrepGlobThreads(cores)).toBe(threads);
  });

  test('paths split between chunks of rg output, with characters of several bytes, are read whole', async () => {
    // About 250 KB of output, nearly all in characters of two to four bytes: many reads from the
    // pipe, which end inside paths and, most of them, inside a character.
    const names = Array.from({ length: 1_500 }, (_, i) => `ü日本${i % 9}/🦊${'é日'.repeat(20 + (i % 17))}${i}.ts`);
    writeFiles(fx.dir, Object.fromEntries(names.map((n) => [n, ''])));
    const compiled = compileGlobPattern('*.ts', fx.dir);
    if ('error' in compiled) throw new Error(compiled.error);
    const listing = await listGlobWithRipgrep(rg!, fx.dir, compiled, { includeIgnored: false, signal: new AbortController().signal });
    expect([...listing!.files].sort()).toEqual([...names].sort());
  });

  test('rg skips the folders above the search folder only when no ignore file there applies', async () => {
    const logged = argLoggingRg(fx.dir, rg!);
    const cases = writeAncestorIgnoreLayouts(fx.dir, '');
    for (const [dir, expected, skips] of cases) {
      const root = nodePath.join(fx.dir, dir);
      const compiled = compileGlobPattern('*.ts', root);
      if ('error' in compiled) throw new Error(compiled.error);
      const options = { includeIgnored: false, signal: new AbortController().signal };
      const walked = await listGlobWithRipgrep(logged.path, root, compiled, options);
      expect({ dir, files: [...walked!.files].sort(), skipsParents: logged.lastArgs().includes('--no-ignore-parent') }).toEqual({ dir, files: expected, skipsParents: skips });
      expect([...(await listGlob(localSearchFs, root, compiled, options)).files].sort()).toEqual(expected);
    }
  });

  /** A real rg behind a script that notes each start; `remove` deletes both files. */
  function countingRg(): { wrapper: string; starts: () => number; remove: () => void } {
    const log = nodePath.join(fx.dir, '..', `rg-starts-${process.pid}.log`);
    const wrapper = nodePath.join(fx.dir, '..', `rg-wrapper-${process.pid}.sh`);
    fs.writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${rg}' "$@"\n`, { mode: 0o755 });
    return {
      wrapper,
      starts: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0),
      remove: () => {
        fs.rmSync(log, { force: true });
        fs.rmSync(wrapper, { force: true });
      },
    };
  }

  test('the tool hands a big tree to rg, and keeps small trees, narrow patterns and grep.engine builtin in process', async () => {
    const { wrapper, starts, remove } = countingRg();
    try {
      await fx.app.dispose();
      fx.open({ config: { grep: { rgPath: wrapper } } });
      writeFiles(fx.dir, { 'small/a.ts': '', 'small/b.md': '' });
      expect(await glob({ pattern: '**/*.ts', path: 'small' })).toBe('small/a.ts');
      expect(starts()).toBe(0);
      const big = Array.from({ length: 3_200 }, (_, i) => `big/d${i % 50}/f${i}.${i % 2 ? 'ts' : 'js'}`);
      writeFiles(fx.dir, Object.fromEntries(big.map((rel) => [rel, ''])));
      ageInOrder(fx.dir, ['big/d1/f1.ts', 'big/d3/f3.ts', 'small/a.ts', ...big.slice(4)]);
      expect((await glob({ pattern: '**/*.ts', limit: 2 })).split('\n')).toEqual([
        'big/d1/f1.ts',
        'big/d3/f3.ts',
        'Showing files 1-2 of 1,601, newest first. Use offset=2 to see more.',
      ]);
      expect(starts()).toBe(1);
      expect(await glob({ pattern: 'big/d1/*.ts', limit: 1 })).toMatch(/^big\/d1\/f1\.ts\nShowing files 1-1 of 64,/);
      expect(starts()).toBe(1);
      await fx.app.dispose();
      fx.open({ config: { grep: { rgPath: wrapper, engine: 'builtin' } } });
      expect((await glob({ pattern: '**/*.ts', limit: 2 })).split('\n')[2]).toBe('Showing files 1-2 of 1,601, newest first. Use offset=2 to see more.');
      expect(starts()).toBe(1);
    } finally {
      remove();
    }
  });

  test('a tree whose first folders hold many folders goes to rg before they are listed one by one', async () => {
    const { wrapper, starts, remove } = countingRg();
    try {
      await fx.app.dispose();
      fx.open({ config: { grep: { rgPath: wrapper } } });
      // 400 entries listed and 400 folders found: 400 + 400 x 4 is over the budget of 1,500,
      // though the whole tree holds only 801 entries.
      const wide = Array.from({ length: 400 }, (_, i) => `wide/p${i}/index.ts`);
      writeFiles(fx.dir, { ...Object.fromEntries(wide.map((rel) => [rel, ''])), 'wide/p7/readme.md': '' });
      ageInOrder(fx.dir, ['wide/p7/index.ts', 'wide/p3/index.ts', ...wide.filter((rel) => !/p[37]\//.test(rel))]);
      expect((await glob({ pattern: '**/*.ts', path: 'wide', limit: 2 })).split('\n')).toEqual([
        'wide/p7/index.ts',
        'wide/p3/index.ts',
        'Showing files 1-2 of 400, newest first. Use offset=2 to see more.',
      ]);
      expect(starts()).toBe(1);
      // 100 folders (100 + 100 x 4 entries, then 100 more) stay in process.
      writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`narrow/p${i}/index.ts`, ''])));
      expect((await glob({ pattern: '**/*.ts', path: 'narrow', limit: 1 })).split('\n')[1]).toBe('Showing files 1-1 of 100, newest first. Use offset=1 to see more.');
      expect(starts()).toBe(1);
    } finally {
      remove();
    }
  });
});

describe('the newest-first page', () => {
  test('selecting the first files equals sorting them all, with many equal times', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    const stamped: Array<[number, string]> = Array.from({ length: 5_000 }, (_, i) => [next() % 40, `p${next() % 100_000}-${i}`]);
    const sorted = [...stamped].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1)).map(([, rel]) => rel);
    for (const wanted of [1, 7, 100, 624, 626, 5_000, Infinity]) expect(newestFirst([...stamped], wanted)).toEqual(sorted.slice(0, wanted));
  });
});

describe('Glob resolution', () => {
  beforeEach(() => fx.open());

  test('declares a recursive search of the root, a path rule and a display, without touching the disk', async () => {
    writeFiles(fx.dir, { 'src/a.ts': '' });
    const execution = (await fx.agent.registry.get('Glob')!.tool.resolveExecution({ pattern: '**/*.ts', path: 'src' } as never)) as RunnableToolExecution;
    expect(isToolErrorResult(execution)).toBe(false);
    const root = nodePath.join(fx.dir, 'src');
    expect(execution.accesses).toEqual([{ kind: 'file', op: 'search', path: root, recursive: true }]);
    expect(execution.approvalRule).toBe(`Glob(${root})`);
    expect(execution.display).toEqual({ kind: 'file_io', operation: 'glob', path: root, detail: 'pattern: **/*.ts' });
    expect(execution.description).toBe('Finding files matching **/*.ts in src');
    expect(execution.matchesRule!('src/**')).toBe(true);
    expect(execution.matchesRule!(`${fx.dir}/**`)).toBe(true);
    expect(execution.matchesRule!('lib/**')).toBe(false);
  });

  test('the description renders the limits from config', async () => {
    await fx.app.dispose();
    fx.open({ config: { glob: { defaultLimit: 42, timeoutMs: 5000 } } });
    const description = fx.agent.registry.get('Glob')!.tool.description;
    expect(description).toContain('at most 42 paths');
    expect(description).toContain('stops after 5 s');
  });
});
