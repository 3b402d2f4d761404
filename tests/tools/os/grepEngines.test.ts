import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Container } from 'inversify';
import { IGrepEngineService, IRipgrepLocatorService } from '../../../src/tools/os/grep/grepEngineSelection';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import { locateRipgrep, vscodeRipgrepBinary } from '../../../src/tools/os/grep/ripgrepLocator';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { writeFiles } from '../../helpers/tempDir';

const fx = useAgent({ builtins: true });

/** App overrides: the rg locator finds nothing, as on a machine without ripgrep. */
function withoutRipgrep(container: Container): void {
  container.rebind(IRipgrepLocatorService).toConstantValue({ locate: async () => ({ tried: ['@vscode/ripgrep is not installed for this platform', 'rg is not on PATH'] }) });
}

describe('Grep engine selection', () => {
  test('auto uses ripgrep when a binary is found', async () => {
    writeFiles(fx.dir, { 'a.txt': 'needle\n' });
    fx.open();
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle' }))).toBe('a.txt');
    expect(fx.app.get(IGrepEngineService).selections).toEqual({ ripgrep: 1, builtin: 0 });
  });

  test('auto falls back to the builtin engine when no rg binary exists, with the same result', async () => {
    writeFiles(fx.dir, { 'a.txt': 'needle\n' });
    fx.open({ appOverrides: withoutRipgrep });
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle', output_mode: 'content' }))).toBe('a.txt:1:needle');
    expect(fx.app.get(IGrepEngineService).selections).toEqual({ ripgrep: 0, builtin: 1 });
  });

  test('auto uses the builtin engine when the runtime cannot start processes', async () => {
    writeFiles(fx.dir, { 'a.txt': 'needle\n' });
    fx.open({ runtime: createLocalRuntime(['fs']) });
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle' }))).toBe('a.txt');
    expect(fx.app.get(IGrepEngineService).selections).toEqual({ ripgrep: 0, builtin: 1 });
  });

  test('an explicitly configured ripgrep engine without a binary is a clear error', async () => {
    fx.open({ config: { grep: { engine: 'ripgrep' } }, appOverrides: withoutRipgrep });
    const result = await callTool(fx.agent, 'Grep', { pattern: 'needle' });
    expect(result).toEqual({
      isError: true,
      output:
        'Grep is configured to use ripgrep (grep.engine = "ripgrep"), but no rg binary was found: @vscode/ripgrep is not installed for this platform; rg is not on PATH. ' +
        'Install ripgrep (e.g. npm install @vscode/ripgrep, or the ripgrep package of your system), set grep.rgPath, or set grep.engine to "auto" or "builtin".',
    });
    const noProcess = fx.app.createAgent({ cwd: fx.dir, runtime: createLocalRuntime(['fs']) });
    expect(text(await callTool(noProcess, 'Grep', { pattern: 'needle' }))).toBe(
      'Grep is configured to use ripgrep (grep.engine = "ripgrep"), but this runtime cannot start processes. Set grep.engine to "auto" or "builtin".',
    );
  });

  test('grep.rgPath is used first: a wrapper script proves it ran', async () => {
    const real = vscodeRipgrepBinary()!;
    const marker = nodePath.join(fx.dir, 'wrapper-ran');
    const wrapper = nodePath.join(fx.dir, 'bin', 'my-rg');
    writeFiles(fx.dir, { 'bin/my-rg': `#!/bin/sh\necho ran > '${marker}'\nexec '${real}' "$@"\n`, 'src/a.txt': 'needle\n' });
    fs.chmodSync(wrapper, 0o755);
    fx.open({ config: { grep: { engine: 'ripgrep', rgPath: wrapper } }, cwd: nodePath.join(fx.dir, 'src') });
    expect(text(await callTool(fx.agent, 'Grep', { pattern: 'needle' }))).toBe('a.txt');
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
  });

  test('a changed grep.engine takes effect on the next call', async () => {
    writeFiles(fx.dir, { 'a.txt': 'needle\n' });
    fx.open({ config: { grep: { engine: 'builtin' } } });
    await callTool(fx.agent, 'Grep', { pattern: 'needle' });
    fx.app.config.update({ grep: { engine: 'ripgrep' } });
    await callTool(fx.agent, 'Grep', { pattern: 'needle' });
    expect(fx.app.get(IGrepEngineService).selections).toEqual({ ripgrep: 1, builtin: 1 });
  });

  test('disposing the App ends the builtin engine worker threads', async () => {
    writeFiles(fx.dir, { 'a.txt': 'needle\n' });
    fx.open({ config: { grep: { engine: 'builtin' } } });
    const exits: number[] = [];
    const original = Worker.prototype.terminate;
    const spy = jest.spyOn(Worker.prototype, 'terminate').mockImplementation(function (this: Worker) {
      exits.push(this.threadId);
      return original.call(this);
    });
    try {
      await callTool(fx.agent, 'Grep', { pattern: 'needle' });
      await fx.app.dispose();
      expect(exits).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('locating rg', () => {
  function executable(rel: string): string {
    const path = nodePath.join(fx.dir, rel);
    writeFiles(fx.dir, { [rel]: '#!/bin/sh\nexit 0\n' });
    fs.chmodSync(path, 0o755);
    return path;
  }

  test('grep.rgPath first, then @vscode/ripgrep, then rg on PATH', async () => {
    const configured = executable('conf/rg');
    const packaged = executable('pkg/rg');
    const onPath = executable('path2/rg');
    writeFiles(fx.dir, { 'path1/rg': 'not executable' });
    const envPath = [nodePath.join(fx.dir, 'path1'), nodePath.join(fx.dir, 'path2')].join(nodePath.delimiter);
    expect(await locateRipgrep({ configuredPath: configured, envPath, packageBinary: () => packaged })).toEqual({
      found: { path: configured, source: 'grep.rgPath' },
      tried: [],
    });
    expect(await locateRipgrep({ envPath, packageBinary: () => packaged })).toEqual({ found: { path: packaged, source: '@vscode/ripgrep' }, tried: [] });
    expect(await locateRipgrep({ configuredPath: nodePath.join(fx.dir, 'missing'), envPath, packageBinary: () => undefined })).toEqual({
      found: { path: onPath, source: 'PATH' },
      tried: [`grep.rgPath (${nodePath.join(fx.dir, 'missing')}) is not an executable file`, '@vscode/ripgrep is not installed for this platform'],
    });
    expect(await locateRipgrep({ envPath: nodePath.join(fx.dir, 'path1'), packageBinary: () => undefined })).toEqual({
      tried: ['@vscode/ripgrep is not installed for this platform', 'rg is not on PATH'],
    });
  });

  test('the @vscode/ripgrep binary of this install is found', () => {
    const binary = vscodeRipgrepBinary();
    expect(binary).toMatch(/@vscode\/ripgrep-[a-z0-9]+-[a-z0-9]+\/bin\/rg(\.exe)?$/);
    expect(fs.statSync(binary!).isFile()).toBe(true);
  });
});
