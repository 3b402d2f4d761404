import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { IAgentTaskService } from '../../../src/tools/task/contract';
import { ToolAccesses } from '../../../src/tool/accesses';
import type { RunnableToolExecution, ToolResult, ToolUpdate } from '../../../src/tool/contract';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { waitFor } from '../../helpers/async';
import { ESCAPE_ROUTES, isAlive, killQuietly, readPidFile } from '../../helpers/processes';

const fx = useAgent({ builtins: true, tempDataDir: true });

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

/** Starts a background task through Bash and returns its id. */
async function start(command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const result = await callTool(fx.agent, 'Bash', { command, run_in_background: true, ...extra });
  expect(result.isError).toBeUndefined();
  return /^task_id: (bash-[0-9a-z]{8})$/m.exec(text(result))![1]!;
}

function tasks() {
  return fx.agent.get(IAgentTaskService);
}

async function call(name: string, input: Record<string, unknown>, onUpdate?: (u: ToolUpdate) => void, signal?: AbortSignal): Promise<ToolResult> {
  if (!onUpdate && !signal) return callTool(fx.agent, name, input);
  const execution = fx.agent.registry.get(name)!.tool.resolveExecution(input as never) as RunnableToolExecution;
  return execution.execute({ toolCallId: 'c', signal: signal ?? new AbortController().signal, onUpdate: onUpdate ?? (() => undefined), metadata: {} });
}

async function waitDone(id: string): Promise<void> {
  const result = await call('WaitFor', { task_ids: [id], timeout: 60 });
  expect(text(result)).toMatch(/^wait_status: completed/);
}

/** Polls TaskOutput until the task has printed `what`. */
async function outputOf(id: string, what: RegExp): Promise<string> {
  let out = '';
  await waitFor(async () => {
    out = text(await call('TaskOutput', { task_id: id }));
    return what.test(out);
  }, { what: `task ${id} to print ${what}` });
  return out;
}

describe('Bash run_in_background', () => {
  beforeEach(() => fx.open());

  test('starts the command as a task and returns its id at once', async () => {
    const result = await callTool(fx.agent, 'Bash', { command: 'echo started; sleep 1000', run_in_background: true, description: 'A long sleep' });
    const output = text(result);
    const id = /task_id: (\S+)/.exec(output)![1]!;
    const task = tasks().get(id)!;
    expect(output).toBe(
      [
        `task_id: ${id}`,
        'status: running',
        `pid: ${task.pid}`,
        'description: A long sleep',
        `cwd: ${fx.dir}`,
        'timeout: none (runs until it exits or is stopped)',
        `output_path: ${nodePath.join(fx.dataDir, 'tasks', `${id}.log`)}`,
        `<system>The command is running in the background. Read its output with TaskOutput(task_id="${id}"), wait for it with WaitFor, stop it with TaskStop. It is stopped when this agent ends.</system>`,
      ].join('\n'),
    );
    expect(task.status).toBe('running');
    await outputOf(id, /\[output\]\nstarted$/m);
  });

  test('its accesses add a write of the task list', () => {
    const execution = fx.agent.registry.get('Bash')!.tool.resolveExecution({ command: 'ls', run_in_background: true } as never) as RunnableToolExecution;
    expect(execution.accesses).toEqual([ToolAccesses.readTree(fx.dir), ToolAccesses.process(), ToolAccesses.writeState('tasks')]);
  });

  test('a task with a timeout is stopped when it passes', async () => {
    const id = await start('sleep 1000', { timeout: 1 });
    await waitDone(id);
    expect(tasks().get(id)).toMatchObject({ status: 'timed_out', stopReason: 'Timed out after 1 s', timeoutMs: 1000 });
  });
});

