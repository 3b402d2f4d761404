import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Worker } from 'node:worker_threads';
import { createApp } from '../../../src/scopes/appScope';
import type { AppConfigInput } from '../../../src/scopes/appScope';
import { IGrepEngineService, IRipgrepLocatorService } from '../../../src/tools/os/grep/grepEngineSelection';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import { builtinFeatures } from '../../../src/scopes/builtinFeatures';
import { locateRipgrep, vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';
import { callTool, text } from '../../helpers/agentHarness';
import { useTempDir, writeFiles } from '../../helpers/tempDir';

const dir = useTempDir();

/** An App whose rg locator finds nothing, as on a machine without ripgrep. */
function appWithoutRipgrep(config: AppConfigInput) {
  return createApp({
    features: builtinFeatures(),
    config,
    overrides: (container) => {
      container.rebind(IRipgrepLocatorService).toConstantValue({ locate: async () => ({ tried: ['@vscode/ripgrep is not installed for this platform', 'rg is not on PATH'] }) });
    },
  });
}

describe('Grep engine selection', () => {
  test('auto uses ripgrep when a binary is found', async () => {
    writeFiles(dir.path, { 'a.txt': 'needle\n' });
    const app = createApp({ features: builtinFeatures() });
    const agent = app.createAgent({ cwd: dir.path });
    expect(text(await callTool(agent, 'Grep', { pattern: 'needle' }))).toBe('a.txt');
    expect(app.get(IGrepEngineService).selections).toEqual({ ripgrep: 1, builtin: 0 });
    await app.dispose();
  });

  test('auto falls back to the builtin engine when no rg binary exists, with the same result', async () => {
    writeFiles(dir.path, { 'a.txt': 'needle\n' });
    const app = appWithoutRipgrep({});
    const agent = app.createAgent({ cwd: dir.path });
    expect(text(await callTool(agent, 'Grep', { pattern: 'needle', output_mode: 'content' }))).toBe('a.txt:1:needle');
    expect(app.get(IGrepEngineService).selections).toEqual({ ripgrep: 0, builtin: 1 });
    await app.dispose();
  });

  test('auto uses the builtin engine when the runtime cannot start processes', async () => {
    writeFiles(dir.path, { 'a.txt': 'needle\n' });
    const app = createApp({ features: builtinFeatures() });
    const agent = app.createAgent({ cwd: dir.path, runtime: createLocalRuntime(['fs']) });
    expect(text(await callTool(agent, 'Grep', { pattern: 'needle' }))).toBe('a.txt');
    expect(app.get(IGrepEngineService).selections).toEqual({ ripgrep: 0, builtin: 1 });
    await app.dispose();
  });

  test('an explicitly configured ripgrep engine without a binary is a clear error', async () => {
    const app = appWithoutRipgrep({ grep: { engine: 'ripgrep' } });
    const agent = app.createAgent({ cwd: dir.path });
    const result = await callTool(agent, 'Grep', { pattern: 'needle' });
    expect(result).toEqual({
      isError: true,
      output:
        'Grep is configured to use ripgrep (grep.engine = "ripgrep"), but no rg binary was found: @vscode/ripgrep is not installed for this platform; rg is not on PATH. ' +
        'Install ripgrep (e.g. npm install @vscode/ripgrep, or the ripgrep package of your system), set grep.rgPath, or set grep.engine to "auto" or "builtin".',
    });
    const noProcess = app.createAgent({ cwd: dir.path, runtime: createLocalRuntime(['fs']) });
    expect(text(await callTool(noProcess, 'Grep', { pattern: 'needle' }))).toBe(
      'Grep is configured to use ripgrep (grep.engine = "ripgrep"), but this runtime cannot start processes. Set grep.engine to "auto" or "builtin".',
    );
    await app.dispose();
  });

  test('grep.rgPath is used first: a wrapper script proves it ran', async () => {
    const real = vscodeRipgrepBinary()!;
    const marker = nodePath.join(dir.path, 'wrapper-ran');
    const wrapper = nodePath.join(dir.path, 'bin', 'my-rg');
    writeFiles(dir.path, { 'bin/my-rg': `#!/bin/sh\necho ran > '${marker}'\nexec '${real}' "$@"\n`, 'src/a.txt': 'needle\n' });
    fs.chmodSync(wrapper, 0o755);
    const app = createApp({ features: builtinFeatures(), config: { grep: { engine: 'ripgrep', rgPath: wrapper } } });
    const agent = app.createAgent({ cwd: nodePath.join(dir.path, 'src') });
    expect(text(await callTool(agent, 'Grep', { pattern: 'needle' }))).toBe('a.txt');
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    await app.dispose();
  });

  test('a changed grep.engine takes effect on the next call', async () => {
    writeFiles(dir.path, { 'a.txt': 'needle\n' });
    const app = createApp({ features: builtinFeatures(), config: { grep: { engine: 'builtin' } } });
    const agent = app.createAgent({ cwd: dir.path });
    await callTool(agent, 'Grep', { pattern: 'needle' });
    app.config.update({ grep: { engine: 'ripgrep' } });
    await callTool(agent, 'Grep', { pattern: 'needle' });
    expect(app.get(IGrepEngineService).selections).toEqual({ ripgrep: 1, builtin: 1 });
    await app.dispose();
  });

  test('disposing the App ends the builtin engine worker threads', async () => {
    writeFiles(dir.path, { 'a.txt': 'needle\n' });
    const app = createApp({ features: builtinFeatures(), config: { grep: { engine: 'builtin' } } });
    const agent = app.createAgent({ cwd: dir.path });
    const exits: number[] = [];
    const original = Worker.prototype.terminate;
    const spy = jest.spyOn(Worker.prototype, 'terminate').mockImplementation(function (this: Worker) {
      exits.push(this.threadId);
      return original.call(this);
    });
    try {
      await callTool(agent, 'Grep', { pattern: 'needle' });
      await app.dispose();
      expect(exits).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('locating rg', () => {
  function executable(rel: string): string {
    const path = nodePath.join(dir.path, rel);
    writeFiles(dir.path, { [rel]: '#!/bin/sh\nexit 0\n' });
    fs.chmodSync(path, 0o755);
    return path;
  }

  test('grep.rgPath first, then @vscode/ripgrep, then rg on PATH', async () => {
    const configured = executable('conf/rg');
    const packaged = executable('pkg/rg');
    const onPath = executable('path2/rg');
    writeFiles(dir.path, { 'path1/rg': 'not executable' });
    const envPath = [nodePath.join(dir.path, 'path1'), nodePath.join(dir.path, 'path2')].join(nodePath.delimiter);
    expect(await locateRipgrep({ configuredPath: configured, envPath, packageBinary: () => packaged })).toEqual({
      found: { path: configured, source: 'grep.rgPath' },
      tried: [],
    });
    expect(await locateRipgrep({ envPath, packageBinary: () => packaged })).toEqual({ found: { path: packaged, source: '@vscode/ripgrep' }, tried: [] });
    expect(await locateRipgrep({ configuredPath: nodePath.join(dir.path, 'missing'), envPath, packageBinary: () => undefined })).toEqual({
      found: { path: onPath, source: 'PATH' },
      tried: [`grep.rgPath (${nodePath.join(dir.path, 'missing')}) is not an executable file`, '@vscode/ripgrep is not installed for this platform'],
    });
    expect(await locateRipgrep({ envPath: nodePath.join(dir.path, 'path1'), packageBinary: () => undefined })).toEqual({
      tried: ['@vscode/ripgrep is not installed for this platform', 'rg is not on PATH'],
    });
  });

  test('the @vscode/ripgrep binary of this install is found', () => {
    const binary = vscodeRipgrepBinary();
    expect(binary).toMatch(/@vscode\/ripgrep-[a-z0-9]+-[a-z0-9]+\/bin\/rg(\.exe)?$/);
    expect(fs.statSync(binary!).isFile()).toBe(true);
  });
});
