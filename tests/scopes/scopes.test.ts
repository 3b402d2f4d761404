import * as fs from 'node:fs';
import { inject, injectable, preDestroy } from 'inversify';
import { IAgentPlanModeService } from '../../src/features/plan/contract';
import { z } from 'zod';
import { createApp } from '../../src/scopes/appScope';
import { Feature, defineFeature } from '../../src/di/feature';
import { createServiceId } from '../../src/di/serviceId';
import { IAgentStartup } from '../../src/di/agentStartup';
import { IConfigService } from '../../src/services/config/config';
import { createLocalRuntime } from '../../src/services/runtime/localRuntime';
import { IAgentRuntimeService } from '../../src/services/runtime/runtime';
import { IAgentToolRegistryService } from '../../src/services/toolRegistry/toolRegistry';
import { IAgentWorkspaceService } from '../../src/services/workspace/workspace';
import { builtinFeatures } from '../../src/scopes/builtinFeatures';
import { createEditToolFeature } from '../../src/tools/edit/editFeature';
import { createOsToolsFeature } from '../../src/tools/os/osFeature';
import { IReadTool, ReadTool } from '../../src/tools/os/read/readTool';
import { constructionCount, testTool } from '../helpers/testTools';
import { useTempDir } from '../helpers/tempDir';

const dir = useTempDir();

interface ICounterService {
  readonly serial: number;
}
const IAppCounter = createServiceId<ICounterService>('test.AppCounter');
const IAgentCounter = createServiceId<ICounterService>('test.AgentCounter');
let serial = 0;
const disposed: string[] = [];

@injectable()
class AppCounter implements ICounterService {
  readonly serial = ++serial;
}

@injectable()
class AgentCounter implements ICounterService {
  readonly serial = ++serial;
  constructor(@inject(IAppCounter) readonly app: ICounterService) {}
  @preDestroy()
  dispose(): void {
    disposed.push(`agent-counter-${this.serial}`);
  }
}

function counterFeature(): Feature {
  return defineFeature('counters', (f) =>
    f
      .bindApp(({ bind }) => bind(IAppCounter).to(AppCounter).inSingletonScope(), [IAppCounter])
      .bindAgent(({ bind }) => bind(IAgentCounter).to(AgentCounter).inSingletonScope()),
  );
}

