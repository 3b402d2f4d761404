import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { makeTempDir, removeDir } from '../helpers/tempDir';

const ROOT = nodePath.resolve(__dirname, '../..');
const EXAMPLE = nodePath.join(ROOT, 'examples', 'custom-tool');

let dir: string;
beforeAll(() => {
  dir = makeTempDir('toolhost-custom-tool-');
});
afterAll(() => removeDir(dir));

test('examples/custom-tool compiles as a separate ES-module package against the built toolhost, conforms and runs', () => {
  const pkg = nodePath.join(dir, 'pkg');
  fs.cpSync(EXAMPLE, pkg, { recursive: true, filter: (source) => !source.includes(`${nodePath.sep}node_modules`) && !source.includes(`${nodePath.sep}dist`) });
  // What `npm install` would give it: toolhost (this repository, resolved through its package.json exports) and the Node types.
  fs.mkdirSync(nodePath.join(pkg, 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(ROOT, nodePath.join(pkg, 'node_modules', 'toolhost'));
  fs.symlinkSync(nodePath.join(ROOT, 'node_modules', '@types', 'node'), nodePath.join(pkg, 'node_modules', '@types', 'node'));

  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', pkg], { encoding: 'utf8' });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
  fs.copyFileSync(nodePath.join(pkg, 'src', 'wordCount.md'), nodePath.join(pkg, 'dist', 'wordCount.md'));

  const workspace = nodePath.join(dir, 'workspace');
  fs.mkdirSync(workspace);
  const run = spawnSync(process.execPath, [nodePath.join(pkg, 'dist', 'main.js'), workspace], { encoding: 'utf8', cwd: pkg, timeout: 60_000 });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ problems: [], outcome: 'executed', output: '4 words', describes: true });
});
