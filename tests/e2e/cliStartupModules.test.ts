import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { promisify } from 'node:util';
import { runCliProcess } from '../helpers/cliProcess';
import { useTempDir } from '../helpers/tempDir';

/**
 * Start-up loads only the Node built-ins it uses (src/base/nodeBuiltins.ts): http, zlib, dns,
 * worker_threads, readline and child_process are required by the calls that need them, not when
 * the library or the CLI loads.
 */
describe('Node built-ins loaded at start-up', () => {
  const dir = useTempDir('toolhost-startup-modules-');
  const LAZY = ['http', 'zlib', 'dns', 'worker_threads', 'readline', 'child_process'];
  const loaded = (list: string) => LAZY.filter((name) => list.split('\n').includes(`NativeModule ${name}`));

  test('toolhost tools --json loads none of them but child_process (commander requires it)', async () => {
    // A preload that prints, at exit, every built-in the process loaded.
    const probe = nodePath.join(dir.path, 'probe.js');
    fs.writeFileSync(probe, "process.on('exit', () => process.stderr.write(`MODULES\\n${process.moduleLoadList.join('\\n')}\\n`));\n");
    const run = await runCliProcess(['tools', '--json'], { cwd: dir.path, env: { XDG_CACHE_HOME: nodePath.join(dir.path, 'cache'), NODE_OPTIONS: `--require ${probe}` } });
    expect(run.code).toBe(0);
    const list = run.stderr.slice(run.stderr.indexOf('MODULES\n'));
    // The probe worked: the built-ins every start-up needs are listed.
    expect(list.split('\n')).toEqual(expect.arrayContaining(['NativeModule fs', 'NativeModule vm']));
    expect(loaded(list)).toEqual(['child_process']);
  });

  test('the library, with an App and an agent, loads none of them', async () => {
    const script = [
      `const { createApp } = require(${JSON.stringify(nodePath.resolve(__dirname, '../../dist/index.js'))});`,
      `const app = createApp();`,
      `app.createAgent({ cwd: ${JSON.stringify(dir.path)} });`,
      `process.stdout.write(process.moduleLoadList.join('\\n'));`,
      `void app.dispose();`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: dir.path, env: { ...process.env, HOME: dir.path } });
    expect(stdout.split('\n')).toContain('NativeModule fs');
    expect(loaded(stdout)).toEqual([]);
  });
});
