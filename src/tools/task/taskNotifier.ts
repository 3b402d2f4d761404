import { inject, injectable, preDestroy } from 'inversify';
import { DisposableStore } from '../../base/lifecycle';
import { formatCount, wrapInTag } from '../../base/strings';
import type { ServiceAccessor } from '../../di/toolContribution';
import { hasPromptInjection, IAgentPromptInjection } from '../../services/promptInjection/promptInjection';
import { IAgentServiceAccessor } from '../../services/toolActivation/toolActivation';
import { AGENT_ENDED_STOP_REASON } from './agentTaskService';
import { IAgentTaskService, type IAgentTaskNotifications, type TaskInfo } from './contract';
import { statusText } from './taskFormat';

/** The most of a task's output a notice carries (its tail); TaskOutput has the rest. */
export const NOTIFICATION_PREVIEW_BYTES = 3000;

/**
 * Reports background tasks that ended to the agent's model, through the host's prompt queue:
 * one delivery per task (origin `task`, key the task id, coalesced), so a notice that is still
 * waiting while the agent is busy is merged, never queued twice. The notice is sent a turn of the
 * event loop after the task ended, so a WaitFor that was waiting for it marks it reported first.
 */
@injectable()
export class TaskCompletionNotifier implements IAgentTaskNotifications {
  private readonly reported = new Set<string>();
  private readonly disposables = new DisposableStore();
  private disposed = false;
  private readonly tasks: IAgentTaskService | undefined;

  constructor(
    @inject(IAgentServiceAccessor) services: ServiceAccessor,
    @inject(IAgentPromptInjection) private readonly injection: IAgentPromptInjection,
  ) {
    // The injection is fixed for this service's life, so with none (every subagent, most hosts)
    // there is nothing to report and the task service is not made for it.
    if (!this.active) return;
    const tasks = services.get(IAgentTaskService);
    this.tasks = tasks;
    this.disposables.add(
      tasks.onDidChangeTask((task) => {
        if (task.status === 'running') return;
        setImmediate(() => void this.notify(task));
      }),
    );
  }

  get active(): boolean {
    return hasPromptInjection(this.injection);
  }

  markReported(taskIds: readonly string[]): void {
    for (const id of taskIds) this.reported.add(id);
  }

  private async notify(task: TaskInfo): Promise<void> {
    if (this.disposed || !this.tasks || this.reported.has(task.id) || task.stopReason === AGENT_ENDED_STOP_REASON) return;
    this.reported.add(task.id);
    let preview = '';
    try {
      preview = (await this.tasks.readOutput(task.id, { maxBytes: NOTIFICATION_PREVIEW_BYTES })).text;
    } catch {
      // The log is gone: the notice says how it ended without its output.
    }
    if (this.disposed) return;
    try {
      await this.injection.enqueue({ origin: 'task', key: task.id, text: notificationText(task, preview), coalesce: true });
    } catch {
      // The host's queue failed; TaskList and WaitFor still show the task.
    }
  }

  @preDestroy()
  dispose(): void {
    this.disposed = true;
    this.disposables.dispose();
  }
}

/** `<notification …>` with how the task ended and the tail of its output, escaped. */
export function notificationText(task: TaskInfo, preview: string): string {
  const kind = task.kind === 'agent' ? 'agent' : 'command';
  const ok = task.status === 'completed';
  const attrs = [
    `id="task:${task.id}:${task.status}"`,
    'category="task"',
    `type="task.${task.status}"`,
    'source_kind="background_task"',
    `source_id="${task.id}"`,
    ...(task.agentId !== undefined ? [`agent_id="${task.agentId}"`] : []),
  ].join(' ');
  const lines = [`Title: Background ${kind} ${task.status}`, `Severity: ${ok ? 'info' : 'warning'}`, `${task.description}: ${statusText(task)}.${task.stopReason !== undefined ? ` Reason: ${task.stopReason}` : ''}`];
  if (!ok && task.kind === 'agent' && task.agentId !== undefined) lines.push(`To continue it, call Agent with resume "${task.agentId}" and a prompt.`);
  const shownBytes = Buffer.byteLength(preview);
  const truncated = shownBytes < task.outputBytes;
  lines.push(
    wrapInTag('output-preview', preview.replace(/<\/notification/gi, '<\\/notification'), `bytes="${shownBytes}" total_bytes="${task.outputBytes}" truncated="${truncated}"`),
    truncated ? `The full output (${formatCount(task.outputBytes)} bytes): TaskOutput with task_id "${task.id}", or Read ${task.outputPath}.` : `TaskOutput with task_id "${task.id}" shows it again.`,
  );
  return wrapInTag('notification', lines.join('\n'), attrs);
}
