import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createApp } from '../../../src/scopes/appScope';
import {
  AgentStateError,
  type AgentStateWarning,
  IAgentStateStore,
  MAX_AGENT_STATE_BYTES,
  updateAgentState,
} from '../../../src/services/agentState/agentState';
import { agentStateFilePath, FileAgentStateStore } from '../../../src/services/agentState/fileAgentStateStore';
import { useTempDir } from '../../helpers/tempDir';

const dir = useTempDir();
const owner = () => ({ agentId: 'a1', dataDir: nodePath.join(dir.path, 'data') });

describe('FileAgentStateStore', () => {
  test('is the App default; put, get and versions survive a new store (a restarted App)', async () => {
    const app = createApp({ features: [] });
    const store = app.get(IAgentStateStore);
    expect(store).toBeInstanceOf(FileAgentStateStore);
    expect(await store.get(owner(), 'todo')).toBeUndefined();
    expect(await store.put(owner(), 'todo', { items: ['x'] })).toBe(1);
    expect(await store.put(owner(), 'todo', { items: ['x', 'y'] })).toBe(2);
    await app.dispose();
    const again = createApp({ features: [] }).get(IAgentStateStore);
    expect(await again.get(owner(), 'todo')).toEqual({ value: { items: ['x', 'y'] }, version: 2 });
    expect(JSON.parse(fs.readFileSync(nodePath.join(dir.path, 'data/state/todo.json'), 'utf8'))).toEqual({ version: 2, value: { items: ['x', 'y'] } });
  });

  test('compare-and-set writes only over the expected version; of racing writers one wins', async () => {
    const store = new FileAgentStateStore();
    expect(await store.compareAndSet(owner(), 'goal', 1, 'x')).toEqual({ ok: false });
    expect(await store.compareAndSet(owner(), 'goal', 0, 'first')).toEqual({ ok: true, version: 1 });
    const race = await Promise.all([store.compareAndSet(owner(), 'goal', 1, 'a'), store.compareAndSet(owner(), 'goal', 1, 'b')]);
    expect(race).toEqual([{ ok: true, version: 2 }, { ok: false, current: { value: 'a', version: 2 } }]);
    // updateAgentState retries over a concurrent writer instead of losing its change.
    const counts = await Promise.all(
      Array.from({ length: 5 }, () =>
        updateAgentState(store, owner(), 'count', (current) => {
          const next = ((current?.value as number | undefined) ?? 0) + 1;
          return { value: next, result: next };
        }),
      ),
    );
    expect(counts.map((c) => c.result).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await store.get(owner(), 'count')).toEqual({ value: 5, version: 5 });
  });

  test('nested keys are folders; agents with other data dirs do not share state', async () => {
    const store = new FileAgentStateStore();
    await store.put(owner(), 'user/question', [1]);
    expect(fs.existsSync(nodePath.join(dir.path, 'data/state/user/question.json'))).toBe(true);
    expect(agentStateFilePath(owner(), 'user/question')).toBe(nodePath.join(dir.path, 'data/state/user/question.json'));
    expect(await store.get({ agentId: 'a2', dataDir: nodePath.join(dir.path, 'other') }, 'user/question')).toBeUndefined();
  });

  test.each([
    ['not JSON', '{"version": 1, "value": '],
    ['not an envelope', '[1, 2]'],
    ['a bad version', '{"version": 0, "value": 1}'],
    ['no value', '{"version": 3}'],
  ])('a corrupted file (%s) warns, reads as empty, is kept aside and never overwritten', async (_what, content) => {
    const store = new FileAgentStateStore();
    const warnings: AgentStateWarning[] = [];
    store.onWarning((w) => warnings.push(w));
    const file = agentStateFilePath(owner(), 'todo');
    fs.mkdirSync(nodePath.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    expect(await store.get(owner(), 'todo')).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/^State "todo" of agent a1 was unreadable \(.+\); it starts empty and the file was kept as .+\.corrupt-/);
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe(content);
    expect(await store.put(owner(), 'todo', 'fresh')).toBe(1);
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe(content);
    expect(await store.get(owner(), 'todo')).toEqual({ value: 'fresh', version: 1 });
    expect(warnings).toHaveLength(1);
  });

  test('a value the check of the reader rejects is set aside like a corrupt file; without a check it reads as stored', async () => {
    const store = new FileAgentStateStore();
    const warnings: AgentStateWarning[] = [];
    store.onWarning((w) => warnings.push(w));
    await store.put(owner(), 'mode', 'sideways');
    const check = (value: unknown) => (value === 'plan' || value === 'normal' ? undefined : 'it is not a mode');
    expect(await store.get(owner(), 'mode', { check: () => undefined })).toEqual({ value: 'sideways', version: 1 });
    expect(await store.get(owner(), 'mode', { check })).toBeUndefined();
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^State "mode" of agent a1 was unreadable \(it is not a mode\)/)]);
    expect(fs.readFileSync(warnings[0]!.keptAt!, 'utf8')).toBe('{"version":1,"value":"sideways"}\n');
    const { version } = await updateAgentState(store, owner(), 'mode', () => ({ value: 'plan', result: null }), { check });
    expect([version, fs.readFileSync(warnings[0]!.keptAt!, 'utf8')]).toEqual([1, '{"version":1,"value":"sideways"}\n']);
  });

  test('bad keys and values are refused with what is allowed; nothing is written', async () => {
    const store = new FileAgentStateStore();
    for (const key of ['', 'Todo', '../x', 'a//b', 'a/b/c/d/e', '/abs', 'x'.repeat(65)]) {
      await expect(store.put(owner(), key, 1)).rejects.toThrow(new RegExp(`^State key ${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is invalid: use 1–4`));
    }
    await expect(store.get(owner(), '../etc')).rejects.toThrow(AgentStateError);
    await expect(store.put(owner(), 'big', 'x'.repeat(MAX_AGENT_STATE_BYTES))).rejects.toThrow(/^State "big" is \d+ bytes of JSON; at most 1048576 are kept/);
    await expect(store.put(owner(), 'fn', (() => 1) as never)).rejects.toThrow(/^State "fn" is not JSON: store null/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.compareAndSet(owner(), 'cyc', 0, cyclic as never)).rejects.toThrow(/^State "cyc" is not JSON: /);
    expect(fs.existsSync(nodePath.join(dir.path, 'data'))).toBe(false);
  });
});
