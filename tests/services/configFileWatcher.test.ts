import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../../src/scopes/appScope';
import type { IConfigService } from '../../src/services/config/config';
import { watchConfigFile } from '../../src/services/config/configFileWatcher';
import { readConfigFor } from '../../src/services/config/configLoader';
import { readConfig } from '../../src/tools/os/osConfig';
import { createOsToolsFeature } from '../../src/tools/os/osFeature';
import type { IDisposable } from '../../src/base/lifecycle';
import { useTempDir, writeFiles } from '../helpers/tempDir';
import { waitFor } from '../helpers/async';

const tmp = useTempDir('toolhost-watch-');
let watcher: IDisposable | undefined;
afterEach(() => {
  watcher?.dispose();
  watcher = undefined;
});

function start(explicitFile?: string): { config: IConfigService; logs: string[] } {
  const { input } = readConfigFor(tmp.path, explicitFile);
  const config = createApp({ features: [createOsToolsFeature()], config: input as never }).config;
  const logs: string[] = [];
  watcher = watchConfigFile({ cwd: tmp.path, explicitFile, config, log: (m) => logs.push(m), debounceMs: 20 });
  return { config, logs };
}

const file = () => nodePath.join(tmp.path, 'toolhost.json');

describe('watchConfigFile', () => {
  test('a valid edit of toolhost.json replaces the configuration', async () => {
    writeFiles(tmp.path, { 'toolhost.json': JSON.stringify({ tools: { disabled: ['Read'] } }) });
    const { config, logs } = start();
    fs.writeFileSync(file(), JSON.stringify({ tools: { disabled: ['Write'] } }));
    await waitFor(() => config.config.tools.disabled[0] === 'Write', { what: 'the reload', timeoutMs: 10_000 });
    expect(logs).toEqual([`reloaded ${file()}`]);
  });

  test('a toolhost.json created after the start is picked up', async () => {
    const { config } = start();
    writeFiles(tmp.path, { 'toolhost.json': JSON.stringify({ read: { maxLines: 10 } }) });
    await waitFor(() => config.section(readConfig).maxLines === 10, { what: 'the reload', timeoutMs: 10_000 });
  });

  test('an editor that saves by renaming a new file into place is seen', async () => {
    writeFiles(tmp.path, { 'toolhost.json': '{}' });
    const { config } = start();
    writeFiles(tmp.path, { 'toolhost.json.tmp': JSON.stringify({ approval: { allow: ['Read'] } }) });
    fs.renameSync(nodePath.join(tmp.path, 'toolhost.json.tmp'), file());
    await waitFor(() => config.config.approval.allow.length === 1, { what: 'the reload', timeoutMs: 10_000 });
  });

  test('an invalid edit is reported and the last valid configuration stays', async () => {
    writeFiles(tmp.path, { 'toolhost.json': JSON.stringify({ tools: { disabled: ['Read'] } }) });
    const { config, logs } = start();
    fs.writeFileSync(file(), JSON.stringify({ tools: { disabled: 'Write' } }));
    await waitFor(() => logs.length === 1, { what: 'the report', timeoutMs: 10_000 });
    expect(logs[0]).toBe(
      `Invalid configuration in ${file()}:\n  - tools.disabled: expected array, received string\nThe change was ignored; the last valid configuration stays in effect.`,
    );
    expect(config.config.tools.disabled).toEqual(['Read']);
    fs.writeFileSync(file(), '{"tools": ');
    await waitFor(() => logs.length === 2, { what: 'the second report', timeoutMs: 10_000 });
    expect(logs[1]).toMatch(/^Invalid configuration in .*toolhost\.json:\n {2}- \(root\): not valid JSON: /);
    expect(config.config.tools.disabled).toEqual(['Read']);
  });

  test('removing toolhost.json means the defaults, as at startup', async () => {
    writeFiles(tmp.path, { 'toolhost.json': JSON.stringify({ tools: { disabled: ['Read'] } }) });
    const { config, logs } = start();
    fs.rmSync(file());
    await waitFor(() => config.config.tools.disabled.length === 0, { what: 'the defaults', timeoutMs: 10_000 });
    expect(logs).toEqual([`${file()} was removed; using the default configuration`]);
  });

  test('removing an explicit --config file keeps the configuration', async () => {
    writeFiles(tmp.path, { 'conf/mine.json': JSON.stringify({ tools: { disabled: ['Read'] } }), 'toolhost.json': '{}' });
    const explicit = nodePath.join(tmp.path, 'conf', 'mine.json');
    const { config, logs } = start(explicit);
    // toolhost.json in the working directory is not the file in use.
    fs.writeFileSync(file(), JSON.stringify({ tools: { disabled: ['Edit'] } }));
    fs.rmSync(explicit);
    await waitFor(() => logs.length === 1, { what: 'the report', timeoutMs: 10_000 });
    expect(logs).toEqual([`${explicit} was removed; keeping the current configuration`]);
    expect(config.config.tools.disabled).toEqual(['Read']);
  });

  test('after dispose, edits are not applied', async () => {
    writeFiles(tmp.path, { 'toolhost.json': '{}' });
    const { config, logs } = start();
    watcher!.dispose();
    fs.writeFileSync(file(), JSON.stringify({ tools: { disabled: ['Write'] } }));
    // A second watcher on the same file proves the event has been delivered by now.
    const seen: string[] = [];
    const probe = fs.watch(tmp.path, () => seen.push('event'));
    fs.writeFileSync(file(), JSON.stringify({ tools: { disabled: ['Edit'] } }));
    await waitFor(() => seen.length > 0, { what: 'the probe event', timeoutMs: 10_000 });
    probe.close();
    expect(config.config.tools.disabled).toEqual([]);
    expect(logs).toEqual([]);
  });
});
