import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { outputText } from '../../../src/tool/contract';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import { IFileWriteLocks } from '../../../src/tools/os/contract';
import { FileWriteLocks } from '../../../src/tools/os/fileState/fileWriteLocks';
import { useAgent } from '../../helpers/agentHarness';
import { approveAll } from '../../helpers/fakeHost';

const fx = useAgent({ tempDataDir: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FileWriteLocks', () => {
  test('writers of one path run one after the other, other paths do not wait, and the table empties', async () => {
    const locks = new FileWriteLocks();
    const order: string[] = [];
    const slow = (name: string, ms: number) => async () => {
      order.push(`${name}+`);
      await sleep(ms);
      order.push(`${name}-`);
    };
    await Promise.all([locks.withLock('/a', slow('a1', 40)), locks.withLock('/a', slow('a2', 1)), locks.withLock('/b', slow('b', 1))]);
    expect(order).toEqual(['a1+', 'b+', 'b-', 'a1-', 'a2+', 'a2-']);
    await sleep(0);
    expect(locks.lockedPaths).toEqual([]);
  });

  test('a writer whose signal aborts while it waits gives up, and the ones behind it still run', async () => {
    const locks = new FileWriteLocks();
    const controller = new AbortController();
    let releaseFirst!: () => void;
    const first = locks.withLock('/a', () => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const waiting = locks.withLock('/a', async () => 'ran', controller.signal);
    const third = locks.withLock('/a', async () => 'third');
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    releaseFirst();
    await first;
    await expect(third).resolves.toBe('third');
  });
});

describe('every write of any agent in the App takes the path lock', () => {
  test('a Write and an Edit wait while the lock of their file is held, then run', async () => {
    const file = nodePath.join(fx.dir, 'f.txt');
    fs.writeFileSync(file, 'one\n');
    const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
    expect((await h.call('Read', { path: 'f.txt' })).isError).toBe(false);
    let release!: () => void;
    const held = h.app.get(IFileWriteLocks).withLock(fs.realpathSync(file), () => new Promise<void>((resolve) => (release = resolve)));
    const edit = h.call('Edit', { path: 'f.txt', old_string: 'one', new_string: 'two' });
    await sleep(150);
    // Checked before the release: without the lock the Edit would have written by now.
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
    release();
    await held;
    expect((await edit).isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('two\n');

    const hold2 = h.app.get(IFileWriteLocks).withLock(fs.realpathSync(file), () => sleep(150));
    const writing = h.call('Write', { path: 'f.txt', content: 'three\n' });
    await sleep(50);
    expect(fs.readFileSync(file, 'utf8')).toBe('two\n');
    await hold2;
    expect((await writing).isError).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('three\n');
  });

  test('a child Edit and the parent Edit of one file at once: one applies, the other is refused by the stale guard, never clobbered', async () => {
    const file = nodePath.join(fx.dir, 'shared.txt');
    fs.writeFileSync(file, `${'line\n'.repeat(400_000)}target\n`);
    const h = fx.open({ id: 'main', builtins: true, interactions: approveAll() });
    const runner = new ScriptedSubagentRunner({
      batches: [[{ name: 'Read', args: { path: 'shared.txt' } }], [{ name: 'Edit', args: { path: 'shared.txt', old_string: 'target', new_string: 'child' } }]],
      text: 'edited',
    });
    h.app.get(ISubagentRunnerService).bind(runner);
    expect((await h.call('Read', { path: 'shared.txt' })).isError).toBe(false);
    // The parent's Edit starts the moment the child's Read ends, so the two Edits overlap.
    let parentEdit: Promise<Awaited<ReturnType<typeof h.call>>> | undefined;
    const childRead = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const handle = runner.runs[0]?.request.child;
        if (!handle) return;
        clearInterval(poll);
        handle.events.onToolCallFinished((e) => {
          if (e.name !== 'Read') return;
          parentEdit = h.call('Edit', { path: 'shared.txt', old_string: 'target', new_string: 'parent' });
          resolve();
        });
      }, 0);
    });
    const child = h.call('Agent', { description: 'Edit shared', prompt: 'edit it', subagent_type: 'general' });
    await childRead;
    const parent = await parentEdit!;
    await child;
    const childEdit = runner.runs[0]!.results[1]![0]!;
    const [winner, loser] = childEdit.isError ? [parent, childEdit] : [childEdit, parent];
    expect([winner.isError, loser.isError]).toEqual([false, true]);
    expect(outputText(loser.output)).toBe('"shared.txt" has changed on disk since this agent last read it. Read it again before writing to it.');
    expect(fs.readFileSync(file, 'utf8').endsWith(winner === parent ? 'parent\n' : 'child\n')).toBe(true);
  });
});