describe('TaskList', () => {
  beforeEach(() => fx.open());

  test('lists tasks with status, command, ISO start time and exit code', async () => {
    expect(text(await call('TaskList', {}))).toBe('No background tasks. Start one with Bash and run_in_background: true.');
    const done = await start('echo hi', { description: 'Say hi' });
    await waitDone(done);
    const failed = await start('exit 3');
    await waitDone(failed);
    const running = await start('sleep 1000', { description: 'Sleep' });
    const output = text(await call('TaskList', {}));
    const blocks = output.split('\n---\n');
    expect(blocks[0]).toBe('tasks: 3 (1 running, 2 finished)');
    expect(blocks[1]).toMatch(
      new RegExp(`^task_id: ${running}\nstatus: running\ndescription: Sleep\ncommand: sleep 1000\nstarted_at: ${ISO.source} \\(running for .+\\)\npid: \\d+\noutput_bytes: 0$`),
    );
    expect(blocks[2]).toMatch(
      new RegExp(
        `^task_id: ${failed}\nstatus: failed \\(exit code 3\\)\ndescription: exit 3\ncommand: exit 3\nstarted_at: ${ISO.source}\nended_at: ${ISO.source} \\(ran .+\\)\nexit_code: 3\noutput_bytes: 0$`,
      ),
    );
    expect(blocks[3]).toMatch(new RegExp(`^task_id: ${done}\nstatus: completed \\(exit code 0\\)\ndescription: Say hi\n(.|\n)*exit_code: 0\noutput_bytes: 3$`));
    const active = text(await call('TaskList', { active_only: true }));
    expect(active.split('\n---\n')).toHaveLength(2);
    expect(text(await call('TaskList', { limit: 1 }))).toMatch(/^tasks: 3 \(1 running, 2 finished\); showing 1, raise limit to see more\n---\ntask_id: /);
  });

  test('declares a read of the task state only', () => {
    const execution = fx.agent.registry.get('TaskList')!.tool.resolveExecution({} as never) as RunnableToolExecution;
    expect(execution.accesses).toEqual([ToolAccesses.readState('tasks')]);
    expect(ToolAccesses.conflict(execution.accesses!, [ToolAccesses.readTree(fx.dir)])).toBe(false);
    expect(ToolAccesses.isReadOnly(execution.accesses!)).toBe(true);
  });
});

describe('TaskOutput', () => {
  beforeEach(() => fx.open({ config: { tasks: { outputChars: 1000 } } }));

  test('returns the latest output by default, the last lines, or pages from an offset', async () => {
    const id = await start('seq 1 1000');
    await waitDone(id);
    const full = Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join('');
    const total = Buffer.byteLength(full);

    const latest = text(await call('TaskOutput', { task_id: id }));
    const body = latest.slice(latest.indexOf('[output]\n') + 9, latest.indexOf('\n<system>'));
    expect(full.endsWith(body + '\n')).toBe(true);
    expect(body.length).toBe(999);
    expect(latest).toMatch(new RegExp(`^task_id: ${id}\nstatus: completed \\(exit code 0\\)\noutput_bytes: 3,893\nshown: bytes 2,893-3,893\nnext_offset: 3893\noutput_path: \\S+\\.log\n\\[output\\]\n`));
    expect(latest).toMatch(/<system>Earlier output \(bytes 0-2,893\) is not shown; pass offset=0 to read from the start, or Read the output_path\.<\/system>$/);

    expect(text(await call('TaskOutput', { task_id: id, tail_lines: 3 }))).toContain('[output]\n998\n999\n1000\n<system>');

    // Paging from 0 with next_offset visits every byte once; each page shows exactly its range.
    let offset = 0;
    const ranges: [number, number][] = [];
    for (let page = 0; page < 10 && offset < total; page++) {
      const out = text(await call('TaskOutput', { task_id: id, offset }));
      const [, start, end] = /shown: bytes ([\d,]+)-([\d,]+)/.exec(out)!.map((n) => Number(n.replace(/,/g, '')));
      const shown = out.slice(out.indexOf('[output]\n') + 9).replace(/\n<system>[^]*$/, '');
      expect(shown).toBe(full.slice(start, end).replace(/\n$/, ''));
      ranges.push([start!, end!]);
      offset = Number(/next_offset: (\d+)/.exec(out)![1]);
      expect(offset).toBe(end);
    }
    expect(ranges).toEqual([
      [0, 1000],
      [1000, 2000],
      [2000, 3000],
      [3000, 3893],
    ]);
  });

  test('a running task returns what it printed so far and says how to get more', async () => {
    const id = await start('echo first; sleep 1000');
    const out = await outputOf(id, /\[output\]\nfirst\n/);
    expect(out).toMatch(/status: running\n/);
    expect(out).toContain('<system>The task is still running. For new output only, call again with offset=6; to wait for it to finish, use WaitFor.</system>');
    const next = text(await call('TaskOutput', { task_id: id, offset: 6 }));
    expect(next).toContain('[output]\n[nothing in this range]\n');
  });

  test('offset and tail_lines together, and unknown ids, are errors', async () => {
    const id = await start('true');
    expect(await callTool(fx.agent, 'TaskOutput', { task_id: id, offset: 0, tail_lines: 2 })).toMatchObject({ isError: true, output: expect.stringContaining('Pass either offset or tail_lines') });
    expect(await callTool(fx.agent, 'TaskOutput', { task_id: 'bash-nope' })).toEqual({
      isError: true,
      output: `Task not found: "bash-nope". Its tasks are: ${id}. TaskList lists them.`,
    });
  });

  test('declares a read of that task only', async () => {
    const id = await start('true');
    const execution = fx.agent.registry.get('TaskOutput')!.tool.resolveExecution({ task_id: id } as never) as RunnableToolExecution;
    expect(execution.accesses).toEqual([ToolAccesses.readState(`tasks/${id}`)]);
    expect(execution.display).toEqual({ kind: 'task', task_id: id, status: expect.any(String), description: 'true', task_kind: 'process' });
    expect(execution.approvalRule).toBe(`TaskOutput(${id})`);
  });
});

