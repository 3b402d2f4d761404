import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { z } from 'zod';
import { Feature } from '../../src/di/feature';
import { ConfigSectionError, defineConfigSection } from '../../src/di/configSection';
import { configSchemaFor, createApp } from '../../src/scopes/appScope';
import { builtinFeatures } from '../../src/scopes/builtinFeatures';
import { IConfigService } from '../../src/services/config/config';
import { ConfigError, parseConfig, readConfigFile, readConfigFor } from '../../src/services/config/configLoader';
import { ConfigCompositionError } from '../../src/services/config/configSchema';
import { createOsToolsFeature } from '../../src/tools/os/osFeature';
import { grepConfig, readConfig } from '../../src/tools/os/osConfig';
import { mergeConfig } from '../../src/services/config/configService';
import { useTempDir } from '../helpers/tempDir';

const dir = useTempDir();
/** The root schema of an App with every builtin feature. */
const BUILTIN = configSchemaFor(builtinFeatures());

function issuesOf(input: unknown): string[] {
  try {
    parseConfig(input, 'toolhost.json', BUILTIN);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('configuration', () => {
  test('defaults fill every section', () => {
    expect(parseConfig({}, 'defaults', BUILTIN)).toEqual({
      tools: { enabled: [], disabled: [] },
      profiles: {},
      read: { maxChars: 50_000, maxLines: 2_000, maxLineChars: 2_000, lineCountMaxBytes: 32 * 1024 * 1024 },
      approval: { allow: [], ask: [], deny: [] },
      toolResult: { maxChars: 50_000, maxRetainedChars: 10_000_000 },
      executor: { abortGraceMs: 2_000, maxConcurrentCalls: 64 },
      sandbox: { mode: 'none', network: false, writable: [] },
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
      questions: { timeoutS: 600 },
      notify: { dedupeSeconds: 300, perMinute: 3 },
      plan: { autoApprove: false },
      cron: { wakeCheckMinutes: 10, allowSeconds: false },
      mcpServers: {},
      hooks: { PreToolUse: [], PostToolUse: [] },
      scale: { redis: { keyPrefix: 'toolhost:' }, jobs: { backgroundTasks: 'local', subagents: 'local', cron: 'local', outputMaxBytes: 1_048_576, lockDurationMs: 30_000, stalledIntervalMs: 30_000, keepEndedTasksS: 86_400 } },
      skills: { paths: [], listingChars: 8000 },
      media: {
        maxEdgePx: 2_000,
        maxEdgePxFull: 4_000,
        maxImageBytes: 3_932_160,
        maxFileBytes: 50 * 1024 * 1024,
        maxInputPixels: 100_000_000,
        decodeTimeoutMs: 15_000,
        pdfTimeoutMs: 20_000,
        pdfMaxChars: 30_000,
      },
      network: { allowPrivate: [], connectTimeoutS: 10, idleTimeoutS: 15, maxConnectionsPerHost: 4 },
      fetch: { maxChars: 100_000, defaultChars: 30_000, timeoutS: 30, maxBytes: 10 * 1024 * 1024, maxHtmlBytes: 3 * 1024 * 1024, convertTimeoutS: 20, allowDomains: [], upgradeHttp: false },
      webSearch: {
        timeoutS: 15,
        brave: { apiKeyEnv: 'BRAVE_API_KEY', baseUrl: 'https://api.search.brave.com' },
        tavily: { apiKeyEnv: 'TAVILY_API_KEY', baseUrl: 'https://api.tavily.com' },
        exa: { apiKeyEnv: 'EXA_API_KEY', baseUrl: 'https://api.exa.ai' },
        searxng: {},
        'duckduckgo-html': { baseUrl: 'https://html.duckduckgo.com' },
      },
      agent: { maxDepth: 1, timeoutS: 3_600, maxResultChars: 20_000, maxTurns: 50, profiles: {} },
      swarm: { maxItems: 64, maxConcurrency: 16, maxResultCharsPerItem: 4_000, rateLimitRetries: 3 },
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
    expect(() => parseConfig({ read: { maxChars: 'x' }, bogus: 1 }, '/p/toolhost.json', BUILTIN)).toThrow(
      'Invalid configuration in /p/toolhost.json:\n  - read.maxChars: expected number, received string\n  - bogus: unknown key (known keys: $schema, tools, profile, profiles, approval, toolResult, executor, sandbox, read, staleGuard, bash, glob, grep, edit, tasks, questions, notify, mcpServers, plan, cron, hooks, skills, media, network, fetch, webSearch, agent, subagentRunner, swarm, scale)',
    );
  });

  test('files: toolhost.json in the working directory, or an explicit file; the App validates them', () => {
    fs.writeFileSync(nodePath.join(dir.path, 'toolhost.json'), JSON.stringify({ read: { maxLines: 10 } }));
    fs.writeFileSync(nodePath.join(dir.path, 'other.json'), JSON.stringify({ read: { maxLines: 20 } }));
    expect(readConfigFor(dir.path)).toEqual({ input: { read: { maxLines: 10 } }, file: nodePath.join(dir.path, 'toolhost.json'), source: nodePath.join(dir.path, 'toolhost.json') });
    const other = readConfigFor(dir.path, 'other.json');
    expect(other).toMatchObject({ input: { read: { maxLines: 20 } }, file: nodePath.join(dir.path, 'other.json') });
    expect(createApp({ config: other.input as never }).config.section(readConfig).maxLines).toBe(20);
    fs.rmSync(nodePath.join(dir.path, 'toolhost.json'));
    expect(readConfigFor(dir.path)).toEqual({ input: {}, source: 'defaults' });
    fs.writeFileSync(nodePath.join(dir.path, 'bad-key.json'), JSON.stringify({ read: { maxLine: 1 } }));
    const bad = readConfigFor(dir.path, 'bad-key.json');
    expect(() => createApp({ config: bad.input as never, configSource: bad.source })).toThrow(
      `Invalid configuration in ${nodePath.join(dir.path, 'bad-key.json')}:\n  - read.maxLine: unknown key (did you mean "maxLines"?)`,
    );
  });

  test('a missing explicit file and invalid JSON are errors that name the file', () => {
    expect(() => readConfigFile(nodePath.join(dir.path, 'nope.json'))).toThrow(`Invalid configuration in ${nodePath.join(dir.path, 'nope.json')}:\n  - (root): file not found`);
    fs.writeFileSync(nodePath.join(dir.path, 'bad.json'), '{"read": {,}}');
    expect(() => readConfigFile(nodePath.join(dir.path, 'bad.json'))).toThrow(/- \(root\): not valid JSON: .*position 10/);
  });

  test('a rejected update keeps the previous configuration and announces nothing', async () => {
    const app = createApp({ features: [createOsToolsFeature()], config: { read: { maxLines: 5 } } });
    const service = app.get(IConfigService);
    let announced = 0;
    service.onDidChange(() => announced++);
    expect(() => service.update({ read: { maxLines: -1 } as never })).toThrow(ConfigError);
    expect(service.section(readConfig).maxLines).toBe(5);
    expect(announced).toBe(0);
    service.update({ read: { maxLines: 7 } });
    expect(service.section(readConfig).maxLines).toBe(7);
    expect(announced).toBe(1);
    await app.dispose();
  });
});

describe('config sections contributed by features', () => {
  const notes = defineConfigSection('notes', z.strictObject({ max: z.number().int().min(1).default(3) }).prefault({}));
  const notesFeature = () => new Feature('notes').contributeConfig(notes);

  test('the App validates a feature section with the rest; section() reads it typed, with defaults', async () => {
    const app = createApp({ features: [notesFeature()], config: { notes: { max: 9 } } });
    expect(app.config.section(notes)).toEqual({ max: 9 });
    expect(() => createApp({ features: [notesFeature()], config: { notes: { max: 0 } } })).toThrow(
      'Invalid configuration in configuration:\n  - notes.max: Too small: expected number to be >=1',
    );
    expect(createApp({ features: [notesFeature()] }).config.section(notes)).toEqual({ max: 3 });
    await app.dispose();
  });

  test('the key of a builtin feature the App lacks names that feature; an unknown key gets a suggestion', () => {
    expect(() => createApp({ features: [notesFeature()], config: { grep: { engine: 'builtin' }, mcpServers: {} } })).toThrow(
      'Invalid configuration in configuration:\n' +
        '  - grep: unknown key: it belongs to feature "os", which this App was created without\n' +
        '  - mcpServers: unknown key: it belongs to feature "mcp", which this App was created without',
    );
    expect(() => createApp({ features: [notesFeature()], config: { note: {} } })).toThrow('  - note: unknown key (did you mean "notes"?)');
  });

  test('reading a section no feature of the App contributes is an error that says which feature to add', async () => {
    const app = createApp({ features: [notesFeature()] });
    expect(() => app.config.section(readConfig)).toThrow('Config section "read" is not part of this App: add feature "os".');
    await app.dispose();
  });

  test('adding and removing a feature adds and drops its section', async () => {
    const app = createApp({ features: [] });
    const seen: unknown[] = [];
    app.config.onDidChange((config) => seen.push(config['notes']));
    app.addFeature(notesFeature());
    expect(app.config.section(notes)).toEqual({ max: 3 });
    app.config.update({ notes: { max: 5 } });
    await app.removeFeature('notes');
    expect(app.config.config).not.toHaveProperty('notes');
    expect(() => app.config.update({ notes: {} })).toThrow('  - notes: unknown key');
    expect(seen).toEqual([{ max: 3 }, { max: 5 }, undefined]);
    await app.dispose();
  });

  test('a section key taken twice, or by the core, is refused when the App is built', () => {
    expect(() => createApp({ features: [notesFeature(), new Feature('other').contributeConfig('notes', z.object({}).prefault({}))] })).toThrow(
      new ConfigCompositionError('Config section "notes" is contributed by both feature "notes" and feature "other".'),
    );
    expect(() => createApp({ features: [new Feature('x').contributeConfig('approval', z.object({}).prefault({}))] })).toThrow(
      'Feature "x" contributes config section "approval", a section of the core.',
    );
    const app = createApp({ features: [notesFeature()] });
    expect(() => app.addFeature(new Feature('again').contributeConfig('notes', z.object({}).prefault({})))).toThrow(ConfigCompositionError);
    expect(app.features.map((f) => f.id)).toEqual(['notes']);
  });

  test('a section must have defaults and a plain key', () => {
    expect(() => defineConfigSection('strict', z.strictObject({ a: z.number() }))).toThrow(
      new ConfigSectionError('Config section "strict" must accept a missing section: give its schema defaults (e.g. .prefault({})).'),
    );
    expect(() => defineConfigSection('a.b', z.object({}).prefault({}))).toThrow('Config section key "a.b" is invalid');
    expect(() => new Feature('n').contributeConfig(notes).contributeConfig(notes)).toThrow('Feature "n" contributes config section "notes" twice.');
  });
});

describe('config.update', () => {
  test('merges objects key by key and replaces arrays', async () => {
    const app = createApp({ config: { approval: { allow: ['Read'], deny: ['Bash(rm *)'] }, grep: { engine: 'builtin', headLimit: 10 } } });
    app.config.update({ approval: { deny: ['Write'] } });
    expect(app.config.config.approval).toEqual({ allow: ['Read'], ask: [], deny: ['Write'] });
    app.config.update({ grep: { headLimit: 20 } });
    expect(app.config.section(grepConfig)).toMatchObject({ engine: 'builtin', headLimit: 20 });
    app.config.update({ profiles: { review: { tools: ['Read'] } } });
    app.config.update({ profiles: { ship: { tools: ['Bash'] } } });
    expect(Object.keys(app.config.config.profiles)).toEqual(['review', 'ship']);
    await app.dispose();
  });

  test('a key set to undefined is removed: a section back to its defaults, an MCP server gone', async () => {
    const app = createApp({ config: { grep: { engine: 'builtin', headLimit: 10 }, mcpServers: { a: { command: 'a', enabled: false }, b: { command: 'b', enabled: false } } } });
    app.config.update({ grep: { engine: undefined }, mcpServers: { a: undefined } });
    expect(app.config.section(grepConfig)).toMatchObject({ engine: 'auto', headLimit: 10 });
    expect(Object.keys(app.config.config['mcpServers'] as object)).toEqual(['b']);
    await app.dispose();
  });

  test('mergeConfig: undefined removes a key, a non-object replaces, the walk is bounded', () => {
    expect(mergeConfig({ a: { b: 1, c: [1, 2] } }, { a: { b: undefined, c: [3] } })).toEqual({ a: { c: [3] } });
    expect(mergeConfig({ a: { b: 1 } }, { a: null })).toEqual({ a: null });
    expect(mergeConfig({ a: 1 }, { a: { b: 2 } })).toEqual({ a: { b: 2 } });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10_000; i++) deep = { x: deep };
    expect(() => mergeConfig(deep, deep)).not.toThrow();
  });
});
