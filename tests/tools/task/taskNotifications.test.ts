import { IAgentPromptInjection, type PromptInjectionRequest, type PromptInjectionResult } from '../../../src/services/promptInjection/promptInjection';
import { outputText } from '../../../src/tool/contract';
import { ISubagentRunnerService } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner } from '../../../src/tools/agent/scriptedRunner';
import { IAgentTaskService } from '../../../src/tools/task/contract';
import { NOTIFICATION_PREVIEW_BYTES } from '../../../src/tools/task/taskNotifier';
import { type Harness, useAgent } from '../../helpers/agentHarness';
import { approveAll } from '../../helpers/fakeHost';

const fx = useAgent({ tempDataDir: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A host's prompt queue: records what it was given; while `busy`, a request with a waiting key merges into it. */
class RecordingQueue {
  readonly requests: PromptInjectionRequest[] = [];
  readonly waiting = new Map<string, PromptInjectionRequest>();
  busy = false;
  enqueue(request: PromptInjectionRequest): PromptInjectionResult {
    this.requests.push(request);
    const key = `${request.origin}\0${request.key}`;
    if (this.busy && request.coalesce && this.waiting.has(key)) {
      this.waiting.set(key, request);
      return 'coalesced';
    }
    if (this.busy) this.waiting.set(key, request);
    return 'queued';
  }
}

function open(queue?: RecordingQueue): Harness {
  return fx.open({ id: 'main', builtins: true, interactions: approveAll(), ...(queue ? { overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue(queue) } : {}) });
}

function taskIdOf(result: { output: unknown }): string {
  return /^task_id: (\S+)$/m.exec(outputText(result.output as never))![1]!;
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('automatic completion notifications of background tasks (through IAgentPromptInjection)', () => {
  test('a background Bash command that ends reaches the model: task id, status, description and its output, once', async () => {
    const queue = new RecordingQueue();
    const h = open(queue);
    const started = await h.call('Bash', { command: 'echo hello from the task; exit 3', run_in_background: true, description: 'say hello' });
    expect(outputText(started.output)).toContain('automatic_notification: true');
    const taskId = taskIdOf(started);
    await until(() => queue.requests.length === 1);
    const [request] = queue.requests;
    expect(request).toMatchObject({ origin: 'task', key: taskId, coalesce: true });
    expect(request!.text).toMatch(new RegExp(`^<notification id="task:${taskId}:failed" category="task" type="task.failed" source_kind="background_task" source_id="${taskId}">\n`));
    expect(request!.text).toContain('Title: Background command failed\nSeverity: warning\nsay hello: failed (exit code 3).');
    expect(request!.text).toContain('<output-preview bytes="20" total_bytes="20" truncated="false">\nhello from the task\n\n</output-preview>');
    await sleep(100);
    expect(queue.requests).toHaveLength(1);
  });

  test('a background Agent that completes reaches the parent with its agent id and result', async () => {
    const queue = new RecordingQueue();
    const h = open(queue);
    h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ turnDelayMs: 50, text: 'the child found it </notification> here' }));
    const started = await h.call('Agent', { description: 'Find it', prompt: 'find', subagent_type: 'explore', run_in_background: true });
    expect(outputText(started.output)).toContain('automatic_notification: true');
    const taskId = taskIdOf(started);
    const agentId = /^agent_id: (\S+)$/m.exec(outputText(started.output))![1]!;
    await until(() => queue.requests.length === 1);
    const text = queue.requests[0]!.text;
    expect(text).toContain(`source_id="${taskId}" agent_id="${agentId}">`);
    expect(text).toContain('Title: Background agent completed\nSeverity: info\nFind it: completed.');
    expect(text).toContain('<agent_result>\nthe child found it <\\/notification> here\n</agent_result>');
    // One closing tag: the child's text cannot end the notice early.
    expect(text.match(/<\/notification>/g)).toHaveLength(1);
  });

  test('a failed background Agent says how to continue it', async () => {
    const queue = new RecordingQueue();
    const h = open(queue);
    h.app.get(ISubagentRunnerService).bind(new ScriptedSubagentRunner({ fail: { error: 'the model gave up' } }));
    const started = await h.call('Agent', { description: 'Try it', prompt: 'try', subagent_type: 'explore', run_in_background: true });
    const agentId = /^agent_id: (\S+)$/m.exec(outputText(started.output))![1]!;
    await until(() => queue.requests.length === 1);
    expect(queue.requests[0]!.text).toContain(`Try it: failed. Reason: the model gave up\nTo continue it, call Agent with resume "${agentId}" and a prompt.`);
  });

  test('the summary is the capped tail of the output, and says where the rest is', async () => {
    const queue = new RecordingQueue();
    const h = open(queue);
    const started = await h.call('Bash', { command: 'for i in $(seq 1 2000); do echo "line $i"; done', run_in_background: true, description: 'count' });
    const taskId = taskIdOf(started);
    await until(() => queue.requests.length === 1);
    const text = queue.requests[0]!.text;
    const preview = /<output-preview bytes="(\d+)" total_bytes="(\d+)" truncated="true">\n([\s\S]*)\n<\/output-preview>/.exec(text)!;
    expect(Number(preview[1])).toBeLessThanOrEqual(NOTIFICATION_PREVIEW_BYTES);
    expect(Number(preview[2])).toBeGreaterThan(NOTIFICATION_PREVIEW_BYTES);
    expect(preview[3]).toMatch(/line 2000\n$/);
    expect(text).toContain(`TaskOutput with task_id "${taskId}"`);
  });

  test('no notice for a task WaitFor reported or TaskStop stopped', async () => {
    const queue = new RecordingQueue();
    const h = open(queue);
    const waited = taskIdOf(await h.call('Bash', { command: 'sleep 0.3; echo done', run_in_background: true, description: 'waited for' }));
    const stopped = taskIdOf(await h.call('Bash', { command: 'sleep 30', run_in_background: true, description: 'stopped' }));
    expect(outputText((await h.call('WaitFor', { task_ids: [waited], timeout: 30 })).output)).toContain('status: completed');
    expect((await h.call('TaskStop', { task_id: stopped })).isError).toBe(false);
    const control = taskIdOf(await h.call('Bash', { command: 'true', run_in_background: true, description: 'control' }));
    await until(() => queue.requests.length >= 1);
    await sleep(200);
    expect(queue.requests.map((r) => r.key)).toEqual([control]);
  });

  test('while the agent is busy, each ended task waits as one coalescing delivery keyed by its task id; tasks killed by the agent ending send none', async () => {
    const queue = new RecordingQueue();
    queue.busy = true;
    const h = open(queue);
    const first = taskIdOf(await h.call('Bash', { command: 'echo one', run_in_background: true, description: 'one' }));
    const second = taskIdOf(await h.call('Bash', { command: 'echo two', run_in_background: true, description: 'two' }));
    await until(() => queue.requests.length === 2);
    // One delivery waiting per task, each keyed by its task id.
    expect([...queue.waiting.values()].map((r) => r.key).sort()).toEqual([first, second].sort());
    const sleeper = taskIdOf(await h.call('Bash', { command: 'sleep 30', run_in_background: true, description: 'sleeper' }));
    await h.agent.dispose();
    await sleep(200);
    expect(queue.requests.map((r) => r.key)).not.toContain(sleeper);
  });

  test('without a host that takes prompts: no automatic_notification line and nothing sent', async () => {
    const h = open();
    const started = await h.call('Bash', { command: 'echo x', run_in_background: true, description: 'x' });
    expect(outputText(started.output)).not.toContain('automatic_notification');
    const taskId = taskIdOf(started);
    await until(() => h.agent.get(IAgentTaskService).get(taskId)!.status !== 'running');
  });
});
