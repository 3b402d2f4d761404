import { inject, injectable, optional } from 'inversify';
import { formatCount, formatDuration } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import type { TasksConfig } from '../taskConfig';
import { IAgentTaskNotifications, IAgentTaskService, type TaskInfo } from '../contract';
import { type ToolAccess, ToolAccesses } from '../../../tool/accesses';
import {
  type ExecutableTool,
  type JsonSchema,
  type ToolAnnotations,
  type ToolExecution,
  type ToolExecutionContext,
  type ToolResult,
  toolError,
} from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchTextRule } from '../../../tool/ruleMatch';
import { lastLines, taskLines, taskNotFound } from '../taskFormat';
import { createWaitForInputSchema, type WaitForInput, WAIT_FOR_SAMPLES } from './waitFor';
import { tasksConfig } from '../taskConfig';

const PREVIEW_LINES = 20;
const PREVIEW_CHARS = 2_000;

const schemaCache = new Map<string, JsonSchema>();
function parametersFor(config: TasksConfig): JsonSchema {
  const limits = { defaultTimeoutS: Math.min(config.waitDefaultTimeoutS, config.waitMaxTimeoutS), maxTimeoutS: config.waitMaxTimeoutS };
  const key = `${limits.defaultTimeoutS}/${limits.maxTimeoutS}`;
  let schema = schemaCache.get(key);
  if (!schema) {
    schema = toInputJsonSchema(createWaitForInputSchema(limits));
    schemaCache.set(key, schema);
  }
  return schema;
}

