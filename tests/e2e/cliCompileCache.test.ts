import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { CLI, runCliProcess } from '../helpers/cliProcess';
import { useTempDir } from '../helpers/tempDir';

/**
 * The launcher's V8 code cache (scripts/cliLauncher.js): one file per command in the user's cache
 * folder, private to the user, rewritten when V8 rejects it, never taken from a folder or file
 * others can write, and this install's caches of other bundles removed (another install's only
 * when a month old).
 */
describe('CLI code cache', () => {
  const dir = useTempDir('toolhost-cache-');

  const cacheDir = () => nodePath.join(dir.path, 'cache', 'toolhost');
  const caches = () => (fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()).sort() : []);
  /** A file in the cache folder, written `ageDays` ago. */
  const writeCache = (name: string, ageDays = 0) => {
    const file = nodePath.join(cacheDir(), name);
    fs.writeFileSync(file, 'old', { mode: 0o600 });
    const when = (Date.now() - ageDays * 24 * 60 * 60 * 1000) / 1000;
    fs.utimesSync(file, when, when);
  };
  const tools = (env: NodeJS.ProcessEnv = {}) => runCliProcess(['tools', '--json'], { cwd: dir.path, env: { XDG_CACHE_HOME: nodePath.join(dir.path, 'cache'), ...env } });

  test('each command gets its own private cache file, reused by the next run', async () => {
    const first = await tools();
    expect(first.code).toBe(0);
    expect(caches()).toEqual([expect.stringMatching(/^cli-[0-9a-f]{8}-[0-9a-f]{16}-tools\.v8cache$/)]);
    const file = nodePath.join(cacheDir(), caches()[0]!);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const written = fs.statSync(file).mtimeMs;

    const second = await tools();
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // Accepted, so not written again.
    expect(fs.statSync(file).mtimeMs).toBe(written);

    const help = await runCliProcess(['--help'], { cwd: dir.path, env: { XDG_CACHE_HOME: nodePath.join(dir.path, 'cache') } });
    expect(help.code).toBe(0);
    expect(caches()).toEqual([expect.stringMatching(/-other\.v8cache$/), expect.stringMatching(/-tools\.v8cache$/)]);
    // A mistyped command shares the "other" cache: no file per typo.
    expect((await runCliProcess(['tolls'], { cwd: dir.path, env: { XDG_CACHE_HOME: nodePath.join(dir.path, 'cache') } })).code).not.toBe(0);
    expect(caches()).toHaveLength(2);
  });

  test("run's cache is accepted by the next run: the young-generation hold is taken before the bundle is compiled", async () => {
    // A builtin Grep starts worker threads, which undo the hold until it is set again.
    fs.writeFileSync(nodePath.join(dir.path, 'a.txt'), 'needle\n');
    fs.writeFileSync(nodePath.join(dir.path, 'config.json'), JSON.stringify({ grep: { engine: 'builtin' } }));
    fs.writeFileSync(nodePath.join(dir.path, 'batch.json'), JSON.stringify([{ name: 'Grep', arguments: { pattern: 'needle', glob: '*.txt' } }]));
    const run = () => runCliProcess(['run', '--json', '--config', 'config.json', 'batch.json'], { cwd: dir.path, env: { XDG_CACHE_HOME: nodePath.join(dir.path, 'cache') } });
    const first = await run();
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).results[0].output).toBe('a.txt');
    expect(caches()).toEqual([expect.stringMatching(/-run\.v8cache$/)]);
    const file = nodePath.join(cacheDir(), caches()[0]!);
    const written = fs.statSync(file).mtimeMs;
    expect((await run()).code).toBe(0);
    // Rejected (compiled under other flags than it was written under), it would be written again.
    expect(fs.statSync(file).mtimeMs).toBe(written);
  });

  test('the cache read at start-up is not kept in memory once the bundle is compiled', async () => {
    expect((await tools()).code).toBe(0);
    const cacheBytes = fs.statSync(nodePath.join(cacheDir(), caches()[0]!)).size;
    // A preload that reports, at exit, the memory held by ArrayBuffers (a Buffer's bytes among them).
    const probe = nodePath.join(dir.path, 'probe.js');
    fs.writeFileSync(probe, "process.on('exit', () => process.stderr.write(`arrayBuffers=${process.memoryUsage().arrayBuffers}\\n`));\n");
    const run = await tools({ NODE_OPTIONS: `--require ${probe}` });
    expect(run.code).toBe(0);
    const held = Number(/arrayBuffers=(\d+)/.exec(run.stderr)?.[1]);
    expect(cacheBytes).toBeGreaterThan(1024 * 1024);
    // Kept, it would be all of the cache file's bytes.
    expect(held).toBeLessThan(cacheBytes / 4);
  });

  test('a bundle rewritten in place (same bytes and modification time, a new change time) gets a new cache; the old one is removed', async () => {
    expect((await tools()).code).toBe(0);
    const [before] = caches();
    // What a reinstall that keeps the size and npm's fixed mtime leaves: only the change time moves.
    const bundle = nodePath.join(nodePath.dirname(CLI), 'toolhost.bundle.js');
    const { atime, mtime } = fs.statSync(bundle);
    fs.utimesSync(bundle, atime, mtime);
    expect((await tools()).code).toBe(0);
    expect(caches()).toEqual([expect.stringMatching(/-tools\.v8cache$/)]);
    expect(caches()[0]).not.toBe(before);
  });

  test('a corrupt cache is rejected by V8, the command still works, and the cache is rewritten', async () => {
    expect((await tools()).code).toBe(0);
    const file = nodePath.join(cacheDir(), caches()[0]!);
    fs.writeFileSync(file, Buffer.alloc(4096, 7), { mode: 0o600 });
    const run = await tools();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expect.any(Array));
    expect(fs.readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  test("this install's caches of other bundles or Node versions are removed, other installs' only when a month old; unrelated files are left alone", async () => {
    expect((await tools()).code).toBe(0);
    const [own] = caches();
    const install = /^cli-([0-9a-f]{8})-/.exec(own!)![1]!;
    const other = install === 'aaaaaaaa' ? 'bbbbbbbb' : 'aaaaaaaa';
    fs.rmSync(nodePath.join(cacheDir(), own!));
    // This install, an earlier bundle; the naming of earlier versions; another install's, fresh and old.
    writeCache(`cli-${install}-0123456789abcdef-run.v8cache`);
    writeCache('cli-0123456789abcdef-run.v8cache');
    writeCache('cli-0123456789abcdef.v8cache');
    writeCache(`cli-${other}-0123456789abcdef-tools.v8cache`, 2);
    writeCache(`cli-${other}-fedcba9876543210-run.v8cache`, 31);
    writeCache('notes.txt');
    expect((await tools()).code).toBe(0);
    expect(caches()).toEqual([`cli-${other}-0123456789abcdef-tools.v8cache`, own, 'notes.txt'].sort());
  });

  test("other installs' caches beyond the eight most recently written are removed, however fresh", async () => {
    expect((await tools()).code).toBe(0);
    const [own] = caches();
    const install = /^cli-([0-9a-f]{8})-/.exec(own!)![1]!;
    fs.rmSync(nodePath.join(cacheDir(), own!));
    // Ten other installs (npx versions, checkouts), written 1 to 10 days ago.
    const others = Array.from({ length: 10 }, (_, i) => `cli-${(0xa0000000 + i).toString(16)}-0123456789abcdef-tools.v8cache`);
    expect(others.map((name) => name.slice(4, 12))).not.toContain(install);
    others.forEach((name, i) => writeCache(name, i + 1));
    expect((await tools()).code).toBe(0);
    expect(caches()).toEqual([...others.slice(0, 8), own].sort());
  });

  test('a cache folder others can write is not used: nothing is read from or written to it', async () => {
    fs.mkdirSync(cacheDir(), { recursive: true });
    fs.chmodSync(cacheDir(), 0o777);
    const run = await tools();
    expect(run.code).toBe(0);
    expect(caches()).toEqual([]);
  });

  test('a cache file others can write is ignored and replaced by a private one', async () => {
    expect((await tools()).code).toBe(0);
    const file = nodePath.join(cacheDir(), caches()[0]!);
    fs.writeFileSync(file, 'planted');
    fs.chmodSync(file, 0o666);
    const run = await tools();
    expect(run.code).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).not.toBe('planted');
  });

  test('TOOLHOST_NO_COMPILE_CACHE=1 turns it off', async () => {
    expect((await tools({ TOOLHOST_NO_COMPILE_CACHE: '1' })).code).toBe(0);
    expect(caches()).toEqual([]);
  });
});
