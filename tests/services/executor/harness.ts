import type { Agent } from '../../../src/scopes/agentScope';
import { type App, createApp } from '../../../src/scopes/appScope';
import { Feature } from '../../../src/di/feature';
import type { AgentToolContribution } from '../../../src/di/toolContribution';
import type { AppConfigInput } from '../../../src/scopes/appScope';
import type { ToolCallFinishedEvent, ToolCallStartedEvent } from '../../../src/services/executor/toolExecutor';
import { ISessionInteractionService } from '../../../src/services/interaction/interaction';
import { builtinFeatures } from '../../../src/scopes/builtinFeatures';

export interface Harness {
  readonly app: App;
  readonly agent: Agent;
  /** `started:<id>` and `finished:<id>:<outcome>` in the order the events fired. */
  readonly events: string[];
  readonly startedEvents: ToolCallStartedEvent[];
  readonly finishedEvents: ToolCallFinishedEvent[];
  dispose(): Promise<void>;
}

export function openHarness(options: {
  cwd: string;
  tools?: readonly AgentToolContribution[];
  builtins?: boolean;
  config?: AppConfigInput;
  interactions?: ISessionInteractionService;
  dataDir?: string;
}): Harness {
  const features = [...(options.builtins ? builtinFeatures() : []), new Feature('test-tools')];
  for (const tool of options.tools ?? []) features[features.length - 1]!.contributeTool(tool);
  const app = createApp({ features, config: options.config });
  const agent = app.createAgent({
    cwd: options.cwd,
    dataDir: options.dataDir,
    overrides: (container) => {
      if (options.interactions) container.rebind(ISessionInteractionService).toConstantValue(options.interactions);
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
  return { app, agent, events, startedEvents, finishedEvents, dispose: () => app.dispose() };
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
