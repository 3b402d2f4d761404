import { execFileSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { approveAll } from '../../../helpers/fakeHost';
import { waitFor } from '../../../helpers/async';
import { isAlive } from '../../../helpers/processes';
import { writeFiles } from '../../../helpers/tempDir';
import { useAgent } from '../../../helpers/agentHarness';

/** Bash and the task tools through the real executor: scheduling by accesses, approval, progress. */
const fx = useAgent({ builtins: true });

/** Opens a FIFO for writing (it waits for a reader), writes a line and closes it. */
async function feed(fifo: string, line: string): Promise<void> {
  const handle = await fsp.open(fifo, 'w');
  await handle.write(`${line}\n`);
  await handle.close();
}

describe('Bash through the executor', () => {
  test('read-only commands run concurrently: each blocks until both have started', async () => {
    execFileSync('mkfifo', [nodePath.join(fx.dir, 'fifo1'), nodePath.join(fx.dir, 'fifo2')]);
    const interactions = approveAll();
    fx.open({ interactions });
    const started = new Set<string>();
    fx.agent.executor.onToolProgress((e) => {
      if (e.update.kind === 'stdout' && e.update.text?.startsWith('started')) started.add(e.toolCallId);
    });
    const batch = fx.agent.executor.execute([
      { id: 'a', name: 'Bash', arguments: { command: 'echo started-a; cat fifo1' } },
      { id: 'b', name: 'Bash', arguments: { command: 'echo started-b; cat fifo2' } },
    ]);
    // Run one at a time, the first would block on its FIFO forever and the second never start.
    await waitFor(() => started.size === 2, { what: 'both commands started' });
    await Promise.all([feed(nodePath.join(fx.dir, 'fifo1'), 'one'), feed(nodePath.join(fx.dir, 'fifo2'), 'two')]);
    const results = await batch;
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['executed', 'started-a\none\n'],
      ['executed', 'started-b\ntwo\n'],
    ]);
  });

  test('a command that is not read-only waits for an earlier one to finish', async () => {
    execFileSync('mkfifo', [nodePath.join(fx.dir, 'fifo')]);
    fx.open({ interactions: approveAll() });
    const order: string[] = [];
    fx.agent.executor.onToolProgress((e) => {
      if (e.update.text?.startsWith('reading') || e.update.text?.startsWith('writing')) order.push(`progress:${e.toolCallId}`);
    });
    fx.agent.executor.onToolCallFinished((e) => order.push(`finished:${e.toolCallId}`));
    const batch = fx.agent.executor.execute([
      { id: 'reader', name: 'Bash', arguments: { command: 'echo reading; cat fifo' } },
      { id: 'writer', name: 'Bash', arguments: { command: 'echo writing; touch made-by-writer' } },
    ]);
    await waitFor(() => order.includes('progress:reader'), { what: 'the reader started' });
    await feed(nodePath.join(fx.dir, 'fifo'), 'data');
    await batch;
    expect(order).toEqual(['progress:reader', 'finished:reader', 'progress:writer', 'finished:writer']);
  });

  test('Bash asks for approval with its rule; the task queries do not', async () => {
    writeFiles(fx.dir, { 'a.txt': 'x' });
    const interactions = approveAll();
    fx.open({ interactions });
    const [start] = await fx.agent.executor.execute([{ id: 's', name: 'Bash', arguments: { command: 'echo hi; sleep 1000', run_in_background: true } }]);
    expect(start!.outcome).toBe('executed');
    expect(interactions.approvals.map((a) => a.approvalRule)).toEqual(['Bash(echo hi; sleep 1000)']);
    const id = /task_id: (\S+)/.exec(String(start!.output))![1]!;
    const shell = Number(/pid: (\d+)/.exec(String(start!.output))![1]);
    const queries = await fx.agent.executor.execute([
      { id: 'l', name: 'TaskList', arguments: {} },
      { id: 'o', name: 'TaskOutput', arguments: { task_id: id } },
      { id: 'w', name: 'WaitFor', arguments: { task_ids: [id], timeout: 1 } },
    ]);
    expect(queries.map((q) => q.outcome)).toEqual(['executed', 'executed', 'executed']);
    expect(String(queries[2]!.output)).toMatch(/^wait_status: timed_out/);
    expect(interactions.approvals).toHaveLength(1);
    const [stop] = await fx.agent.executor.execute([{ id: 't', name: 'TaskStop', arguments: { task_id: id } }]);
    expect(stop!.outcome).toBe('executed');
    expect(interactions.approvals.map((a) => a.approvalRule)).toEqual(['Bash(echo hi; sleep 1000)', `TaskStop(${id})`]);
    expect(isAlive(shell)).toBe(false);
  });

  test('an aborted batch stops the running command and its process group', async () => {
    fx.open({ interactions: approveAll() });
    const controller = new AbortController();
    let grandchild = 0;
    fx.agent.executor.onToolProgress((e) => {
      grandchild = Number(e.update.text);
      controller.abort();
    });
    const [result] = await fx.agent.executor.execute([{ id: 'x', name: 'Bash', arguments: { command: 'sleep 1000 & echo $!; wait' } }], {
      signal: controller.signal,
    });
    expect(result!.outcome).toBe('aborted');
    await waitFor(() => !isAlive(grandchild), { what: 'the grandchild is gone' });
  });

  test('a timeout above the maximum is rejected by validation', async () => {
    fx.open({ interactions: approveAll() });
    const [result] = await fx.agent.executor.execute([{ id: 'x', name: 'Bash', arguments: { command: 'ls', timeout: 301 } }]);
    expect(result!.outcome).toBe('rejected');
    expect(result!.output).toBe('Invalid args for tool "Bash": "timeout" must be <= 300');
  });
});
