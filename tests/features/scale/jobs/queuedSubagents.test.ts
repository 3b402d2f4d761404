import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Container } from 'inversify';
import { IAgentPromptInjection, type PromptInjectionRequest } from '../../../../src/services/promptInjection/promptInjection';
import { IAgentSessionGrants } from '../../../../src/services/approval/toolApproval';
import { outputText } from '../../../../src/tool/contract';
import { IAgentTaskService, type TaskInfo } from '../../../../src/tools/task/contract';
import { callTool, type Harness, text, useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { type ChatCompletionsServer, completion, startChatCompletionsServer, toolCalls } from '../../../helpers/chatCompletionsServer';
import { runCliProcess, type StartedCli, startCliProcess } from '../../../helpers/cliProcess';
import { approveAll } from '../../../helpers/fakeHost';
import { killQuietly } from '../../../helpers/processes';
import { describeWithRedis, type RedisTestServer, startRedisServer } from '../../../helpers/redisServer';
import { makeTempDir, removeDir } from '../../../helpers/tempDir';

/** Short locks so a killed worker's job is noticed within about a second. */
const JOBS = { subagents: 'queue', lockDurationMs: 1000, stalledIntervalMs: 500 } as const;
/** Nothing answers here: a child the agent's own process ran would fail to reach its model. */
const UNREACHABLE_MODEL = 'http://127.0.0.1:9/v1';

jest.setTimeout(90_000);

describeWithRedis('background subagents and AgentSwarm items as BullMQ jobs on toolhost worker processes', () => {
  let redis: RedisTestServer;
  let url: string;
  let configDir: string;
  let model: ChatCompletionsServer;
  let prefixCount = 0;
  let keyPrefix = '';
  const workers: StartedCli[] = [];
  const fx = useAgent({ builtins: true, tempDataDir: true });

  beforeAll(async () => {
    redis = await startRedisServer();
    url = `unix://${redis.socket}`;
    configDir = makeTempDir('toolhost-worker-config-');
  });
  afterAll(async () => {
    await redis.stop();
    removeDir(configDir);
  });
  beforeEach(async () => {
    keyPrefix = `s${++prefixCount}:`;
    model = await startChatCompletionsServer();
    // The workers' toolhost.json: the agents' scale section, and the runner they run children with.
    fs.writeFileSync(nodePath.join(configDir, 'toolhost.json'), JSON.stringify({ scale: { redis: { url, keyPrefix }, jobs: JOBS }, subagentRunner: { type: 'openai', baseUrl: model.baseUrl, model: 'local-model', maxRetries: 0 } }));
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) {
      if (worker.child.pid !== undefined) killQuietly(worker.child.pid);
      await worker.exit;
    }
    await model.close();
  });

  async function startWorker(concurrency = 2): Promise<StartedCli> {
    const worker = startCliProcess(['worker', '--config', nodePath.join(configDir, 'toolhost.json'), '--concurrency', String(concurrency)], { cwd: configDir });
    workers.push(worker);
    await waitFor(() => /taking background tasks and subagents/.test(worker.stderr()) || worker.child.exitCode !== null, { what: 'the worker to take jobs', timeoutMs: 15_000 });
    if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.stderr()}`);
    return worker;
  }

  /** An instance of agent `agent-1` on the shared Redis. Its own runner points nowhere: only a worker can run a child. */
  function instance(overrides?: (container: Container) => void): Harness {
    return fx.open({
      id: 'agent-1',
      interactions: approveAll(),
      ...(overrides ? { overrides } : {}),
      config: { scale: { redis: { url, keyPrefix }, jobs: JOBS }, subagentRunner: { type: 'openai', baseUrl: UNREACHABLE_MODEL, model: 'local-model', maxRetries: 0 } },
    });
  }

  const tasksOf = (harness: Harness) => harness.agent.get(IAgentTaskService);

  async function startChild(harness: Harness, args: Record<string, unknown>): Promise<{ taskId: string; agentId: string }> {
    const result = await callTool(harness.agent, 'Agent', { description: 'Work in the background', run_in_background: true, ...args });
    const shown = text(result);
    expect(result.isError).toBeUndefined();
    return { taskId: /^task_id: (agent-task-[0-9a-z]{8})$/m.exec(shown)![1]!, agentId: /^agent_id: (agent-[0-9a-z]{8})$/m.exec(shown)![1]! };
  }

  async function seen(harness: Harness, id: string, until: (task: TaskInfo) => boolean, timeoutMs = 20_000): Promise<TaskInfo> {
    let task: TaskInfo | undefined;
    await waitFor(
      () => {
        task = tasksOf(harness).get(id);
        return task !== undefined && until(task);
      },
      { what: `task ${id} as wanted`, timeoutMs },
    );
    return task!;
  }

  test('Agent run_in_background runs the child on a worker: its Read, its output and result reach another instance', async () => {
    await startWorker();
    fs.writeFileSync(nodePath.join(fx.dir, 'notes.txt'), 'the answer is 42\n');
    model.reply(toolCalls([{ id: 'call_read', name: 'Read', args: { path: 'notes.txt' } }]), completion('notes.txt says 42'));
    const a = instance();
    const b = instance();
    const { taskId, agentId } = await startChild(a, { prompt: 'What does notes.txt say?', subagent_type: 'explore' });
    // a's refresh waits until its record is written; then b reads it.
    await tasksOf(a).refresh();
    await tasksOf(b).refresh();
    expect(tasksOf(b).get(taskId)).toMatchObject({ kind: 'agent', agentId, command: 'Agent explore' });
    const waited = text(await callTool(b.agent, 'WaitFor', { task_ids: [taskId], timeout: 60 }));
    expect(waited).toMatch(/^wait_status: completed/);
    const output = text(await callTool(b.agent, 'TaskOutput', { task_id: taskId }));
    expect(output).toContain('[turn 1]\n[turn 2]\n');
    expect(output).toContain(`agent_id: ${agentId}\nsubagent_type: explore\nstatus: completed\nturns: 2\n`);
    expect(output).toContain('<agent_result>\nnotes.txt says 42\n</agent_result>');
    // The child's Read ran on the worker, in the workspace at the same path.
    expect(String(model.requests[1]!.body.messages.find((m) => m.role === 'tool')!.content)).toContain('the answer is 42');
    expect(text(await callTool(b.agent, 'TaskList', {}))).toContain(taskId);
    await seen(a, taskId, (t) => t.status === 'completed');
  });

  test('a queued child that ends is reported to the agent that started it (completion notice with its result)', async () => {
    await startWorker();
    const notices: PromptInjectionRequest[] = [];
    const a = instance((c) => c.rebind(IAgentPromptInjection).toConstantValue({ enqueue: (request: PromptInjectionRequest) => (notices.push(request), 'queued' as const) }));
    model.reply(completion('all done'));
    const { taskId, agentId } = await startChild(a, { prompt: 'Do it', subagent_type: 'explore' });
    expect(text(await callTool(a.agent, 'TaskList', {}))).toContain(taskId);
    await waitFor(() => notices.length > 0, { what: 'the completion notice', timeoutMs: 30_000 });
    expect(notices[0]).toMatchObject({ origin: 'task', key: taskId });
    expect(notices[0]!.text).toContain('Title: Background agent completed');
    expect(notices[0]!.text).toContain(`agent_id="${agentId}"`);
    expect(notices[0]!.text).toContain('all done');
  });

  test('a call that would ask is denied on the worker with the reason; a rule the parent granted for the session lets it run', async () => {
    await startWorker();
    const a = instance();
    model.reply(toolCalls([{ id: 'call_write', name: 'Write', args: { path: 'denied.txt', content: 'no' } }]), completion('could not write'));
    const denied = await startChild(a, { prompt: 'Write denied.txt', subagent_type: 'general' });
    await tasksOf(a).wait([denied.taskId], { mode: 'all', timeoutMs: 60_000 });
    const refusal = String(model.requests[1]!.body.messages.find((m) => m.role === 'tool')!.content);
    expect(refusal).toContain('it needs approval and there is no one to approve it');
    expect(refusal).toContain('this subagent runs on a toolhost worker, where no user can answer');
    expect(fs.existsSync(nodePath.join(fx.dir, 'denied.txt'))).toBe(false);

    a.agent.get(IAgentSessionGrants).add('Write');
    model.reply(toolCalls([{ id: 'call_write', name: 'Write', args: { path: 'granted.txt', content: 'yes' } }]), completion('wrote it'));
    const granted = await startChild(a, { prompt: 'Write granted.txt', subagent_type: 'general' });
    const ended = (await tasksOf(a).wait([granted.taskId], { mode: 'all', timeoutMs: 60_000 })).tasks[0]!;
    expect(ended.status).toBe('completed');
    expect(fs.readFileSync(nodePath.join(fx.dir, 'granted.txt'), 'utf8')).toBe('yes');
  });

  test('TaskStop from another instance aborts the child on its worker', async () => {
    await startWorker();
    model.reply({ type: 'stall' });
    const a = instance();
    const b = instance();
    const { taskId } = await startChild(a, { prompt: 'Think for a long time', subagent_type: 'explore' });
    await model.requestsArrived(1);
    await tasksOf(a).refresh();
    await tasksOf(b).refresh();
    const stopped = text(await callTool(b.agent, 'TaskStop', { task_id: taskId, reason: 'not needed' }));
    expect(stopped).toMatch(/killed/);
    expect(tasksOf(b).get(taskId)).toMatchObject({ status: 'killed', stopReason: 'not needed' });
    // The worker's runner gave up its model request.
    await waitFor(() => model.abandoned === 1, { what: 'the model request to be abandoned' });
    await seen(a, taskId, (t) => t.status === 'killed');
  });

  test('resume continues a queued child with the conversation its worker reported', async () => {
    await startWorker();
    const a = instance();
    model.reply(completion('first answer'));
    const first = await startChild(a, { prompt: 'First question', subagent_type: 'explore' });
    await tasksOf(a).wait([first.taskId], { mode: 'all', timeoutMs: 60_000 });
    model.reply(completion('second answer'));
    const second = await startChild(a, { prompt: 'Second question', resume: first.agentId });
    expect(second.agentId).toBe(first.agentId);
    await tasksOf(a).wait([second.taskId], { mode: 'all', timeoutMs: 60_000 });
    const messages = model.requests[1]!.body.messages.map((m) => `${String(m.role)}: ${String(m.content)}`);
    expect(messages.slice(-3)).toEqual(['user: First question', 'assistant: first answer', 'user: Second question']);
  });

  test('isolation "worktree" is refused in queue mode with what to do instead', async () => {
    const a = instance();
    execFileSync('git', ['init', '-q'], { cwd: fx.dir });
    const result = await callTool(a.agent, 'Agent', { description: 'Isolated', prompt: 'x', subagent_type: 'general', run_in_background: true, isolation: 'worktree' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'isolation "worktree" is not available while subagents run on toolhost workers (scale.jobs.subagents "queue"): leave isolation out, or set scale.jobs.subagents to "local" to run them in this process.',
    );
    const swarm = await callTool(a.agent, 'AgentSwarm', { description: 'Isolated', prompt_template: 'Do {{item}}', items: ['a'], subagent_type: 'general', isolation: 'worktree' });
    expect(text(swarm)).toContain('isolation "worktree" is not available while subagents run on toolhost workers');
  });

  test('a worker killed (SIGKILL) mid-run: the child\'s task fails with the reason and never runs again', async () => {
    const doomed = await startWorker(1);
    model.reply({ type: 'stall' });
    const a = instance();
    const { taskId } = await startChild(a, { prompt: 'Long work', subagent_type: 'explore' });
    await model.requestsArrived(1);
    await seen(a, taskId, (t) => t.status === 'running');
    process.kill(doomed.child.pid!, 'SIGKILL');
    await doomed.exit;
    // Another worker notices the expired lock.
    await startWorker(1);
    const ended = await seen(a, taskId, (t) => t.status !== 'running', 30_000);
    expect(ended.status).toBe('failed');
    expect(ended.stopReason).toMatch(/^The worker running it was lost \(killed or crashed\) before the subagent ended; it is not run again/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(model.requests).toHaveLength(1);
  });

  test('AgentSwarm queues each item as a job: every item runs on a worker, a failed item does not fail the swarm, items are not listed as tasks', async () => {
    await startWorker(2);
    await startWorker(2);
    model.reply(completion('found it'), { type: 'error', status: 400, message: 'model overloaded' }, completion('found it'));
    const a = instance();
    const result = await a.call('AgentSwarm', { description: 'Look at each', prompt_template: 'Look at {{item}}', items: ['a.ts', 'b.ts', 'c.ts'], subagent_type: 'explore', max_concurrency: 1 });
    const shown = outputText(result.output);
    expect(shown).toMatch(/^swarm: 3 items — 2 completed, 1 failed, 0 aborted$/m);
    expect(shown).toContain('model overloaded');
    expect(model.requests.map((r) => r.body.messages.at(-1)!.content)).toEqual(['Look at a.ts', 'Look at b.ts', 'Look at c.ts']);
    await tasksOf(a).refresh();
    expect(tasksOf(a).list()).toEqual([]);
  });

  test('a worker for subagents refuses a --redis other than the agents\' scale.redis.url (their state lives there)', async () => {
    const run = await runCliProcess(['worker', '--config', nodePath.join(configDir, 'toolhost.json'), '--redis', 'redis://127.0.0.1:1'], { cwd: configDir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--redis redis://127.0.0.1:1 differs from scale.redis.url in');
    expect(run.stderr).toContain('set scale.redis.url there instead');
  });

  test('aborting AgentSwarm cancels its queued and running items', async () => {
    await startWorker(1);
    model.reply({ type: 'stall' });
    const a = instance();
    const controller = new AbortController();
    const call = a.call('AgentSwarm', { description: 'Look at each', prompt_template: 'Look at {{item}}', items: ['a.ts', 'b.ts', 'c.ts'], subagent_type: 'explore', max_concurrency: 2 }, { signal: controller.signal });
    await model.requestsArrived(1);
    controller.abort();
    const result = await call;
    expect(outputText(result.output)).toMatch(/^swarm: 3 items — 0 completed, 0 failed, 3 aborted$/m);
    await waitFor(() => model.abandoned === 1, { what: 'the running item\'s model request to be abandoned' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // The second item was queued (concurrency 2, one worker slot) and never ran; the third never started.
    expect(model.requests).toHaveLength(1);
  });
});
