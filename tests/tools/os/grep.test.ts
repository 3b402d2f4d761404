import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { AppConfigInput } from '../../../src/scopes/appScope';
import { IGrepEngineService } from '../../../src/tools/os/grep/grepEngineSelection';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { ageInOrder } from '../../helpers/mtimes';
import { executeAfter, replaceWithSymlink } from '../../helpers/pathSwap';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';
import { argLoggingRg, writeAncestorIgnoreLayouts } from '../../helpers/ancestorIgnores';
import { vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';

/**
 * The same suite runs against both engines: every expected output below is exact, so the
 * engines agree on formats, ordering, ignore rules, binary files, long lines and paging.
 */
const ENGINES = ['ripgrep', 'builtin'] as const;

describe.each(ENGINES)('Grep (%s engine)', (engine) => {
  const fx = useAgent({
    builtins: true,
    beforeDispose: ({ app }) => {
      // The engine that ran is the one configured: no silent fallback in these tests.
      const selections = app.get(IGrepEngineService).selections;
      expect(selections[engine === 'ripgrep' ? 'builtin' : 'ripgrep']).toBe(0);
    },
  });

  /** Opens an App whose grep.engine is this suite's engine. */
  function open(config: AppConfigInput = {}, cwd = fx.dir): void {
    fx.open({ config: { ...config, grep: { ...config.grep, engine } }, cwd });
  }

  async function grep(input: Record<string, unknown>): Promise<string> {
    return text(await callTool(fx.agent, 'Grep', input));
  }

  describe('output formats', () => {
    beforeEach(() => {
      open();
      writeFiles(fx.dir, {
        'src/a.ts': 'import x from "y";\nconst alpha = 1;\nfunction beta() {}\nconst alphabet = alpha + 2;\n',
        'src/b.ts': 'nothing here\n',
        'src/deep/c.ts': 'alpha\n',
        'notes.md': 'alpha and alpha and alpha\n',
      });
      ageInOrder(fx.dir, ['src/deep/c.ts', 'notes.md', 'src/a.ts', 'src/b.ts']);
    });

    test('files_with_matches (the default) lists matching files newest first, relative to the working directory', async () => {
      expect(await grep({ pattern: 'alpha' })).toBe('src/deep/c.ts\nnotes.md\nsrc/a.ts');
      expect(await grep({ pattern: 'alpha', path: 'src' })).toBe('src/deep/c.ts\nsrc/a.ts');
    });

    test('content shows path:line:text in path order; -n false drops the numbers', async () => {
      expect(await grep({ pattern: 'alpha', output_mode: 'content' })).toBe(
        'notes.md:1:alpha and alpha and alpha\nsrc/a.ts:2:const alpha = 1;\nsrc/a.ts:4:const alphabet = alpha + 2;\nsrc/deep/c.ts:1:alpha',
      );
      expect(await grep({ pattern: 'beta', output_mode: 'content', '-n': false })).toBe('src/a.ts:function beta() {}');
    });

    test('count_matches counts every occurrence, with a total first', async () => {
      expect(await grep({ pattern: 'alpha', output_mode: 'count_matches' })).toBe(
        'Found 7 occurrences in 3 files.\nnotes.md:3\nsrc/a.ts:3\nsrc/deep/c.ts:1',
      );
      expect(await grep({ pattern: 'beta', output_mode: 'count_matches' })).toBe('Found 1 occurrence in 1 file.\nsrc/a.ts:1');
    });

    test('context lines use "-", groups are separated by "--", -A/-B override -C', async () => {
      writeFiles(fx.dir, { 'ctx.txt': ['l1', 'hit 2', 'l3', 'l4', 'l5', 'l6', 'hit 7', 'hit 8', 'l9', 'l10'].join('\n') + '\n' });
      expect(await grep({ pattern: 'hit', path: 'ctx.txt', output_mode: 'content', '-C': 1 })).toBe(
        'ctx.txt-1-l1\nctx.txt:2:hit 2\nctx.txt-3-l3\n--\nctx.txt-6-l6\nctx.txt:7:hit 7\nctx.txt:8:hit 8\nctx.txt-9-l9',
      );
      expect(await grep({ pattern: 'hit 2', path: 'ctx.txt', output_mode: 'content', '-B': 5, '-A': 1 })).toBe(
        'ctx.txt-1-l1\nctx.txt:2:hit 2\nctx.txt-3-l3',
      );
      expect(await grep({ pattern: 'hit 8', path: 'ctx.txt', output_mode: 'content', '-C': 3, '-A': 0, '-n': false })).toBe(
        'ctx.txt-l5\nctx.txt-l6\nctx.txt-hit 7\nctx.txt:hit 8',
      );
      expect(await grep({ pattern: 'l10', path: 'ctx.txt', output_mode: 'content', '-A': 4 })).toBe('ctx.txt:10:l10');
    });

    test('separators also fall between files when context is shown', async () => {
      expect(await grep({ pattern: 'beta|^alpha$', output_mode: 'content', '-A': 1, path: 'src' })).toBe(
        'src/a.ts:3:function beta() {}\nsrc/a.ts-4-const alphabet = alpha + 2;\n--\nsrc/deep/c.ts:1:alpha',
      );
    });

    test('a file as path searches that file only', async () => {
      expect(await grep({ pattern: 'alpha', path: 'src/a.ts', output_mode: 'content' })).toBe('src/a.ts:2:const alpha = 1;\nsrc/a.ts:4:const alphabet = alpha + 2;');
      expect(await grep({ pattern: 'alpha', path: 'src/a.ts' })).toBe('src/a.ts');
    });

    test('no match says so, with a hint about ignored files', async () => {
      expect(await grep({ pattern: 'zeta' })).toBe(
        'No matches for "zeta" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.',
      );
      expect(await grep({ pattern: 'zeta', path: 'src', glob: '*.ts', include_ignored: true })).toBe('No matches for "zeta" in src (glob "*.ts").');
    });

    test('paths outside the working directory are absolute', async () => {
      const outside = makeTempDir();
      try {
        writeFiles(outside, { 'x/y.txt': 'alpha\n' });
        expect(await grep({ pattern: 'alpha', path: outside, output_mode: 'content' })).toBe(`${outside}/x/y.txt:1:alpha`);
      } finally {
        removeDir(outside);
      }
    });
  });

  describe('patterns', () => {
    beforeEach(() => open());

    test('-i, Unicode classes and word boundaries', async () => {
      writeFiles(fx.dir, { 'u.txt': 'Straße\nSTRASSE\nnaïve café\ncafeteria\nПривет мир\n' });
      expect(await grep({ pattern: 'strasse', '-i': true, output_mode: 'content' })).toBe('u.txt:2:STRASSE');
      expect(await grep({ pattern: '\\bcaf\\w\\b', output_mode: 'content' })).toBe('u.txt:3:naïve café');
      expect(await grep({ pattern: '^\\w+ \\w+$', output_mode: 'content' })).toBe('u.txt:3:naïve café\nu.txt:5:Привет мир');
      expect(await grep({ pattern: '(?i)привет', output_mode: 'content' })).toBe('u.txt:5:Привет мир');
      expect(await grep({ pattern: '[[:upper:]]{7}', output_mode: 'content' })).toBe('u.txt:2:STRASSE');
    });

    test('anchors match at line ends, not before a \\r; CRLF lines are shown without \\r', async () => {
      writeFiles(fx.dir, { 'crlf.txt': 'one end\r\ntwo end\r\nthree\n' });
      expect(await grep({ pattern: 'end$', output_mode: 'content' })).toBe('No matches for "end$" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.');
      expect(await grep({ pattern: 'end.$', output_mode: 'content' })).toBe('crlf.txt:1:one end\ncrlf.txt:2:two end');
      expect(await grep({ pattern: '^t', output_mode: 'content' })).toBe('crlf.txt:2:two end\ncrlf.txt:3:three');
    });

    test('invalid UTF-8 bytes match no class nor "." (a real U+FFFD does), and are shown as U+FFFD', async () => {
      fs.writeFileSync(nodePath.join(fx.dir, 'bytes.txt'), Buffer.from('caf\xe9\nx\xff\xfey\n\xef\xbf\xbd\nok \xf0\x9f\x98!\n', 'latin1'));
      const none = (pattern: string) => `No matches for "${pattern}" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.`;
      for (const pattern of ['caf.', 'caf[^a]', 'caf\\W', 'caf\\P{L}', 'x..y', 'x\\S+y', 'ok .!']) expect(await grep({ pattern, output_mode: 'content' })).toBe(none(pattern));
      expect(await grep({ pattern: '^.$', output_mode: 'content' })).toBe('bytes.txt:3:\ufffd');
      expect(await grep({ pattern: '^caf', output_mode: 'content' })).toBe('bytes.txt:1:caf\ufffd');
      expect(await grep({ pattern: 'x.*', output_mode: 'content' })).toBe('bytes.txt:2:x\ufffd\ufffdy');
      expect(await grep({ pattern: 'ok.*!', output_mode: 'content' })).toBe(none('ok.*!'));
      expect(await grep({ pattern: 'ok \\S*', output_mode: 'content' })).toBe('bytes.txt:4:ok \ufffd!');
    });

    test('outside Unicode mode ((?-u)) \\xFF is the byte FF: rg finds the raw byte, the builtin engine refuses what it cannot match; both refuse what rg refuses', async () => {
      fs.writeFileSync(nodePath.join(fx.dir, 'raw.txt'), Buffer.from('a\xffb\n', 'latin1'));
      writeFiles(fx.dir, { 'utf8.txt': 'a\u00ffb\n', 'ascii.txt': 'ab\n' });
      const files = (pattern: string) => grep({ pattern, output_mode: 'files_with_matches' });
      const cannot = (what: string) =>
        `The builtin search engine cannot run this pattern: outside Unicode mode ((?-u)) ${what}, which the builtin engine cannot match (it searches decoded text); ` +
        'leave (?-u) out to match characters (\\x{FF} is U+00FF). Simplify the pattern, or install ripgrep (rg).';
      const bytePatterns: Array<[string, string, string]> = [
        ['(?-u:\\xFF)', 'raw.txt', cannot('\\xFF is the single byte FF, not a character')],
        ['a(?-u:[\\x80-\\xFF])b', 'raw.txt', cannot('a class that matches a byte above 7F matches single bytes')],
        ['a(?-u:.)b', 'raw.txt', cannot('"." matches any single byte')],
        ['a(?-u:\\W)b', 'raw.txt', cannot('a class that matches a byte above 7F matches single bytes')],
      ];
      for (const [pattern, rgFinds, builtinSays] of bytePatterns) expect([pattern, await files(pattern)]).toEqual([pattern, engine === 'ripgrep' ? rgFinds : builtinSays]);
      // The same on text in both engines: \x{FF} is U+00FF even outside Unicode mode, and so is \xFF inside it; ASCII classes.
      expect(await files('(?-u:\\x{FF})')).toBe('utf8.txt');
      expect(await files('\\xFF')).toBe('utf8.txt');
      expect(await files('(?-u:[\\x00-\\x7F])b')).toBe('ascii.txt');
      // rg refuses a character above 7F in a byte class, and Unicode classes: so do both engines, before either runs.
      expect(await files('(?-u:[é])')).toMatch(/^Invalid regex "\(\?-u:\[é\]\)": Unicode not allowed here \(at character 7\)\./);
      expect(await files('(?-u:\\pL)')).toMatch(/^Invalid regex "\(\?-u:\\pL\)": Unicode not allowed here \(at character 6\)\./);
    });

    test('word boundaries next to invalid UTF-8 are Rust\'s: a word character before stray continuation bytes still counts', async () => {
      fs.writeFileSync(nodePath.join(fx.dir, 'w.txt'), Buffer.from('a\x80)\n\xc3\xa9\x80\x80)\n\x80\x80\x80\x80)\n \x80x\na\x80b\n', 'latin1'));
      expect(await grep({ pattern: '\\b\\)', output_mode: 'content' })).toBe('w.txt:1:a\ufffd)\nw.txt:2:é\ufffd\ufffd)');
      // \B needs valid UTF-8 on both sides, unless the byte before is a stray continuation after a word character.
      expect(await grep({ pattern: '\\Bb', output_mode: 'content' })).toBe('w.txt:5:a\ufffdb');
      expect(await grep({ pattern: '\\B\\)|\\Bx', output_mode: 'content' })).toBe(
        'No matches for "\\B\\)|\\Bx" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.',
      );
    });

    test('outside multiline mode \\A and \\z are the ends of each line; in multiline mode of the file', async () => {
      writeFiles(fx.dir, { 'a.txt': 'ab\ncd\r\nab\n' });
      expect(await grep({ pattern: '\\Aab', output_mode: 'content' })).toBe('a.txt:1:ab\na.txt:3:ab');
      expect(await grep({ pattern: '(?-m)^cd.$', output_mode: 'content' })).toBe('a.txt:2:cd');
      expect(await grep({ pattern: 'b\\z', output_mode: 'content' })).toBe('a.txt:1:ab\na.txt:3:ab');
      expect(await grep({ pattern: 'b\\n\\z', multiline: true, output_mode: 'content' })).toBe('a.txt:3:ab');
      expect(await grep({ pattern: '\\Acd', multiline: true, output_mode: 'count_matches' })).toMatch(/^No matches/);
    });

    test('a negated class or "." inside a counted group matches (V8 drops them at the top level of a v-flag class)', async () => {
      writeFiles(fx.dir, { 'g.txt': 'a1a2b\naxayc\n' });
      expect(await grep({ pattern: '(?:a.){2}b', output_mode: 'content' })).toBe('g.txt:1:a1a2b');
      expect(await grep({ pattern: '(?:a[^c]+){2}b', output_mode: 'content' })).toBe('g.txt:1:a1a2b');
      expect(await grep({ pattern: '(?:a\\D){2}c', output_mode: 'content' })).toBe('g.txt:2:axayc');
    });

    test('a file read after a bigger one shows only its own bytes; -i finds a literal across 64 KiB', async () => {
      // One worker reads both, the top folder's file first, into the same buffer.
      open({ grep: { workers: 1 } });
      writeFiles(fx.dir, { 'big.txt': `${'x'.repeat(65_533)}ERROR tail\n${'y'.repeat(200_000)}\n`, 'sub/small.txt': 'error\n' });
      expect(await grep({ pattern: 'error', '-i': true, output_mode: 'count_matches' })).toBe('Found 2 occurrences in 2 files.\nbig.txt:1\nsub/small.txt:1');
      expect(await grep({ pattern: 'y' })).toBe('big.txt');
    });

    test('special characters escaped with a backslash are literal', async () => {
      writeFiles(fx.dir, { 'x.ts': 'call(a)\ninterface{}\n$scope.x\n' });
      expect(await grep({ pattern: 'call\\(a\\)', output_mode: 'content' })).toBe('x.ts:1:call(a)');
      expect(await grep({ pattern: 'interface\\{\\}', output_mode: 'content' })).toBe('x.ts:2:interface{}');
      expect(await grep({ pattern: '\\$scope\\.', output_mode: 'content' })).toBe('x.ts:3:$scope.x');
    });

    test('multiline lets a match span lines; every line it touches is a match', async () => {
      writeFiles(fx.dir, { 'm.ts': 'function a(\n  x,\n  y\n) {}\nfunction b() {}\n' });
      expect(await grep({ pattern: 'a\\(\\n\\s+x', multiline: true, output_mode: 'content' })).toBe('m.ts:1:function a(\nm.ts:2:  x,');
      expect(await grep({ pattern: 'function \\w\\(.*?\\)', multiline: true, output_mode: 'content', '-A': 1 })).toBe(
        'm.ts:1:function a(\nm.ts:2:  x,\nm.ts:3:  y\nm.ts:4:) {}\nm.ts:5:function b() {}',
      );
      expect(await grep({ pattern: 'x,\\n|b\\(', multiline: true, output_mode: 'count_matches' })).toBe('Found 2 occurrences in 1 file.\nm.ts:2');
    });
  });

  describe('paging', () => {
    beforeEach(() => {
      open({ grep: { headLimit: 3 } });
      writeFiles(fx.dir, {
        'a.txt': 'm1\nx\nm2\nm3\n',
        'b.txt': 'm4\nm5\n',
        'c.txt': 'm6\n',
      });
      ageInOrder(fx.dir, ['c.txt', 'b.txt', 'a.txt']);
    });

    test('content pages over matching lines; context lines do not count', async () => {
      expect(await grep({ pattern: 'm\\d', output_mode: 'content', '-A': 1 })).toBe(
        'a.txt:1:m1\na.txt-2-x\na.txt:3:m2\na.txt:4:m3\nShowing matching lines 1-3 of 6 in 3 files. Use offset=3 to see more.',
      );
    });

    test('content: exact pages with offset, past the end, and head_limit 0', async () => {
      expect(await grep({ pattern: 'm\\d', output_mode: 'content' })).toBe(
        'a.txt:1:m1\na.txt:3:m2\na.txt:4:m3\nShowing matching lines 1-3 of 6 in 3 files. Use offset=3 to see more.',
      );
      expect(await grep({ pattern: 'm\\d', output_mode: 'content', offset: 3 })).toBe('b.txt:1:m4\nb.txt:2:m5\nc.txt:1:m6\nShowing matching lines 4-6 of 6 in 3 files.');
      expect(await grep({ pattern: 'm\\d', output_mode: 'content', offset: 2, head_limit: 2, '-B': 1 })).toBe(
        'a.txt-3-m2\na.txt:4:m3\n--\nb.txt:1:m4\nShowing matching lines 3-4 of 6 in 3 files. Use offset=4 to see more.',
      );
      expect(await grep({ pattern: 'm\\d', output_mode: 'content', offset: 6 })).toBe('No results at offset=6: there are 6 matching lines. Use a smaller offset.');
      expect((await grep({ pattern: 'm\\d', output_mode: 'content', head_limit: 0 })).split('\n')).toHaveLength(6);
    });

    test('files_with_matches and count_matches page over files', async () => {
      expect(await grep({ pattern: 'm\\d', head_limit: 2 })).toBe('c.txt\nb.txt\nShowing files 1-2 of 3. Use offset=2 to see more.');
      expect(await grep({ pattern: 'm\\d', head_limit: 2, offset: 2 })).toBe('a.txt\nShowing files 3-3 of 3.');
      expect(await grep({ pattern: 'm\\d', output_mode: 'count_matches', head_limit: 1, offset: 1 })).toBe(
        'Found 6 occurrences in 3 files.\nb.txt:2\nShowing files 2-2 of 3. Use offset=2 to see more.',
      );
      const result = await callTool(fx.agent, 'Grep', { pattern: 'm\\d', head_limit: 2 });
      expect(result.truncated).toBe(true);
      expect((await callTool(fx.agent, 'Grep', { pattern: 'm\\d' })).truncated).toBeUndefined();
    });
  });

  describe('glob and type', () => {
    beforeEach(() => {
      open();
      writeFiles(fx.dir, {
        'top.ts': 'needle\n',
        'src/a.ts': 'needle\n',
        'src/a.test.ts': 'needle\n',
        'src/deep/b.ts': 'needle\n',
        'src/deep/c.js': 'needle\n',
        'lib/src/d.ts': 'needle\n',
        'vendor/e.ts': 'needle\n',
      });
    });
    const list = async (input: Record<string, unknown>) => (await grep({ pattern: 'needle', output_mode: 'count_matches', ...input })).split('\n').slice(1);

    test('a glob with a slash is matched relative to the search folder, so src/**/*.ts works', async () => {
      expect(await list({ glob: 'src/**/*.ts' })).toEqual(['src/a.test.ts:1', 'src/a.ts:1', 'src/deep/b.ts:1']);
      expect(await list({ glob: 'deep/*', path: 'src' })).toEqual(['src/deep/b.ts:1', 'src/deep/c.js:1']);
      expect(await list({ glob: `${fx.dir}/src/*.ts` })).toEqual(['src/a.test.ts:1', 'src/a.ts:1']);
    });

    test('a glob without a slash matches names at any depth; ./ anchors; ! excludes', async () => {
      expect(await list({ glob: '*.js' })).toEqual(['src/deep/c.js:1']);
      expect(await list({ glob: './*.ts' })).toEqual(['top.ts:1']);
      expect(await list({ glob: '!*.test.ts', path: 'src' })).toEqual(['src/a.ts:1', 'src/deep/b.ts:1', 'src/deep/c.js:1']);
      expect(await list({ glob: '!src' })).toEqual(['top.ts:1', 'vendor/e.ts:1']);
      expect(await list({ glob: '*.{js,md}' })).toEqual(['src/deep/c.js:1']);
    });

    test('a glob filters and never re-includes ignored files; type and glob both apply', async () => {
      writeFiles(fx.dir, { '.gitignore': 'vendor/\n*.test.ts\n' });
      expect(await list({ glob: '*.ts' })).toEqual(['lib/src/d.ts:1', 'src/a.ts:1', 'src/deep/b.ts:1', 'top.ts:1']);
      expect(await list({ glob: 'vendor/**' })).toEqual([]);
      expect(await list({ glob: 'src/**', type: 'js' })).toEqual(['src/deep/c.js:1']);
    });

    test('type selects ripgrep file types; an unknown type is refused with a suggestion', async () => {
      expect(await list({ type: 'js' })).toEqual(['src/deep/c.js:1']);
      expect(await list({ type: 'typescript', path: 'src' })).toEqual(['src/a.test.ts:1', 'src/a.ts:1', 'src/deep/b.ts:1']);
      expect(await grep({ pattern: 'needle', type: 'golang' })).toMatch(/^Unknown file type "golang"\. Did you mean "go"\?/);
      expect(await grep({ pattern: 'needle', type: 'zzzz' })).toBe(
        'Unknown file type "zzzz". Use a ripgrep type name such as ts, js, py, rust, go, java, c, cpp, md, json, yaml, html, css, sh — or use glob instead (e.g. glob: "*.zzzz").',
      );
      expect(await grep({ pattern: 'needle', type: 'pyhton' })).toMatch(/^Unknown file type "pyhton"\. Did you mean "python"\?/);
    });

    test('glob and type do not apply to a file given as path', async () => {
      expect(await grep({ pattern: 'needle', path: 'top.ts', glob: '*.js', type: 'js' })).toBe('top.ts');
    });
  });

  describe('what is searched', () => {
    beforeEach(() => open());

    test('ignore files apply like git; include_ignored searches everything but VCS folders', async () => {
      writeFiles(fx.dir, {
        '.git/HEAD': 'needle\n',
        '.gitignore': 'build/\ndist/\n*.log\n',
        'src/.gitignore': '!keep.log\n',
        '.ignore': '!build/\n',
        'build/out.js': 'needle\n',
        'dist/d.js': 'needle\n',
        'src/x.log': 'needle\n',
        'src/keep.log': 'needle\n',
        'src/ok.ts': 'needle\n',
        '.hidden/h.txt': 'needle\n',
        '.hg/store': 'needle\n',
      });
      const counts = async (extra: Record<string, unknown> = {}) => (await grep({ pattern: 'needle', output_mode: 'count_matches', ...extra })).split('\n').slice(1);
      expect(await counts()).toEqual(['.hidden/h.txt:1', 'build/out.js:1', 'src/keep.log:1', 'src/ok.ts:1']);
      expect(await counts({ include_ignored: true })).toEqual(['.hidden/h.txt:1', 'build/out.js:1', 'dist/d.js:1', 'src/keep.log:1', 'src/ok.ts:1', 'src/x.log:1']);
    });

    test('files_with_matches pages agree with one full newest-first sort, whatever the page (ties by path)', async () => {
      // 300 files over 40 times: most share a time with others, so ties decide much of the order.
      const names = Array.from({ length: 300 }, (_, i) => `d${i % 7}/f${(i * 37) % 300}.txt`);
      writeFiles(fx.dir, Object.fromEntries(names.map((n) => [n, 'needle\n'])));
      const now = Date.now() / 1000;
      const times = new Map(names.map((n, i) => [n, now - 100 * ((i * 13) % 40)]));
      for (const [n, t] of times) fs.utimesSync(nodePath.join(fx.dir, n), t, t);
      const expected = [...names].sort((a, b) => times.get(b)! - times.get(a)! || (a < b ? -1 : 1));
      const page = async (offset: number, limit: number) => (await grep({ pattern: 'needle', offset, head_limit: limit })).split('\n').filter((l) => !l.startsWith('Showing'));
      for (const [offset, limit] of [[0, 1], [0, 7], [5, 50], [140, 100], [299, 5], [0, 0]] as const) {
        expect(await page(offset, limit)).toEqual(expected.slice(offset, limit === 0 ? undefined : offset + limit));
      }
    });

    test('.gitignore applies outside a git repository too, including from folders above the search folder', async () => {
      writeFiles(fx.dir, { '.gitignore': '*.gen.ts\n', 'sub/a.gen.ts': 'needle\n', 'sub/b.ts': 'needle\n' });
      expect(await grep({ pattern: 'needle', path: 'sub' })).toBe('sub/b.ts');
    });

    test('inside a repository, .gitignore files above its root do not apply', async () => {
      const outer = makeTempDir();
      try {
        writeFiles(outer, { '.gitignore': '*.txt\n', 'repo/.git/HEAD': '', 'repo/a.txt': 'needle\n' });
        await fx.app.dispose();
        open({}, nodePath.join(outer, 'repo'));
        expect(await grep({ pattern: 'needle' })).toBe('a.txt');
      } finally {
        removeDir(outer);
      }
    });

    test('symbolic links are not followed', async () => {
      writeFiles(fx.dir, { 'real/a.txt': 'needle\n' });
      fs.symlinkSync(nodePath.join(fx.dir, 'real'), nodePath.join(fx.dir, 'linkdir'));
      fs.symlinkSync(nodePath.join(fx.dir, 'real/a.txt'), nodePath.join(fx.dir, 'link.txt'));
      expect(await grep({ pattern: 'needle' })).toBe('real/a.txt');
    });

    test('binary files (a NUL byte anywhere) are skipped, even with a match before the NUL', async () => {
      const big = Buffer.concat([Buffer.from('needle early\n'), Buffer.alloc(200_000, 'filler line\n'), Buffer.from([0]), Buffer.from('needle late\n')]);
      writeFiles(fx.dir, {
        'small.bin': Buffer.from('needle\n\0binary\n'),
        'big.bin': big,
        'text.txt': 'needle\n',
      });
      for (const mode of ['files_with_matches', 'content', 'count_matches']) {
        expect(await grep({ pattern: 'needle', output_mode: mode })).toBe(
          { files_with_matches: 'text.txt', content: 'text.txt:1:needle', count_matches: 'Found 1 occurrence in 1 file.\ntext.txt:1' }[mode],
        );
      }
      expect(await grep({ pattern: 'needle', path: 'small.bin' })).toMatch(/^No matches for "needle" in small\.bin\./);
    });

    test('a UTF-8 byte-order mark is dropped and UTF-16 files with one are searched as text', async () => {
      writeFiles(fx.dir, {
        'bom8.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle first\n')]),
        'bom16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x\nneedle wide\n', 'utf16le')]),
      });
      expect(await grep({ pattern: '^needle', output_mode: 'content' })).toBe('bom16.txt:2:needle wide\nbom8.txt:1:needle first');
    });

    test('long lines are cut to the configured length, with a marker', async () => {
      await fx.app.dispose();
      open({ grep: { maxLineChars: 40 } });
      writeFiles(fx.dir, { 'min.js': `${'a'.repeat(100)}needle${'é'.repeat(300)}\nshort needle\n${'ü'.repeat(39)}\n` });
      expect(await grep({ pattern: 'needle', output_mode: 'content', '-A': 1 })).toBe(
        `min.js:1:${'a'.repeat(40)} [... line truncated]\nmin.js:2:short needle\nmin.js-3-${'ü'.repeat(39)}`,
      );
    });
  });

  describe('secrets', () => {
    beforeEach(() => open());

    test('sensitive files are never searched or listed, whatever the ignore files say', async () => {
      writeFiles(fx.dir, {
        '.env': 'TOKEN=needle\n',
        '.ENV.local': 'needle\n',
        '.env.example': 'TOKEN=needle\n',
        'keys/id_rsa': 'needle\n',
        'cert.pem': 'needle\n',
        '.gitignore': '!.env\n',
        'app.ts': 'needle\n',
      });
      expect((await grep({ pattern: 'needle', output_mode: 'count_matches', include_ignored: true })).split('\n')).toEqual([
        'Found 2 occurrences in 2 files.',
        '.env.example:1',
        'app.ts:1',
      ]);
      expect(await grep({ pattern: 'needle', path: '.env' })).toBe(
        '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.',
      );
    });
  });

  describe('the path searched is the one resolved', () => {
    let outside = '';
    beforeEach(() => {
      open();
      outside = makeTempDir('toolhost-outside-');
      writeFiles(outside, { 'notes.txt': 'needle outside\n' });
    });
    afterEach(() => removeDir(outside));

    test('a folder swapped for a link outside the workspace after resolution is not searched', async () => {
      writeFiles(fx.dir, { 'sub/in.txt': 'needle inside\n' });
      const result = await executeAfter(fx.agent, 'Grep', { pattern: 'needle', path: 'sub', output_mode: 'content' }, () =>
        replaceWithSymlink(nodePath.join(fx.dir, 'sub'), outside),
      );
      expect(result).toEqual({
        isError: true,
        output: `"sub" changed between the approval and the search (it is now a link to "${outside}"); nothing was searched. Check the path and call again.`,
      });
    });

    test('a file swapped for a link to .env after resolution is not searched', async () => {
      writeFiles(fx.dir, { 'a.txt': 'TOKEN=x\n', '.env': 'TOKEN=secret\n' });
      const result = await executeAfter(fx.agent, 'Grep', { pattern: 'TOKEN', path: 'a.txt', output_mode: 'content' }, () =>
        replaceWithSymlink(nodePath.join(fx.dir, 'a.txt'), nodePath.join(fx.dir, '.env')),
      );
      expect(text(result)).toBe(
        `"a.txt" changed between the approval and the search (it is now a link to "${fx.dir}/.env"); nothing was searched. Check the path and call again.`,
      );
    });
  });

  describe('errors and limits', () => {
    beforeEach(() => open());

    test('an invalid regex gets a clear message before anything runs', async () => {
      expect(await grep({ pattern: 'foo(' })).toBe(
        'Invalid regex "foo(": unclosed group (at character 4). Patterns use ripgrep (Rust regex) syntax: escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally, e.g. "foo\\(".',
      );
      expect(await grep({ pattern: '(?<=a)b' })).toBe(
        'Invalid regex "(?<=a)b": look-around, including look-ahead and look-behind, is not supported (at character 1). ripgrep patterns have no look-around or backreferences: search for a simpler pattern and narrow the results with further searches.',
      );
      expect(await grep({ pattern: 'a\\nb' })).toBe(
        'Invalid regex "a\\nb": the literal "\\n" is not allowed in a regex unless multiline is true (at character 1). Set multiline: true to match across lines.',
      );
    });

    test('a missing path, a bad glob', async () => {
      expect(await grep({ pattern: 'x', path: 'nope' })).toBe('"nope" does not exist. Check the path, or leave path out to search the working directory.');
      expect(await grep({ pattern: 'x', glob: '../*.ts' })).toBe('The glob "../*.ts" contains "..". Globs are matched inside the search folder; set path to the folder to search instead.');
    });

    test('a timeout from config returns partial results with a notice', async () => {
      await fx.app.dispose();
      open({ grep: { timeoutMs: 1 } });
      writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i % 30}/f${i}.txt`, 'needle\n'.repeat(50)])));
      const out = await grep({ pattern: 'needle', output_mode: 'count_matches' });
      expect(out.split('\n')[0]).toBe('Grep timed out after 0.001 s; the results below are partial and the totals are lower bounds. Narrow the path, glob or pattern.');
    });

    test('the cap on collected output stops the search with a notice', async () => {
      await fx.app.dispose();
      open({ grep: { maxOutputBytes: 2000 } });
      writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'needle line\n'.repeat(20)])));
      const out = await grep({ pattern: 'needle', output_mode: 'content', head_limit: 0 });
      const lines = out.split('\n');
      expect(lines[0]).toBe(
        'Grep stopped after collecting 2.0 KB of matches; the results below are partial and the totals are lower bounds. Narrow the pattern or path, or use output_mode "files_with_matches" or "count_matches".',
      );
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.length).toBeLessThan(1000);
    });

    test('in the other modes the cap on collected output says to give a head_limit, not to use the mode in use', async () => {
      await fx.app.dispose();
      open({ grep: { maxOutputBytes: 2000 } });
      writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`${'d/'.repeat(10)}f${String(i).padStart(3, '0')}.txt`, 'needle\n'])));
      for (const mode of ['files_with_matches', 'count_matches']) {
        expect((await grep({ pattern: 'needle', output_mode: mode, head_limit: 0 })).split('\n')[0]).toBe(
          'Grep stopped after collecting 2.0 KB of matches; the results below are partial and the totals are lower bounds. Narrow the pattern or path, or give a head_limit and page with offset.',
        );
      }
    });

    test('a content page keeps only its own lines: past the cap on collected output, the totals are exact and the page is the first in path order', async () => {
      await fx.app.dispose();
      open({ grep: { maxOutputBytes: 12_000 } });
      // 50 files of 20 matching lines: about 32 KB as collected (27 KB of lines, 5 KB of paths and counts), past the cap.
      const names = Array.from({ length: 50 }, (_, i) => `d${i % 7}/f${String(i).padStart(2, '0')}.txt`);
      writeFiles(fx.dir, Object.fromEntries(names.map((name) => [name, 'needle line\n'.repeat(20)])));
      const first = [...names].sort()[0]!;
      const second = [...names].sort()[1]!;
      expect((await grep({ pattern: 'needle', output_mode: 'content', head_limit: 3 })).split('\n')).toEqual([
        `${first}:1:needle line`,
        `${first}:2:needle line`,
        `${first}:3:needle line`,
        'Showing matching lines 1-3 of 1,000 in 50 files. Use offset=3 to see more.',
      ]);
      // A page that spans two files.
      expect((await grep({ pattern: 'needle', output_mode: 'content', offset: 19, head_limit: 2 })).split('\n')).toEqual([
        `${first}:20:needle line`,
        `${second}:1:needle line`,
        'Showing matching lines 20-21 of 1,000 in 50 files. Use offset=21 to see more.',
      ]);
    });

    test('files_with_matches and count_matches keep only their page: past the cap on collected output, the totals are exact and the page is the true first', async () => {
      await fx.app.dispose();
      // 400 matching files with long paths: about 44 KB of paths and counts, far past this cap.
      open({ grep: { maxOutputBytes: 4000 } });
      const names = Array.from({ length: 400 }, (_, i) => `${'deep/'.repeat(15)}f${String(i).padStart(3, '0')}.txt`);
      writeFiles(fx.dir, Object.fromEntries(names.map((name, i) => [name, 'needle\n'.repeat(1 + (i % 3))])));
      const now = Date.now() / 1000;
      // f123 is the newest, then f000, f001, …
      names.forEach((name, i) => fs.utimesSync(nodePath.join(fx.dir, name), now - 1000 - i, now - 1000 - i));
      fs.utimesSync(nodePath.join(fx.dir, names[123]!), now, now);
      expect((await grep({ pattern: 'needle', head_limit: 3 })).split('\n')).toEqual([
        names[123],
        names[0],
        names[1],
        'Showing files 1-3 of 400. Use offset=3 to see more.',
      ]);
      expect((await grep({ pattern: 'needle', output_mode: 'count_matches', head_limit: 3 })).split('\n')).toEqual([
        // 134 files with 1 match, 133 with 2, 133 with 3.
        'Found 799 occurrences in 400 files.',
        `${names[0]}:1`,
        `${names[1]}:2`,
        `${names[2]}:3`,
        'Showing files 1-3 of 400. Use offset=3 to see more.',
      ]);
    });

    test('a file an ignore file leaves out is never on the page, even where a glob lets rg report it', async () => {
      // rg lists a.log (its -g whitelists it over .gitignore); it is left out before the page is chosen.
      writeFiles(fx.dir, { '.gitignore': 'a.log\n', 'a.log': 'needle a\n', 'b.log': 'needle b\n', 'c.log': 'needle c\n' });
      expect((await grep({ pattern: 'needle', output_mode: 'content', glob: '*.log', head_limit: 1 })).split('\n')).toEqual([
        'b.log:1:needle b',
        'Showing matching lines 1-1 of 2 in 2 files. Use offset=1 to see more.',
      ]);
    });

    test('a file with more matching lines than a page can show keeps only those it can: its count is exact and no cap is hit', async () => {
      await fx.app.dispose();
      // 10,000 matching lines are about 110 KB of lines (searched in windows), far past this cap: kept whole, they would stop the search.
      open({ grep: { maxOutputBytes: 2000 } });
      writeFiles(fx.dir, { 'many.txt': Array.from({ length: 10_000 }, (_, i) => `needle ${i + 1}`).join('\n') + '\n', 'z.txt': 'needle z\n' });
      // Lines 4 and 5 are matches past the page, shown as the context of lines 2 and 3.
      expect((await grep({ pattern: 'needle', output_mode: 'content', head_limit: 3, '-A': 2 })).split('\n')).toEqual([
        'many.txt:1:needle 1',
        'many.txt:2:needle 2',
        'many.txt:3:needle 3',
        'many.txt-4-needle 4',
        'many.txt-5-needle 5',
        'Showing matching lines 1-3 of 10,001 in 2 files. Use offset=3 to see more.',
      ]);
      expect((await grep({ pattern: 'needle', output_mode: 'content', offset: 2, head_limit: 2, '-B': 1 })).split('\n')).toEqual([
        'many.txt-2-needle 2',
        'many.txt:3:needle 3',
        'many.txt:4:needle 4',
        'Showing matching lines 3-4 of 10,001 in 2 files. Use offset=4 to see more.',
      ]);
    });

    test('with head_limit 0, a file keeps lines up to the cap on collected output, and the search stops there', async () => {
      await fx.app.dispose();
      open({ grep: { maxOutputBytes: 2000 } });
      writeFiles(fx.dir, { 'many.txt': Array.from({ length: 5000 }, (_, i) => `needle ${i + 1}`).join('\n') + '\n' });
      const rows = (await grep({ pattern: 'needle', output_mode: 'content', head_limit: 0 })).split('\n');
      // Lines are kept while their text is under 2,000 characters: 9 of 8, 90 of 9 and 112 of 10.
      expect(rows).toEqual([
        'Grep stopped after collecting 2.0 KB of matches; the results below are partial and the totals are lower bounds. Narrow the pattern or path, or use output_mode "files_with_matches" or "count_matches".',
        ...Array.from({ length: 211 }, (_, i) => `many.txt:${i + 1}:needle ${i + 1}`),
      ]);
    });

    test('head_limit 0 shows a file of 200,000 matching lines whole (more rows than a call takes arguments)', async () => {
      writeFiles(fx.dir, { 'x.txt': 'x\n'.repeat(200_000) });
      const rows = (await grep({ pattern: 'x', output_mode: 'content', head_limit: 0 })).split('\n');
      expect(rows).toHaveLength(200_000);
      expect([rows[0], rows[199_999]]).toEqual(['x.txt:1:x', 'x.txt:200000:x']);
    });

    test('concurrent calls get their own results', async () => {
      writeFiles(fx.dir, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, `alpha ${i}\nbeta ${i}\n`])));
      const [alpha, beta] = await Promise.all([
        grep({ pattern: 'alpha', output_mode: 'count_matches' }),
        grep({ pattern: 'beta \\d$', output_mode: 'count_matches', glob: 'f0*' }),
      ]);
      expect(alpha.split('\n')[0]).toBe('Found 60 occurrences in 60 files.');
      expect(beta.split('\n')).toEqual(['Found 10 occurrences in 10 files.', ...Array.from({ length: 10 }, (_, i) => `f0${i}.txt:1`)]);
    });

    test('an aborted call reports it', async () => {
      writeFiles(fx.dir, { 'a.txt': 'needle\n' });
      const controller = new AbortController();
      controller.abort();
      const result = await callTool(fx.agent, 'Grep', { pattern: 'needle' }, controller.signal);
      expect(result).toEqual({ output: 'Grep was aborted before it finished.', isError: true });
    });
  });
});

describe('Grep on a file larger than the builtin engine reads at once', () => {
  const fx = useAgent({ builtins: true });

  test('a large content result (many pipe chunks) is identical with both engines', async () => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 200; f++) {
      files[`d${f % 7}/file${String(f).padStart(3, '0')}.txt`] = Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? `hit ${f}:${i} ` : `ctx ${i} `).padEnd(100, 'é')).join('\n') + '\n';
    }
    writeFiles(fx.dir, files);
    const outputs: string[] = [];
    for (const engine of ENGINES) {
      fx.open({ config: { grep: { engine } } });
      outputs.push(text(await callTool(fx.agent, 'Grep', { pattern: '^hit', output_mode: 'content', '-A': 1, head_limit: 0 })));
      outputs.push(text(await callTool(fx.agent, 'Grep', { pattern: '^hit', output_mode: 'content', offset: 6000, head_limit: 3 })));
      await fx.app.dispose();
    }
    expect(outputs[2]).toBe(outputs[0]);
    expect(outputs[3]).toBe(outputs[1]);
    expect(outputs[0]!.split('\n').filter((l) => /^d\d\/file\d{3}\.txt:\d+:hit/.test(l))).toHaveLength(200 * 34);
    expect(outputs[1]!.split('\n')).toEqual([
      // Files in path order: d0 … d5 hold 172 files (5,848 matches), then d6/file006, 013, 020, 027 (136 more).
      `d6/file034.txt:49:${'hit 34:48 '.padEnd(100, 'é')}`,
      `d6/file034.txt:52:${'hit 34:51 '.padEnd(100, 'é')}`,
      `d6/file034.txt:55:${'hit 34:54 '.padEnd(100, 'é')}`,
      'Showing matching lines 6,001-6,003 of 6,800 in 200 files. Use offset=6003 to see more.',
    ]);
  });

  test('files around the 1 MiB read buffer (read to their end without a stat first) are searched to their last byte', async () => {
    // The builtin engine reads a file into its 1 MiB buffer until the file ends; one that fills
    // it is read on in windows. The match is the last bytes (no final newline): any byte left unread loses it.
    const MiB = 1024 * 1024;
    const body = (size: number): string => `${'x'.repeat(99)}\n`.repeat(Math.ceil(size / 100)).slice(0, size - '\nneedle!'.length) + '\nneedle!';
    writeFiles(fx.dir, { 'under.txt': body(MiB - 1), 'exact.txt': body(MiB), 'over.txt': body(MiB + 1), 'empty.txt': '', 'tiny.txt': 'needle!' });
    const outputs: string[] = [];
    for (const engine of ENGINES) {
      fx.open({ config: { grep: { engine } } });
      outputs.push(text(await callTool(fx.agent, 'Grep', { pattern: '^needle!$', output_mode: 'count_matches' })));
      await fx.app.dispose();
    }
    expect(outputs[1]).toBe(outputs[0]);
    expect(outputs[0]!.split('\n').slice(1).sort()).toEqual(['exact.txt:1', 'over.txt:1', 'tiny.txt:1', 'under.txt:1']);
  });

  test('a line longer than the read buffer, a byte-order mark, UTF-16 and a late NUL in big files: both engines agree', async () => {
    const longLine = 'x'.repeat(2_500_000) + ' needle at the end';
    // Over the 1 MiB read buffer, so its first pass refills the buffer before the second looks at the mark.
    const bomText = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i % 4_999 === 0 ? `needle ${i}` : `line ${i}`.padEnd(60, '.'))).join('\n') + '\n')]);
    const smallBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle small\n' + 'x'.repeat(100_000) + '\n')]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i === 7_777 ? 'needle é' : `ligne ${i} é`)).join('\n') + '\n', 'utf16le')]);
    const lateNul = Buffer.concat([Buffer.from('needle first\n'), Buffer.alloc(3_000_000, 'filler line\n'), Buffer.from([0]), Buffer.from('\n')]);
    writeFiles(fx.dir, { 'long.txt': `needle before\n${longLine}\nneedle after\n`, 'bom.txt': bomText, 'small-bom.txt': smallBom, 'utf16.txt': utf16, 'late-nul.txt': lateNul });
    const outputs: string[][] = [];
    for (const engine of ENGINES) {
      fx.open({ config: { grep: { engine } } });
      outputs.push([
        text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'content', '-C': 1, head_limit: 0 })),
        text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'count_matches' })),
        text(await callTool(fx.agent, 'Grep', { pattern: 'needle' })),
      ]);
      await fx.app.dispose();
    }
    expect(outputs[1]).toEqual(outputs[0]);
    const [content, counts] = outputs[0]!;
    expect(counts!.split('\n').sort()).toEqual(['Found 10 occurrences in 4 files.', 'bom.txt:5', 'long.txt:3', 'small-bom.txt:1', 'utf16.txt:1'].sort());
    const rows = content!.split('\n');
    expect(rows.filter((r) => r.startsWith('small-bom.txt:'))).toEqual(['small-bom.txt:1:needle small']);
    expect(rows.filter((r) => r.startsWith('long.txt')).map((r) => r.slice(0, 40))).toEqual(['long.txt:1:needle before', `long.txt:2:${'x'.repeat(29)}`, 'long.txt:3:needle after']);
    expect(rows.filter((r) => r.startsWith('bom.txt:'))).toEqual(['bom.txt:1:needle 0', 'bom.txt:5000:needle 4999', 'bom.txt:9999:needle 9998', 'bom.txt:14998:needle 14997', 'bom.txt:19997:needle 19996']);
    expect(rows.filter((r) => r.startsWith('utf16.txt'))).toEqual(['utf16.txt-7777-ligne 7776 é', 'utf16.txt:7778:needle é', 'utf16.txt-7779-ligne 7778 é']);
  });

  test('matches and context at the borders of the 1 MiB windows agree with ripgrep', async () => {
    // 32-byte lines: each 1 MiB read of the builtin engine, and each of its windows (a power of
    // two below it), holds a whole number of lines, so lines 32,768 and 65,536 end windows.
    const needles = new Set([1, 32_767, 32_768, 32_769, 65_536, 65_537, 98_303, 98_306, 299_999, 300_000]);
    const lines: string[] = [];
    for (let i = 1; i <= 300_000; i++) lines.push((needles.has(i) ? `needle ${i}` : `filler ${i}`).padEnd(31, '.'));
    writeFiles(fx.dir, { 'big.txt': lines.join('\n') + '\n' });
    const outputs: string[] = [];
    for (const engine of ENGINES) {
      fx.open({ config: { grep: { engine } } });
      outputs.push(text(await callTool(fx.agent, 'Grep', { pattern: '^needle', output_mode: 'content', '-B': 2, '-A': 3, head_limit: 0 })));
      await fx.app.dispose();
    }
    expect(outputs[1]).toBe(outputs[0]);
    const rows = outputs[0]!.split('\n');
    expect(rows.filter((r) => /^big\.txt:\d+:/.test(r)).map((r) => Number(r.split(':')[1]))).toEqual([...needles]);
    const pad = (t: string) => t.padEnd(31, '.');
    expect(rows.slice(0, 5)).toEqual([`big.txt:1:${pad('needle 1')}`, `big.txt-2-${pad('filler 2')}`, `big.txt-3-${pad('filler 3')}`, `big.txt-4-${pad('filler 4')}`, '--']);
    expect(rows.slice(-3)).toEqual([`big.txt-299998-${pad('filler 299998')}`, `big.txt:299999:${pad('needle 299999')}`, `big.txt:300000:${pad('needle 300000')}`]);
    // Around the first border: 32,767 and 32,768 end the first window, 32,769 starts the second.
    const border = rows.indexOf(`big.txt:32767:${pad('needle 32767')}`);
    expect(rows.slice(border - 2, border + 6)).toEqual([
      `big.txt-32765-${pad('filler 32765')}`,
      `big.txt-32766-${pad('filler 32766')}`,
      `big.txt:32767:${pad('needle 32767')}`,
      `big.txt:32768:${pad('needle 32768')}`,
      `big.txt:32769:${pad('needle 32769')}`,
      `big.txt-32770-${pad('filler 32770')}`,
      `big.txt-32771-${pad('filler 32771')}`,
      `big.txt-32772-${pad('filler 32772')}`,
    ]);
  });

  test('both engines agree on matches, context and line numbers across 1 MiB windows', async () => {
    // ~9.5 MB: far above the builtin engine's 1 MiB read buffer, so it is read in windows.
    const lines: string[] = [];
    for (let i = 1; i <= 400_000; i++) lines.push(i % 65_537 === 0 ? `needle at ${i}` : `filler line number ${i}`);
    writeFiles(fx.dir, { 'big.log': lines.join('\n') + '\n' });
    const outputs: string[] = [];
    for (const engine of ENGINES) {
      fx.open({ config: { grep: { engine } } });
      outputs.push(text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'content', '-C': 2 })));
      outputs.push(text(await callTool(fx.agent, 'Grep', { pattern: 'NEEDLE AT \\d+', '-i': true, output_mode: 'count_matches' })));
      await fx.app.dispose();
    }
    expect(outputs[0]).toBe(outputs[2]);
    expect(outputs[1]).toBe(outputs[3]);
    expect(outputs[1]).toBe('Found 6 occurrences in 1 file.\nbig.log:6');
    expect(outputs[0]!.split('\n').slice(0, 6)).toEqual([
      'big.log-65535-filler line number 65535',
      'big.log-65536-filler line number 65536',
      'big.log:65537:needle at 65537',
      'big.log-65538-filler line number 65538',
      'big.log-65539-filler line number 65539',
      '--',
    ]);
  });

  test('both engines show the same pages deep into a big file of dense matches, with context', async () => {
    // ~2.6 MB, matches in runs (lines 7k+1 … 7k+3): pages keep only their own lines, read in windows.
    const lines = Array.from({ length: 120_000 }, (_, i) => (i % 7 < 3 ? `needle ${i + 1}` : `filler ${i + 1} ${'x'.repeat(i % 13)}`));
    writeFiles(fx.dir, { 'dense.log': lines.join('\n') + '\n' });
    const pages = [
      { offset: 0, head_limit: 4, '-A': 2 },
      { offset: 1000, head_limit: 5, '-C': 2 },
      { offset: 51_000, head_limit: 3, '-B': 3 },
      { offset: 51_420, head_limit: 10, '-A': 4 },
    ];
    const outputs: string[][] = [];
    for (const engine of ENGINES) {
      fx.open({ config: { grep: { engine } } });
      outputs.push(await Promise.all(pages.map(async (page) => text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'content', ...page })))));
      await fx.app.dispose();
    }
    expect(outputs[1]).toEqual(outputs[0]);
    expect(outputs[0]![0]!.split('\n')).toEqual([
      'dense.log:1:needle 1',
      'dense.log:2:needle 2',
      'dense.log:3:needle 3',
      'dense.log-4-filler 4 xxx',
      'dense.log-5-filler 5 xxxx',
      '--',
      'dense.log:8:needle 8',
      'dense.log-9-needle 9',
      'dense.log-10-needle 10',
      'Showing matching lines 1-4 of 51,429 in 1 file. Use offset=4 to see more.',
    ]);
  });
});

describe('Grep with the ripgrep engine: the folders above the search folder', () => {
  const fx = useAgent({ builtins: true });

  test('rg is told to skip them only when no ignore file there applies, with the same files either way', async () => {
    const rg = vscodeRipgrepBinary();
    if (!rg) throw new Error('@vscode/ripgrep has no binary here');
    const logged = argLoggingRg(fx.dir, rg);
    const cases = writeAncestorIgnoreLayouts(fx.dir, 'needle\n');
    for (const [dir, expected, skips] of cases) {
      const listed = async (engine: 'ripgrep' | 'builtin') => {
        fx.open({ config: { grep: { engine, rgPath: logged.path } }, cwd: nodePath.join(fx.dir, dir) });
        return text(await callTool(fx.agent, 'Grep', { pattern: 'needle', glob: '*.ts', head_limit: 0 })).split('\n').sort();
      };
      const files = await listed('ripgrep');
      expect({ dir, files, skipsParents: logged.lastArgs().includes('--no-ignore-parent') }).toEqual({ dir, files: expected, skipsParents: skips });
      expect({ dir, files: await listed('builtin') }).toEqual({ dir, files: expected });
    }
  });
});