describe('TaskStop', () => {
  beforeEach(() => fx.open({ config: { bash: { killGraceMs: 500 } } }));

  test('kills the whole process group of the task', async () => {
    const id = await start('sleep 1000 & echo $!; wait');
    const grandchild = Number(/\[output\]\n(\d+)/.exec(await outputOf(id, /\[output\]\n\d+\n/))![1]);
    const shell = tasks().get(id)!.pid!;
    const result = text(await call('TaskStop', { task_id: id, reason: 'not needed' }));
    expect(result).toMatch(new RegExp(`^task_id: ${id}\nstatus: killed\n`));
    expect(result).toContain('stop_reason: not needed\n');
    expect(result).toContain('<system>Stopped: SIGTERM to its process group.</system>');
    expect(result).toContain(`[last output]\n${grandchild}`);
    expect(isAlive(grandchild)).toBe(false);
    expect(isAlive(shell)).toBe(false);
  });

  test('escalates to SIGKILL for a task that ignores SIGTERM', async () => {
    const id = await start("trap '' TERM; echo ready; while true; do sleep 0.1; done");
    await outputOf(id, /ready/);
    const result = text(await call('TaskStop', { task_id: id }));
    expect(result).toContain('stop_reason: Stopped with TaskStop\n');
    expect(result).toContain('<system>Stopped: SIGTERM to its process group, then SIGKILL because it was still running 500 ms later.</system>');
    expect(isAlive(tasks().get(id)!.pid!)).toBe(false);
  });

  test('a task that already ended is reported, not an error', async () => {
    const id = await start('echo bye');
    await waitDone(id);
    const result = await call('TaskStop', { task_id: id });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toMatch(/status: completed \(exit code 0\)\n[^]*<system>The task had already ended \(completed\); nothing was stopped\.<\/system>$/);
  });

  test('declares a write of that task and shows a task_stop display', async () => {
    const id = await start('sleep 1000', { description: 'Sleeper' });
    const execution = fx.agent.registry.get('TaskStop')!.tool.resolveExecution({ task_id: id } as never) as RunnableToolExecution;
    expect(execution.accesses).toEqual([ToolAccesses.writeState(`tasks/${id}`), ToolAccesses.process()]);
    expect(execution.display).toEqual({ kind: 'task_stop', task_id: id, task_description: 'Sleeper' });
    const output = fx.agent.registry.get('TaskOutput')!.tool.resolveExecution({ task_id: id } as never) as RunnableToolExecution;
    expect(ToolAccesses.conflict(execution.accesses!, output.accesses!)).toBe(true);
    expect(ToolAccesses.conflict(execution.accesses!, [ToolAccesses.readState('tasks/bash-other123')])).toBe(false);
  });
});

