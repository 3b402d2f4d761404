import { execFileSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { ScriptedInteractions } from '../../../helpers/interactions';
import { isAlive, waitUntil } from '../../../helpers/processes';
import { useTempDir, writeFiles } from '../../../helpers/tempDir';
import { type Harness, openHarness } from '../../../services/executor/harness';

/** Bash and the task tools through the real executor: scheduling by accesses, approval, progress. */
const dir = useTempDir();
let h: Harness;
afterEach(() => h?.dispose());

const approveAll = () => new ScriptedInteractions(() => ({ decision: 'approve' }));

/** Opens a FIFO for writing (it waits for a reader), writes a line and closes it. */
async function feed(fifo: string, line: string): Promise<void> {
  const handle = await fsp.open(fifo, 'w');
  await handle.write(`${line}\n`);
  await handle.close();
}

describe('Bash through the executor', () => {
  test('read-only commands run concurrently: each blocks until both have started', async () => {
    execFileSync('mkfifo', [nodePath.join(dir.path, 'fifo1'), nodePath.join(dir.path, 'fifo2')]);
    const interactions = approveAll();
    h = openHarness({ cwd: dir.path, builtins: true, interactions });
    const started = new Set<string>();
    h.agent.executor.onToolProgress((e) => {
      if (e.update.kind === 'stdout' && e.update.text?.startsWith('started')) started.add(e.toolCallId);
    });
    const batch = h.agent.executor.execute([
      { id: 'a', name: 'Bash', arguments: { command: 'echo started-a; cat fifo1' } },
      { id: 'b', name: 'Bash', arguments: { command: 'echo started-b; cat fifo2' } },
    ]);
    // Run one at a time, the first would block on its FIFO forever and the second never start.
    await waitUntil(() => started.size === 2, 'both commands started');
    await Promise.all([feed(nodePath.join(dir.path, 'fifo1'), 'one'), feed(nodePath.join(dir.path, 'fifo2'), 'two')]);
    const results = await batch;
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['executed', 'started-a\none\n'],
      ['executed', 'started-b\ntwo\n'],
    ]);
  });

  test('a command that is not read-only waits for an earlier one to finish', async () => {
    execFileSync('mkfifo', [nodePath.join(dir.path, 'fifo')]);
    h = openHarness({ cwd: dir.path, builtins: true, interactions: approveAll() });
    const order: string[] = [];
    h.agent.executor.onToolProgress((e) => {
      if (e.update.text?.startsWith('reading') || e.update.text?.startsWith('writing')) order.push(`progress:${e.toolCallId}`);
    });
    h.agent.executor.onToolCallFinished((e) => order.push(`finished:${e.toolCallId}`));
    const batch = h.agent.executor.execute([
      { id: 'reader', name: 'Bash', arguments: { command: 'echo reading; cat fifo' } },
      { id: 'writer', name: 'Bash', arguments: { command: 'echo writing; touch made-by-writer' } },
    ]);
    await waitUntil(() => order.includes('progress:reader'), 'the reader started');
    await feed(nodePath.join(dir.path, 'fifo'), 'data');
    await batch;
    expect(order).toEqual(['progress:reader', 'finished:reader', 'progress:writer', 'finished:writer']);
  });

  test('Bash asks for approval with its rule; the task queries do not', async () => {
    writeFiles(dir.path, { 'a.txt': 'x' });
    const interactions = approveAll();
    h = openHarness({ cwd: dir.path, builtins: true, interactions });
    const [start] = await h.agent.executor.execute([{ id: 's', name: 'Bash', arguments: { command: 'echo hi; sleep 1000', run_in_background: true } }]);
    expect(start!.outcome).toBe('executed');
    expect(interactions.approvals.map((a) => a.approvalRule)).toEqual(['Bash(echo hi; sleep 1000)']);
    const id = /task_id: (\S+)/.exec(String(start!.output))![1]!;
    const shell = Number(/pid: (\d+)/.exec(String(start!.output))![1]);
    const queries = await h.agent.executor.execute([
      { id: 'l', name: 'TaskList', arguments: {} },
      { id: 'o', name: 'TaskOutput', arguments: { task_id: id } },
      { id: 'w', name: 'WaitFor', arguments: { task_ids: [id], timeout: 1 } },
    ]);
    expect(queries.map((q) => q.outcome)).toEqual(['executed', 'executed', 'executed']);
    expect(String(queries[2]!.output)).toMatch(/^wait_status: timed_out/);
    expect(interactions.approvals).toHaveLength(1);
    const [stop] = await h.agent.executor.execute([{ id: 't', name: 'TaskStop', arguments: { task_id: id } }]);
    expect(stop!.outcome).toBe('executed');
    expect(interactions.approvals.map((a) => a.approvalRule)).toEqual(['Bash(echo hi; sleep 1000)', `TaskStop(${id})`]);
    expect(isAlive(shell)).toBe(false);
  });

  test('an aborted batch stops the running command and its process group', async () => {
    h = openHarness({ cwd: dir.path, builtins: true, interactions: approveAll() });
    const controller = new AbortController();
    let grandchild = 0;
    h.agent.executor.onToolProgress((e) => {
      grandchild = Number(e.update.text);
      controller.abort();
    });
    const [result] = await h.agent.executor.execute([{ id: 'x', name: 'Bash', arguments: { command: 'sleep 1000 & echo $!; wait' } }], {
      signal: controller.signal,
    });
    expect(result!.outcome).toBe('aborted');
    await waitUntil(() => !isAlive(grandchild), 'the grandchild is gone');
  });

  test('a timeout above the maximum is rejected by validation', async () => {
    h = openHarness({ cwd: dir.path, builtins: true, interactions: approveAll() });
    const [result] = await h.agent.executor.execute([{ id: 'x', name: 'Bash', arguments: { command: 'ls', timeout: 301 } }]);
    expect(result!.outcome).toBe('rejected');
    expect(result!.output).toBe('Invalid args for tool "Bash": "timeout" must be <= 300');
  });
});
