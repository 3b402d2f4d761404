import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';

let home: string | undefined;

/**
 * An empty home directory for this test process (created on first use, removed at exit): the
 * harness's agents and the spawned CLI get it instead of the real `~`, so skills or settings in a
 * developer's ~/.claude or ~/.agents never change a test's tool lists. A test that means a home
 * passes its own (`homeDir`, or `env: { HOME }`).
 */
export function testHome(): string {
  if (home === undefined || !fs.existsSync(home)) {
    const made = fs.realpathSync.native(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-test-home-')));
    home = made;
    process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
  }
  return home;
}
