import type { Container } from 'inversify';
import { Feature } from '../../src/di/feature';
import type { AgentToolContribution } from '../../src/di/toolContribution';
import type { Agent, CreateAgentOptions } from '../../src/scopes/agentScope';
import { type App, createApp } from '../../src/scopes/appScope';
import { builtinFeatures } from '../../src/scopes/builtinFeatures';
import type { AppConfigInput } from '../../src/scopes/appScope';
import type { AppEnvironment } from '../../src/services/environment/environment';
import type { ToolCallFinishedEvent, ToolCallResult, ToolCallStartedEvent } from '../../src/services/executor/toolExecutor';
import { ISessionInteractionService } from '../../src/services/interaction/interaction';
import type { ToolResult } from '../../src/tool/contract';
import { PathSecurityError } from '../../src/tool/pathAccess';
import { makeTempDir, removeDir } from './tempDir';
import { testHome } from './testHome';

/** What to build the App and its agent from. Every createAgent option is passed on as given. */
export interface HarnessOptions extends CreateAgentOptions {
  /** The agent's working directory (it must exist). */
  readonly cwd: string;
  /** Every builtin feature, before `features` (default false: only what the test gives). */
  readonly builtins?: boolean;
  readonly features?: readonly Feature[];
  /** Tool contributions, in one more feature (`test-tools`). */
  readonly tools?: readonly AgentToolContribution[];
  readonly config?: AppConfigInput;
  /** The App's environment (feature flags); default process.env. */
  readonly env?: AppEnvironment;
  /** Rebinds App services before anything is resolved. */
  readonly appOverrides?: (container: Container) => void;
  /** The agent's host, bound as ISessionInteractionService (before `overrides` runs). */
  readonly interactions?: ISessionInteractionService;
}

export interface Harness {
  readonly app: App;
  readonly agent: Agent;
  /** `started:<id>` and `finished:<id>:<outcome>` in the order the events fired. */
  readonly events: string[];
  readonly startedEvents: ToolCallStartedEvent[];
  readonly finishedEvents: ToolCallFinishedEvent[];
  /** Runs one call through the agent's executor; the id defaults to `call_<n>`. */
  call(name: string, args: unknown, options?: { signal?: AbortSignal; id?: string }): Promise<ToolCallResult>;
  dispose(): Promise<void>;
}

/** Opens an App and one agent, and records the executor's started/finished events. */
export function openHarness(options: HarnessOptions): Harness {
  const { builtins, features = [], tools, config, env, appOverrides, interactions, overrides, ...agentOptions } = options;
  const all = [...(builtins ? builtinFeatures() : []), ...features];
  if (tools?.length) {
    const testTools = new Feature('test-tools');
    for (const tool of tools) testTools.contributeTool(tool);
    all.push(testTools);
  }
  const app = createApp({ features: all, config, env, overrides: appOverrides });
  const agent = app.createAgent({
    // Not the real `~`: a developer's own skills would change the tool lists.
    homeDir: testHome(),
    ...agentOptions,
    overrides: (container) => {
      if (interactions) container.rebind(ISessionInteractionService).toConstantValue(interactions);
      overrides?.(container);
    },
  });
  const events: string[] = [];
  const startedEvents: ToolCallStartedEvent[] = [];
  const finishedEvents: ToolCallFinishedEvent[] = [];
  agent.executor.onToolCallStarted((e) => {
    events.push(`started:${e.toolCallId}`);
    startedEvents.push(e);
  });
  agent.executor.onToolCallFinished((e) => {
    events.push(`finished:${e.toolCallId}:${e.outcome}`);
    finishedEvents.push(e);
  });
  let counter = 0;
  return {
    app,
    agent,
    events,
    startedEvents,
    finishedEvents,
    call: async (name, args, callOptions = {}) => {
      const id = callOptions.id ?? `call_${++counter}`;
      const [result] = await agent.executor.execute([{ id, name, arguments: JSON.stringify(args) }], { signal: callOptions.signal });
      return result!;
    },
    dispose: () => app.dispose(),
  };
}