describe('WaitFor', () => {
  beforeEach(() => fx.open());

  test('mode any returns when the first task ends and reports every task', async () => {
    const quick = await start('echo quick-done');
    const slow = await start('sleep 1000');
    const updates: ToolUpdate[] = [];
    const result = text(await call('WaitFor', { task_ids: [slow, quick], mode: 'any', timeout: 60 }, (u) => updates.push(u)));
    expect(result).toMatch(/^wait_status: completed\nwaited: .+\ntasks: 1 ended, 1 still running\n---\n/);
    expect(result).toContain(`task_id: ${quick}\nstatus: completed (exit code 0)`);
    expect(result).toContain('[last output]\nquick-done\n');
    expect(result).toContain(`task_id: ${slow}\nstatus: running`);
    expect(result).toMatch(/<system>TaskOutput returns a task's whole output\.<\/system>$/);
    expect(tasks().get(slow)!.status).toBe('running');
  });

  test('mode all with a timeout returns timed_out, and the tasks keep running', async () => {
    const slow = await start('sleep 1000');
    const result = await call('WaitFor', { task_ids: [slow], timeout: 1 });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toMatch(/^wait_status: timed_out\nwaited: .+ \(the timeout of 1 s\)\ntasks: 0 ended, 1 still running\n/);
    expect(text(result)).toContain('A timeout is not an error: the tasks still running keep running.');
    expect(tasks().get(slow)!.status).toBe('running');
  });

  test('without ids it waits for every running task', async () => {
    const a = await start('sleep 0.2; echo a');
    const b = await start('sleep 0.4; echo b');
    const updates: ToolUpdate[] = [];
    const result = text(await call('WaitFor', { timeout: 60 }, (u) => updates.push(u)));
    expect(result).toMatch(/^wait_status: completed\n.*\ntasks: 2 ended, 0 still running\n/);
    expect(tasks().get(a)!.status).toBe('completed');
    expect(tasks().get(b)!.status).toBe('completed');
    expect(updates.map((u) => u.kind)).toEqual(['status', 'status']);
    expect(updates[1]).toMatchObject({ progress: 2, total: 2 });
  });

  test('with nothing running it returns at once', async () => {
    expect(text(await call('WaitFor', {}))).toBe('wait_status: no_tasks\n<system>No background task is running, so there is nothing to wait for.</system>');
  });

  test('an abort ends the wait and leaves the tasks running', async () => {
    const slow = await start('sleep 1000');
    const controller = new AbortController();
    const pending = call('WaitFor', { task_ids: [slow], timeout: 600 }, undefined, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ isError: true, output: 'WaitFor was interrupted; the tasks keep running. TaskList shows their state.' });
    expect(tasks().get(slow)!.status).toBe('running');
  });

  test('unknown ids and a timeout above the maximum are errors', async () => {
    expect(await callTool(fx.agent, 'WaitFor', { task_ids: ['bash-missing1'] })).toEqual({
      isError: true,
      output: 'Task not found: "bash-missing1". This agent has no background tasks. TaskList lists them.',
    });
    expect(text(await callTool(fx.agent, 'WaitFor', { timeout: 601 }))).toBe(
      'timeout must be a whole number of seconds from 1 to 600; got 601. To wait longer, call WaitFor again after it returns.',
    );
    expect(fx.agent.registry.get('WaitFor')!.tool.parameters).toMatchObject({ properties: { timeout: { maximum: 600 } } });
  });

  test('declares reads of task state', async () => {
    const id = await start('sleep 1000');
    const one = fx.agent.registry.get('WaitFor')!.tool.resolveExecution({ task_ids: [id] } as never) as RunnableToolExecution;
    expect(one.accesses).toEqual([ToolAccesses.readState(`tasks/${id}`)]);
    const all = fx.agent.registry.get('WaitFor')!.tool.resolveExecution({} as never) as RunnableToolExecution;
    expect(all.accesses).toEqual([ToolAccesses.readState('tasks')]);
  });
});