@injectable()
export class WaitForTool implements ExecutableTool<WaitForInput> {
  readonly name = 'WaitFor';
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentTaskService) private readonly tasks: IAgentTaskService,
    @inject(IAgentTaskNotifications) @optional() private readonly notifications: IAgentTaskNotifications | undefined,
  ) {}

  get parameters(): JsonSchema {
    return parametersFor(this.config.section(tasksConfig));
  }

  get description(): string {
    const tasks = this.config.section(tasksConfig);
    return renderPrompt(loadDescriptionTemplate(__dirname, 'waitFor.md'), {
      DEFAULT_TIMEOUT_S: Math.min(tasks.waitDefaultTimeoutS, tasks.waitMaxTimeoutS),
      MAX_TIMEOUT_S: tasks.waitMaxTimeoutS,
    });
  }

  resolveExecution(input: WaitForInput): ToolExecution {
    const config = this.config.section(tasksConfig);
    const maxS = config.waitMaxTimeoutS;
    if (input.timeout !== undefined && (!Number.isInteger(input.timeout) || input.timeout < 1 || input.timeout > maxS)) {
      return toolError(`timeout must be a whole number of seconds from 1 to ${maxS}; got ${input.timeout}. To wait longer, call WaitFor again after it returns.`);
    }
    const ids = input.task_ids ? [...new Set(input.task_ids.map((id) => id.trim()))] : undefined;
    const known = this.tasks.list();
    for (const id of ids ?? []) {
      if (!this.tasks.get(id)) return toolError(taskNotFound(id, known));
    }
    const timeoutS = input.timeout ?? Math.min(config.waitDefaultTimeoutS, maxS);
    const mode = input.mode ?? 'all';
    const accesses: ToolAccess[] = ids ? ids.map((id) => ToolAccesses.readState(`tasks/${id}`)) : [ToolAccesses.readState('tasks')];
    const single = ids?.length === 1 ? this.tasks.get(ids[0]!) : undefined;
    const subject = ids ? ids.join(' ') : 'running';
    return {
      accesses,
      display: single
        ? { kind: 'task', task_id: single.id, status: single.status, description: single.description, task_kind: single.kind }
        : { kind: 'generic', summary: ids ? `Wait for ${mode} of ${ids.length} tasks` : 'Wait for the running tasks' },
      description: single ? `Waiting for ${single.id} (${single.description})` : ids ? `Waiting for ${mode} of ${ids.length} tasks` : 'Waiting for the running tasks',
      approvalRule: literalRule('WaitFor', subject),
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, subject),
      execute: (ctx) => this.wait(ids, mode, timeoutS, ctx),
    };
  }

  private async wait(ids: readonly string[] | undefined, mode: 'all' | 'any', timeoutS: number, ctx: ToolExecutionContext): Promise<ToolResult> {
    const targets = ids ?? this.tasks.list().filter((t) => t.status === 'running').map((t) => t.id);
    if (targets.length === 0) return { output: 'wait_status: no_tasks\n<system>No background task is running, so there is nothing to wait for.</system>' };
    const started = Date.now();
    const remaining = new Set(targets.filter((id) => this.tasks.get(id)?.status === 'running'));
    const subscription = this.tasks.onDidChangeTask((task) => {
      if (task.status === 'running' || !remaining.delete(task.id)) return;
      try {
        ctx.onUpdate({ kind: 'status', text: `${task.id} ${task.status}; ${remaining.size} still running`, progress: targets.length - remaining.size, total: targets.length });
      } catch {
        // A failing progress listener must not end the wait.
      }
    });
    let result;
    try {
      result = await this.tasks.wait(targets, { mode, timeoutMs: timeoutS * 1000, signal: ctx.signal });
    } finally {
      subscription.dispose();
    }
    if (result.aborted) return toolError('WaitFor was interrupted; the tasks keep running. TaskList shows their state.');
    // This result shows how they ended: no completion notice for them later.
    this.notifications?.markReported(result.tasks.filter((t) => t.status !== 'running').map((t) => t.id));
    return { output: await this.report(result.tasks, result.timedOut, Date.now() - started, timeoutS) };
  }

  private async report(tasks: readonly TaskInfo[], timedOut: boolean, waitedMs: number, timeoutS: number): Promise<string> {
    const finished = tasks.filter((t) => t.status !== 'running');
    const running = tasks.filter((t) => t.status === 'running');
    const perTaskChars = Math.max(200, Math.min(PREVIEW_CHARS, Math.floor(this.config.section(tasksConfig).outputChars / Math.max(1, tasks.length))));
    const lines = [
      `wait_status: ${timedOut ? 'timed_out' : 'completed'}`,
      `waited: ${formatDuration(waitedMs)}${timedOut ? ` (the timeout of ${timeoutS} s)` : ''}`,
      `tasks: ${finished.length} ended, ${running.length} still running`,
    ];
    const now = Date.now();
    for (const task of [...finished, ...running]) {
      lines.push('---', ...taskLines(task, now));
      if (task.status !== 'running' && task.outputBytes > 0) {
        const preview = await this.preview(task.id, perTaskChars);
        if (preview) lines.push(`[last output${preview.complete ? '' : `, ${formatCount(task.outputBytes)} bytes in total`}]`, preview.text);
      }
    }
    const notes: string[] = [];
    if (timedOut) {
      notes.push('A timeout is not an error: the tasks still running keep running. Call WaitFor again to keep waiting, TaskOutput to check their progress, or TaskStop to stop them.');
    }
    notes.push('TaskOutput returns a task\'s whole output.');
    lines.push(`<system>${notes.join(' ')}</system>`);
    return lines.join('\n');
  }

  private async preview(id: string, maxChars: number): Promise<{ text: string; complete: boolean } | undefined> {
    try {
      const slice = await this.tasks.readOutput(id, { tailLines: PREVIEW_LINES, maxBytes: maxChars });
      const text = lastLines(slice.text, PREVIEW_LINES, maxChars);
      return text ? { text, complete: slice.start === 0 && text.length === slice.text.replace(/\n$/, '').length } : undefined;
    } catch {
      return undefined;
    }
  }
}

export const IWaitForTool = createServiceId<WaitForTool>('tool.WaitFor');
export const waitForTool = registerAgentToolService(IWaitForTool, WaitForTool, {
  name: 'WaitFor',
  domain: 'task',
  requiredRuntimeCapabilities: [],
  samples: WAIT_FOR_SAMPLES,
});