/** Each call id has exactly one started and one finished event, started first. */
export function expectPairedEvents(events: readonly string[], ids: readonly string[]): void {
  for (const id of ids) {
    const started = events.filter((e) => e === `started:${id}`);
    const finished = events.filter((e) => e.startsWith(`finished:${id}:`));
    expect([id, started.length, finished.length]).toEqual([id, 1, 1]);
    expect(events.indexOf(`started:${id}`)).toBeLessThan(events.indexOf(finished[0]!));
  }
  expect(events.length).toBe(ids.length * 2);
}

export interface AgentFixture {
  /** This test's temp dir (canonical path): the default working directory. */
  readonly dir: string;
  /** This test's temp data dir, with `useAgent({ tempDataDir: true })`. */
  readonly dataDir: string;
  /** The App and agent of the harness last opened (or given to `use`) in this test. */
  readonly app: App;
  readonly agent: Agent;
  /** Opens a harness (openHarness) from the fixture's options with `options` over them. */
  open(options?: Partial<HarnessOptions>): Harness;
  /** Disposes a harness opened otherwise (e.g. openMcpClientHarness) after the test, like those from `open`. */
  use<H extends Harness>(harness: H): H;
}

export interface AgentFixtureOptions extends Partial<HarnessOptions> {
  /** The temp dir's name prefix (default `toolhost-test-`). */
  readonly prefix?: string;
  /** Also give each test its own data dir (passed as `dataDir`), removed after it. */
  readonly tempDataDir?: boolean;
  /** Runs after each test that opened a harness, before the fixture disposes, with the last one. */
  readonly beforeDispose?: (harness: Harness) => void | Promise<void>;
}

/**
 * For a test file or describe block: before each test a fresh temp dir (and data dir); the test
 * opens harnesses on it; after it every one is disposed, in order, and the dirs are removed.
 */
export function useAgent(defaults: AgentFixtureOptions = {}): AgentFixture {
  const { prefix, tempDataDir, beforeDispose, ...harnessDefaults } = defaults;
  let dir = '';
  let dataDir = '';
  let opened: Harness[] = [];
  const last = (): Harness => {
    const harness = opened[opened.length - 1];
    if (!harness) throw new Error('No agent is open: call open() first');
    return harness;
  };
  beforeEach(() => {
    dir = makeTempDir(prefix);
    if (tempDataDir) dataDir = makeTempDir('toolhost-data-');
  });
  afterEach(async () => {
    const harnesses = opened;
    opened = [];
    try {
      if (beforeDispose && harnesses.length > 0) await beforeDispose(harnesses[harnesses.length - 1]!);
    } finally {
      for (const harness of harnesses) await harness.dispose();
      removeDir(dir);
      if (dataDir) removeDir(dataDir);
      dataDir = '';
    }
  });
  const fixture: AgentFixture = {
    get dir() {
      return dir;
    },
    get dataDir() {
      if (!tempDataDir) throw new Error('useAgent({ tempDataDir: true }) gives a data dir');
      return dataDir;
    },
    get app() {
      return last().app;
    },
    get agent() {
      return last().agent;
    },
    open(options = {}) {
      return fixture.use(openHarness({ cwd: dir, ...(tempDataDir ? { dataDir } : {}), ...harnessDefaults, ...options }));
    },
    use(harness) {
      opened.push(harness);
      return harness;
    },
  };
  return fixture;
}

/**
 * Resolves and executes one tool call directly (no executor): what a tool does on its own.
 * A PathSecurityError from resolveExecution becomes an error result with its message, as the
 * executor would show it.
 */
export async function callTool(agent: Agent, name: string, input: unknown, signal = new AbortController().signal): Promise<ToolResult> {
  const registration = agent.registry.get(name);
  if (!registration) throw new Error(`Tool ${name} is not active`);
  let execution;
  try {
    execution = await registration.tool.resolveExecution(input as never);
  } catch (error) {
    if (error instanceof PathSecurityError) return { output: error.message, isError: true };
    throw error;
  }
  if (execution.isError) return execution;
  return execution.execute({ toolCallId: 'call_test', signal, onUpdate: () => undefined, metadata: {} });
}

export function text(result: ToolResult): string {
  if (typeof result.output !== 'string') throw new Error('expected text output');
  return result.output;
}