describe('App and Agent scopes', () => {
  test('a tool that is not activated is never constructed; an activated one exactly once per agent', async () => {
    const hidden = testTool('HiddenTool', { countConstructions: true, requiredRuntimeCapabilities: ['process'] });
    const shown = testTool('ShownTool', { countConstructions: true });
    const app = createApp({ features: [new Feature('t').contributeTool(hidden).contributeTool(shown)] });
    const agent = app.createAgent({ cwd: dir.path, runtime: createLocalRuntime(['fs']) });
    expect(agent.registry.list().map((r) => r.tool.name)).toEqual(['ShownTool']);
    expect(constructionCount('HiddenTool')).toBe(0);
    expect(constructionCount('ShownTool')).toBe(1);
    agent.activation.recompute();
    expect(constructionCount('ShownTool')).toBe(1);
    app.createAgent({ cwd: dir.path, runtime: createLocalRuntime(['fs']) });
    expect(constructionCount('ShownTool')).toBe(2);
    expect(constructionCount('HiddenTool')).toBe(0);
    await app.dispose();
  });

  test('an agent binds a tool class only when the tool activates (a subagent pays for the few tools it has)', async () => {
    const later = testTool('LaterTool', { requiredRuntimeCapabilities: ['process'] });
    const shown = testTool('NowTool');
    const app = createApp({ features: [new Feature('t').contributeTool(later).contributeTool(shown)] });
    const agent = app.createAgent({ cwd: dir.path, runtime: createLocalRuntime(['fs']) });
    expect([agent.container.isCurrentBound(shown.id), agent.container.isCurrentBound(later.id)]).toEqual([true, false]);
    // A tool added with a feature later is bound the same way, on activation; removed, never.
    const removed = testTool('RemovedTool', { requiredRuntimeCapabilities: ['process'] });
    app.addFeature(new Feature('removed').contributeTool(removed));
    expect([agent.registry.has('RemovedTool'), agent.container.isCurrentBound(removed.id)]).toEqual([false, false]);
    await app.removeFeature('removed');
    agent.get(IAgentRuntimeService).switch(createLocalRuntime(['fs', 'process']));
    expect([agent.registry.has('LaterTool'), agent.container.isCurrentBound(later.id)]).toEqual([true, true]);
    expect([agent.registry.has('RemovedTool'), agent.container.isCurrentBound(removed.id)]).toEqual([false, false]);
    await app.dispose();
  });

  test('startWithAgent services are constructed as each agent is created, in order, with IAgentStartup bindings after them', async () => {
    const made: string[] = [];
    const IFirst = createServiceId<object>('test.StartFirst');
    const ISecond = createServiceId<object>('test.StartSecond');
    const IHostStartup = createServiceId<object>('test.HostStartup');
    const recorded = (name: string) => {
      @injectable()
      class Recorded {
        constructor(@inject(IAgentWorkspaceService) workspace: IAgentWorkspaceService) {
          made.push(`${name} in ${workspace.cwd === fs.realpathSync(dir.path) ? 'cwd' : '?'}`);
        }
      }
      return Recorded;
    };
    const feature = new Feature('starts')
      .bindAgent(({ bind }) => {
        bind(IFirst).to(recorded('first')).inSingletonScope();
        bind(ISecond).to(recorded('second')).inSingletonScope();
      })
      .startWithAgent(ISecond, IFirst);
    const app = createApp({ features: [feature] });
    app.createAgent({ cwd: dir.path });
    expect(made).toEqual(['second in cwd', 'first in cwd']);
    // Another agent constructs its own; a host's IAgentStartup binding comes after the features' list.
    app.createAgent({
      cwd: dir.path,
      overrides: (c) => {
        c.bind(IHostStartup).to(recorded('host')).inSingletonScope();
        c.bind(IAgentStartup).toService(IHostStartup);
      },
    });
    expect(made).toEqual(['second in cwd', 'first in cwd', 'second in cwd', 'first in cwd', 'host in cwd']);
    expect(() => feature.startWithAgent(IFirst)).toThrow('already in use');
    await app.dispose();
  });

  test('two agents get distinct Agent singletons and share App singletons', async () => {
    const app = createApp({ features: [counterFeature()] });
    const a1 = app.createAgent({ cwd: dir.path });
    const a2 = app.createAgent({ cwd: dir.path });
    const c1 = a1.get(IAgentCounter) as AgentCounter;
    const c2 = a2.get(IAgentCounter) as AgentCounter;
    expect(c1).not.toBe(c2);
    expect(a1.get(IAgentCounter)).toBe(c1);
    expect(c1.app).toBe(c2.app);
    expect(c1.app).toBe(app.get(IAppCounter));
    expect(a1.get(IAgentToolRegistryService)).not.toBe(a2.get(IAgentToolRegistryService));
    expect(a1.get(IConfigService)).toBe(a2.get(IConfigService));
    await app.dispose();
  });

  test('every App service resolves from an App with no agent', async () => {
    const app = createApp({ features: [...builtinFeatures(), counterFeature()] });
    expect(app.appServices.length).toBeGreaterThanOrEqual(3);
    for (const id of app.appServices) {
      expect(() => app.get(id)).not.toThrow();
    }
    await app.dispose();
  });

  test('an App service that injected an Agent identifier would fail this check', () => {
    const IAgentOnly = createServiceId<string>('test.AgentOnly');
    const ILeaky = createServiceId<{ value: string }>('test.Leaky');
    @injectable()
    class Leaky {
      constructor(@inject(IAgentOnly) readonly value: string) {}
    }
    const app = createApp({
      features: [
        defineFeature('leaky', (f) =>
          f.bindApp(({ bind }) => bind(ILeaky).to(Leaky).inSingletonScope(), [ILeaky]).bindAgent(({ bind }) => bind(IAgentOnly).toConstantValue('agent')),
        ),
      ],
    });
    expect(() => app.get(ILeaky)).toThrow(/No bindings found for service: "Symbol\(toolhost.test.AgentOnly\)"/);
  });

  test('a test swaps a service by rebinding it in the container', async () => {
    const app = createApp({ features: builtinFeatures() });
    const agent = app.createAgent({ cwd: dir.path });
    @injectable()
    class FakeRead {
      readonly name = 'Read';
      readonly description = 'fake';
      readonly parameters = { type: 'object' };
      resolveExecution() {
        return { approvalRule: 'Read', execute: async () => ({ output: 'fake read' }) };
      }
    }
    const swapped = app.createAgent({
      cwd: dir.path,
      overrides: (container) => {
        container.rebind(IReadTool).to(FakeRead as unknown as typeof ReadTool).inSingletonScope();
      },
    });
    expect(swapped.registry.get('Read')?.tool.description).toBe('fake');
    expect(agent.registry.get('Read')?.tool).toBeInstanceOf(ReadTool);
    await app.dispose();
  });

  test('a runtime without fs hides Read, and Read comes back when fs returns', async () => {
    const app = createApp({ features: builtinFeatures() });
    const agent = app.createAgent({ cwd: dir.path, runtime: createLocalRuntime(['process']) });
    expect(agent.registry.has('Read')).toBe(false);
    expect(agent.activation.status()).toContainEqual({ name: 'Read', state: 'inactive', reason: 'the runtime "local" lacks "fs"' });
    const changes: string[] = [];
    // Other fs tools come and go with Read; this test follows Read.
    const read = (names: readonly string[]) => names.filter((n) => n === 'Read');
    agent.registry.onDidChange((c) => changes.push(...read(c.added).map((n) => `+${n}`), ...read(c.removed).map((n) => `-${n}`)));
    const runtime = agent.get(IAgentRuntimeService);
    runtime.switch(createLocalRuntime(['fs', 'process']));
    expect(agent.registry.has('Read')).toBe(true);
    runtime.switch(createLocalRuntime(['process']));
    expect(agent.registry.has('Read')).toBe(false);
    runtime.switch(createLocalRuntime());
    expect(changes.filter((c) => c.slice(1) === 'Read')).toEqual(['+Read', '-Read', '+Read']);
    await app.dispose();
  });

  test('disposing an agent runs its disposers and leaves the App and other agents intact', async () => {
    const app = createApp({ features: [counterFeature()] });
    const a1 = app.createAgent({ cwd: dir.path });
    const a2 = app.createAgent({ cwd: dir.path });
    const c1 = a1.get(IAgentCounter) as AgentCounter;
    a2.get(IAgentCounter);
    const appCounter = app.get(IAppCounter);
    await a1.dispose();
    expect(disposed).toContain(`agent-counter-${c1.serial}`);
    expect(app.agents).toEqual([a2]);
    expect(app.get(IAppCounter)).toBe(appCounter);
    expect(a2.get(IAgentCounter)).not.toBe(c1);
    const a3 = app.createAgent({ cwd: dir.path });
    expect((a3.get(IAgentCounter) as AgentCounter).app).toBe(appCounter);
    await app.dispose();
    expect(app.agents).toEqual([]);
  });

  test('a feature added to a running App reaches existing agents, and removing it withdraws its tools', async () => {
    const app = createApp({ features: [] });
    const agent = app.createAgent({ cwd: dir.path });
    expect(agent.registry.list()).toEqual([]);
    const late = testTool('LateTool');
    const feature = counterFeature();
    feature.contributeTool(late);
    app.addFeature(feature);
    expect(agent.registry.list().map((r) => r.tool.name)).toEqual(['LateTool']);
    expect((agent.get(IAgentCounter) as AgentCounter).app).toBe(app.get(IAppCounter));
    await app.removeFeature('counters');
    expect(agent.registry.has('LateTool')).toBe(false);
    expect(agent.container.isBound(late.id)).toBe(false);
    expect(agent.container.isBound(IAgentCounter)).toBe(false);
    expect(app.container.isBound(IAppCounter)).toBe(false);
    await app.dispose();
  });

  test('a feature that requires another is refused without it, and the required one cannot be removed first', async () => {
    expect(() => createApp({ features: [createEditToolFeature()] })).toThrow(
      'Feature "edit" requires feature "os"; create the App with both (builtinFeatures() has every builtin one).',
    );
    const app = createApp({ features: [createOsToolsFeature()] });
    app.addFeature(createEditToolFeature());
    const agent = app.createAgent({ cwd: dir.path });
    expect(agent.registry.has('Edit')).toBe(true);
    await expect(app.removeFeature('os')).rejects.toThrow('Feature "os" is required by feature "edit"; remove "edit" first.');
    expect(agent.registry.has('Read')).toBe(true);
    await app.removeFeature('edit');
    await app.removeFeature('os');
    expect(agent.registry.list()).toEqual([]);
    const bare = createApp({ features: [] });
    expect(() => bare.addFeature(createEditToolFeature())).toThrow('Feature "edit" requires feature "os"');
    expect(bare.features).toEqual([]);
    await Promise.all([app.dispose(), bare.dispose()]);
  });

  test('two features with one id are refused, before any config or binding is built', () => {
    const twin = () => new Feature('twin').contributeConfig('twin', z.object({}).prefault({}));
    expect(() => createApp({ features: [twin(), twin()] })).toThrow('Feature "twin" is already part of this App.');
  });

  test('createAgent refuses a working directory that does not exist', async () => {
    const app = createApp({ features: [] });
    expect(() => app.createAgent({ cwd: `${dir.path}/missing` })).toThrow(`Working directory "${dir.path}/missing" does not exist.`);
    await app.dispose();
  });

  test('the workspace is canonical and the data directory is per agent', async () => {
    const app = createApp({ features: [] });
    const a1 = app.createAgent({ cwd: dir.path });
    const a2 = app.createAgent({ cwd: dir.path });
    expect(a1.get(IAgentWorkspaceService).cwd).toBe(dir.path);
    expect(a1.get(IAgentWorkspaceService).dataDir).not.toBe(a2.get(IAgentWorkspaceService).dataDir);
    await app.dispose();
  });

  test('without a dataDir, agents of two Apps in one process never share a data folder (nor its state); an unused one is removed on dispose', async () => {
    // Both Apps number their agents from 1: a folder named by pid and agent id was shared, so one
    // App's plan mode (state "mode") switched on the other's agent.
    const [app1, app2] = [createApp({ features: builtinFeatures() }), createApp({ features: builtinFeatures() })];
    const first = app1.createAgent({ cwd: dir.path });
    const second = app2.createAgent({ cwd: dir.path });
    expect(first.id).toBe(second.id);
    const [dir1, dir2] = [first.get(IAgentWorkspaceService).dataDir, second.get(IAgentWorkspaceService).dataDir];
    expect(dir1).not.toBe(dir2);
    expect(fs.statSync(dir1).mode & 0o777).toBe(0o700);
    await first.get(IAgentPlanModeService).enter();
    expect(await second.get(IAgentPlanModeService).current()).toBeUndefined();
    const unused = app2.createAgent({ cwd: dir.path });
    const unusedDir = unused.get(IAgentWorkspaceService).dataDir;
    await unused.dispose();
    expect(fs.existsSync(unusedDir)).toBe(false);
    // The plan file is in the first agent's folder: it stays.
    await first.dispose();
    expect(fs.existsSync(dir1)).toBe(true);
    fs.rmSync(dir1, { recursive: true, force: true });
    await Promise.all([app1.dispose(), app2.dispose()]);
  });
});
