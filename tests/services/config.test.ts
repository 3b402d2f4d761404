import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../../src/scopes/appScope';
import { IConfigService } from '../../src/services/config/config';
import { ConfigError, loadConfigFile, loadConfigFor, parseConfig } from '../../src/services/config/configLoader';
import { useTempDir } from '../helpers/tempDir';

const dir = useTempDir();

function issuesOf(input: unknown): string[] {
  try {
    parseConfig(input, 'toolhost.json');
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('configuration', () => {
  test('defaults fill every section', () => {
    expect(parseConfig({})).toEqual({
      tools: { enabled: [], disabled: [] },
      profiles: {},
      read: { maxChars: 50_000, maxLines: 2_000, maxLineChars: 2_000, lineCountMaxBytes: 32 * 1024 * 1024 },
      approval: { allow: [], ask: [], deny: [] },
      toolResult: { maxChars: 50_000, maxRetainedChars: 10_000_000 },
      executor: { abortGraceMs: 2_000 },
      edit: { maxFileBytes: 128 * 1024 * 1024 },
      staleGuard: { enabled: true },
      bash: {
        defaultTimeoutS: 60,
        maxTimeoutS: 300,
        killGraceMs: 2_000,
        drainMs: 150,
        outputHeadChars: 30_000,
        outputTailChars: 18_000,
        outputFileMaxBytes: 256 * 1024 * 1024,
        stopLeftoverProcesses: true,
      },
      tasks: { maxRunning: 8, outputChars: 30_000, waitDefaultTimeoutS: 60, waitMaxTimeoutS: 600 },
      glob: { defaultLimit: 100, timeoutMs: 20_000 },
      grep: { engine: 'auto', timeoutMs: 20_000, maxOutputBytes: 10 * 1024 * 1024, headLimit: 250, maxLineChars: 500, workers: 2 },
      mcpServers: {},
    });
  });

  test.each<[string, unknown, string[]]>([
    ['a wrong type', { read: { maxChars: '10' } }, ['read.maxChars: expected number, received string']],
    ['an unknown top-level key', { toolz: {} }, ['toolz: unknown key (did you mean "tools"?)']],
    ['an unknown nested key with a suggestion', { read: { maxChar: 10_000 } }, ['read.maxChar: unknown key (did you mean "maxChars"?)']],
    ['an unknown key without a close match', { read: { colour: 1 } }, ['read.colour: unknown key (known keys: maxChars, maxLines, maxLineChars, lineCountMaxBytes)']],
    ['an array element', { tools: { enabled: ['Read', 3] } }, ['tools.enabled[1]: expected string, received number']],
    ['inside a profile', { profiles: { review: { tools: 'Read', allow: [] } } }, ['profiles.review.tools: expected array, received string', 'profiles.review.allow: unknown key (known keys: tools, disallowedTools)']],
    ['a bound', { read: { maxChars: 10 } }, ['read.maxChars: Too small: expected number to be >=1000']],
    ['not an object', [], [': expected object, received array']],
    ['a Bash default timeout above its maximum', { bash: { defaultTimeoutS: 400 } }, ['bash.defaultTimeoutS: defaultTimeoutS must not be larger than maxTimeoutS']],
    ['a task cap below 1', { tasks: { maxRunning: 0 } }, ['tasks.maxRunning: Too small: expected number to be >=1']],
  ])('%s names the key path', (_name, input, expected) => {
    expect(issuesOf(input)).toEqual(expected);
  });

  test('the error message lists every issue under the source', () => {
    expect(() => parseConfig({ read: { maxChars: 'x' }, bogus: 1 }, '/p/toolhost.json')).toThrow(
      'Invalid configuration in /p/toolhost.json:\n  - read.maxChars: expected number, received string\n  - bogus: unknown key (known keys: $schema, tools, profile, profiles, read, approval, toolResult, executor, edit, staleGuard, bash, tasks, glob, grep, mcpServers)',
    );
  });

  test('files: toolhost.json in the working directory, or an explicit file', () => {
    fs.writeFileSync(nodePath.join(dir.path, 'toolhost.json'), JSON.stringify({ read: { maxLines: 10 } }));
    fs.writeFileSync(nodePath.join(dir.path, 'other.json'), JSON.stringify({ read: { maxLines: 20 } }));
    expect(loadConfigFor(dir.path).config.read.maxLines).toBe(10);
    expect(loadConfigFor(dir.path, 'other.json')).toMatchObject({ config: { read: { maxLines: 20 } }, file: nodePath.join(dir.path, 'other.json') });
    fs.rmSync(nodePath.join(dir.path, 'toolhost.json'));
    expect(loadConfigFor(dir.path)).toEqual({ config: parseConfig({}) });
  });

  test('a missing explicit file and invalid JSON are errors that name the file', () => {
    expect(() => loadConfigFile(nodePath.join(dir.path, 'nope.json'))).toThrow(`Invalid configuration in ${nodePath.join(dir.path, 'nope.json')}:\n  - (root): file not found`);
    fs.writeFileSync(nodePath.join(dir.path, 'bad.json'), '{"read": {,}}');
    expect(() => loadConfigFile(nodePath.join(dir.path, 'bad.json'))).toThrow(/- \(root\): not valid JSON: .*position 10/);
  });

  test('a rejected update keeps the previous configuration and announces nothing', async () => {
    const app = createApp({ features: [], config: { read: { maxLines: 5 } } });
    const service = app.get(IConfigService);
    let announced = 0;
    service.onDidChange(() => announced++);
    expect(() => service.update({ read: { maxLines: -1 } as never })).toThrow(ConfigError);
    expect(service.config.read.maxLines).toBe(5);
    expect(announced).toBe(0);
    service.update({ read: { maxLines: 7 } });
    expect(service.config.read.maxLines).toBe(7);
    expect(announced).toBe(1);
    await app.dispose();
  });
});
