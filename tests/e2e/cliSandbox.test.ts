import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { runCliProcess } from '../helpers/cliProcess';
import { describeWithBwrap } from '../helpers/installed';
import { makeTempDir, removeDir, useTempDir, writeFiles } from '../helpers/tempDir';

/** `toolhost run --sandbox`: Bash under bubblewrap from the CLI, and what it says when bubblewrap cannot run. */

const dir = useTempDir();

describeWithBwrap('toolhost --sandbox with bubblewrap', () => {
  test('--sandbox bwrap runs Bash sandboxed: a write outside the workspace fails, one inside lands', async () => {
    const outside = makeTempDir('toolhost-outside-');
    try {
      writeFiles(dir.path, {
        'batch.json': JSON.stringify([
          { id: 'out', name: 'Bash', arguments: { command: `echo x > ${outside}/escaped.txt` } },
          { id: 'in', name: 'Bash', arguments: { command: 'echo y > inside.txt && echo $$' } },
        ]),
      });
      const run = await runCliProcess(['run', '--yes', '--json', '--sandbox', 'bwrap', 'batch.json'], { cwd: dir.path });
      expect(run.code).toBe(0);
      const results = (JSON.parse(run.stdout) as { results: Array<{ id: string; output: string }> }).results;
      expect(results.find((r) => r.id === 'out')!.output).toContain('Read-only file system');
      expect(results.find((r) => r.id === 'in')!.output).toBe('2\n');
      expect(fs.existsSync(nodePath.join(outside, 'escaped.txt'))).toBe(false);
      expect(fs.readFileSync(nodePath.join(dir.path, 'inside.txt'), 'utf8')).toBe('y\n');
    } finally {
      removeDir(outside);
    }
  });

});

describe('toolhost --sandbox', () => {
  test('when bubblewrap is missing it says so and how to fix it, exit code 2, and runs nothing', async () => {
    writeFiles(dir.path, {
      // Keeps the config's other sandbox keys; --sandbox sets the mode.
      'toolhost.json': JSON.stringify({ sandbox: { mode: 'none', bwrapPath: nodePath.join(dir.path, 'missing', 'bwrap') } }),
      'batch.json': JSON.stringify([{ name: 'Bash', arguments: { command: 'echo ran > ran.txt' } }]),
    });
    const run = await runCliProcess(['run', '--yes', '--sandbox', 'bwrap', 'batch.json'], { cwd: dir.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`The sandbox needs bubblewrap, but "${dir.path}/missing/bwrap" was not found.`);
    expect(run.stderr).toContain('apt-get install bubblewrap');
    expect(run.stderr).toContain('or run without the sandbox (no --sandbox flag; config "sandbox": "none")');
    expect(run.stdout).toBe('');
    expect(fs.existsSync(nodePath.join(dir.path, 'ran.txt'))).toBe(false);
  });

  test('an unknown mode is a usage error that lists the modes', async () => {
    const run = await runCliProcess(['tools', '--sandbox', 'docker'], { cwd: dir.path });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--sandbox: unknown mode "docker"; the modes are none, bwrap.');
  });
});
