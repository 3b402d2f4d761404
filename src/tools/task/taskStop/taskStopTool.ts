import { inject, injectable, optional } from 'inversify';
import { errorMessage } from '../../../base/errors';
import { formatDuration } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import { IAgentTaskNotifications, IAgentTaskService, type TaskInfo } from '../contract';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchTextRule } from '../../../tool/ruleMatch';
import { lastLines, taskLines, taskNotFound } from '../taskFormat';
import { type TaskStopInput, TaskStopInputSchema, TASK_STOP_SAMPLES } from './taskStop';
import { bashConfig } from '../../os/contract';

const PARAMETERS = toInputJsonSchema(TaskStopInputSchema);
const LAST_LINES = 20;
const LAST_CHARS = 2_000;

@injectable()
export class TaskStopTool implements ExecutableTool<TaskStopInput> {
  readonly name = 'TaskStop';
  readonly parameters: JsonSchema = PARAMETERS;
  // Stopping an already stopped task changes nothing more.
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentTaskService) private readonly tasks: IAgentTaskService,
    @inject(IAgentTaskNotifications) @optional() private readonly notifications: IAgentTaskNotifications | undefined,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'taskStop.md'), { KILL_GRACE: formatDuration(this.config.section(bashConfig).killGraceMs) });
  }

  resolveExecution(input: TaskStopInput): ToolExecution {
    const id = input.task_id.trim();
    const task = this.tasks.get(id);
    if (!task) return toolError(taskNotFound(id, this.tasks.list()));
    return {
      accesses: [ToolAccesses.writeState(`tasks/${id}`), ToolAccesses.process()],
      display: { kind: 'task_stop', task_id: id, task_description: task.description },
      description: `Stopping ${id} (${task.description})`,
      approvalRule: literalRule('TaskStop', id),
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, id) || matchTextRule(ruleArgs, task.command),
      execute: () => this.stop(id, input.reason?.trim() || 'Stopped with TaskStop'),
    };
  }

  private async stop(id: string, reason: string): Promise<ToolResult> {
    const before = this.tasks.get(id)!;
    if (before.status !== 'running') {
      return { output: [...taskLines(before), `<system>The task had already ended (${before.status}); nothing was stopped.</system>`].join('\n') };
    }
    // The model stopped it and reads how it ended here: no completion notice.
    this.notifications?.markReported([id]);
    let after: TaskInfo;
    try {
      after = await this.tasks.stop(id, reason);
    } catch (error) {
      return toolError(`Failed to stop task ${id}: ${errorMessage(error)}`);
    }
    const lines = taskLines(after);
    if (after.status === 'killed') {
      lines.push(`<system>Stopped: SIGTERM to its process group${after.forceKilled ? `, then SIGKILL because it was still running ${formatDuration(this.config.section(bashConfig).killGraceMs)} later` : ''}.</system>`);
    } else {
      lines.push(`<system>The task ended on its own (${after.status}) before it could be stopped.</system>`);
    }
    const tail = await this.tail(id);
    if (tail) lines.push('[last output]', tail);
    return { output: lines.join('\n') };
  }

  private async tail(id: string): Promise<string> {
    try {
      const slice = await this.tasks.readOutput(id, { tailLines: LAST_LINES, maxBytes: LAST_CHARS });
      return lastLines(slice.text, LAST_LINES, LAST_CHARS);
    } catch {
      return '';
    }
  }
}

export const ITaskStopTool = createServiceId<TaskStopTool>('tool.TaskStop');
export const taskStopTool = registerAgentToolService(ITaskStopTool, TaskStopTool, {
  name: 'TaskStop',
  domain: 'task',
  requiredRuntimeCapabilities: [],
  samples: TASK_STOP_SAMPLES,
});