describe('processes that leave the task\'s process group are stopped with it', () => {
  let escapee = 0;
  afterEach(() => {
    if (escapee) killQuietly(escapee);
    escapee = 0;
  });
  const pidFile = () => nodePath.join(fx.dir, 'esc.pid');

  describe.each(ESCAPE_ROUTES)('%s', (_route, escape) => {
    test('by TaskStop', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      const id = await start(`${escape}\nsleep 100`);
      escapee = await readPidFile(pidFile());
      expect(isAlive(escapee)).toBe(true);
      expect(text(await call('TaskStop', { task_id: id }))).toMatch(new RegExp(`^task_id: ${id}\nstatus: killed\n`));
      expect(isAlive(escapee)).toBe(false);
    });

    test('when the agent is disposed', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      const id = await start(`${escape}\nsleep 100`);
      escapee = await readPidFile(pidFile());
      const service = tasks();
      await fx.agent.dispose();
      expect(service.get(id)).toMatchObject({ status: 'killed', stopReason: 'The agent ended' });
      expect(isAlive(escapee)).toBe(false);
    });

    test('when the task\'s shell exits', async () => {
      fx.open({ config: { bash: { killGraceMs: 300 } } });
      const id = await start(`${escape}\nwhile [ ! -s esc.pid ]; do sleep 0.01; done`);
      escapee = await readPidFile(pidFile());
      await waitDone(id);
      expect(isAlive(escapee)).toBe(false);
    });
  });
});

describe('the task service', () => {
  test('caps running tasks with a clear error, and frees the slot when one ends', async () => {
    fx.open({ config: { tasks: { maxRunning: 2 } } });
    const first = await start('sleep 1000');
    await start('sleep 1000');
    const refused = await callTool(fx.agent, 'Bash', { command: 'sleep 1000', run_in_background: true });
    expect(refused).toEqual({
      isError: true,
      output:
        'Too many background tasks are running (2 of 2; config tasks.maxRunning). Wait for one to finish with WaitFor, or stop one you no longer need with TaskStop; TaskList shows them.',
    });
    await call('TaskStop', { task_id: first });
    await start('sleep 1000');
  });

  test('stops every task, process groups included, when the agent is disposed', async () => {
    fx.open();
    const id = await start('sleep 1000 & echo $!; wait');
    const grandchild = Number(/\[output\]\n(\d+)/.exec(await outputOf(id, /\[output\]\n\d+\n/))![1]);
    const shell = tasks().get(id)!.pid!;
    const service = tasks();
    await fx.agent.dispose();
    expect(service.get(id)).toMatchObject({ status: 'killed', stopReason: 'The agent ended' });
    expect(isAlive(shell)).toBe(false);
    expect(isAlive(grandchild)).toBe(false);
    expect(() => service.startProcess({ command: 'true', cwd: fx.dir, description: 'x', env: process.env })).toThrow('The agent has ended');
  });

  test('keeps the whole output in its log file, in arrival order', async () => {
    fx.open();
    const id = await start('echo out; sleep 0.2; echo err >&2; sleep 0.2; echo out2');
    await waitDone(id);
    const task = tasks().get(id)!;
    expect(fs.readFileSync(task.outputPath, 'utf8')).toBe('out\nerr\nout2\n');
    expect(task.outputBytes).toBe(13);
  });

  test('a task whose cwd vanished reports it', async () => {
    fx.open();
    fs.mkdirSync(nodePath.join(fx.dir, 'gone'));
    const execution = fx.agent.registry.get('Bash')!.tool.resolveExecution({ command: 'ls', cwd: 'gone', run_in_background: true } as never) as RunnableToolExecution;
    fs.rmdirSync(nodePath.join(fx.dir, 'gone'));
    expect(await execution.execute({ toolCallId: 'c', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} })).toEqual({
      isError: true,
      output: `The working directory "${fx.dir}/gone" does not exist. Create it first, or pass an existing directory as cwd.`,
    });
  });
});
