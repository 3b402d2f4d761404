import { inject, injectable } from 'inversify';
import { errorMessage } from '../../../base/errors';
import { formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import { IAgentTaskService } from '../contract';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchTextRule } from '../../../tool/ruleMatch';
import { statusText, taskNotFound } from '../taskFormat';
import { type TaskOutputInput, TaskOutputInputSchema, TASK_OUTPUT_SAMPLES } from './taskOutput';
import { tasksConfig } from '../taskConfig';

const PARAMETERS = toInputJsonSchema(TaskOutputInputSchema);

@injectable()
export class TaskOutputTool implements ExecutableTool<TaskOutputInput> {
  readonly name = 'TaskOutput';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentTaskService) private readonly tasks: IAgentTaskService,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'taskOutput.md'), { OUTPUT_CHARS: formatCount(this.config.section(tasksConfig).outputChars) });
  }

  resolveExecution(input: TaskOutputInput): ToolExecution {
    const id = input.task_id.trim();
    const task = this.tasks.get(id);
    if (!task) return toolError(taskNotFound(id, this.tasks.list()));
    if (input.offset !== undefined && input.tail_lines !== undefined) {
      return toolError('Pass either offset or tail_lines, not both: offset reads forward from a byte position, tail_lines returns the last lines.');
    }
    return {
      accesses: [ToolAccesses.readState(`tasks/${id}`)],
      display: { kind: 'task', task_id: id, status: task.status, description: task.description, task_kind: task.kind },
      description: `Reading the output of ${id} (${task.description})`,
      approvalRule: literalRule('TaskOutput', id),
      matchesRule: (ruleArgs) => matchTextRule(ruleArgs, id),
      execute: () => this.read(id, input),
    };
  }

  private async read(id: string, input: TaskOutputInput): Promise<ToolResult> {
    const maxBytes = this.config.section(tasksConfig).outputChars;
    let slice;
    try {
      slice =
        input.offset !== undefined
          ? await this.tasks.readOutput(id, { offset: input.offset, maxBytes })
          : await this.tasks.readOutput(id, input.tail_lines !== undefined ? { tailLines: input.tail_lines, maxBytes } : { maxBytes });
    } catch (error) {
      return toolError(`The output of ${id} could not be read: ${errorMessage(error)}`);
    }
    // Read the status after the output, so "completed" means the output shown is complete.
    const task = this.tasks.get(id)!;
    const lines = [
      `task_id: ${id}`,
      `status: ${statusText(task)}`,
      `output_bytes: ${formatCount(slice.totalBytes)}`,
      `shown: bytes ${formatCount(slice.start)}-${formatCount(slice.end)}${slice.source === 'memory' ? ' (from memory: the log file reached its size cap)' : ''}`,
      `next_offset: ${slice.end}`,
      `output_path: ${task.outputPath}`,
      '[output]',
      slice.text.length > 0 ? slice.text.replace(/\n$/, '') : slice.totalBytes === 0 ? '[no output yet]' : '[nothing in this range]',
    ];
    const notes: string[] = [];
    if (input.offset !== undefined && input.offset > slice.end) notes.push(`offset ${input.offset} is past the end of the output (${slice.end} bytes so far).`);
    if (slice.start > 0 && input.offset === undefined) notes.push(`Earlier output (bytes 0-${formatCount(slice.start)}) is not shown; pass offset=0 to read from the start, or Read the output_path.`);
    if (slice.end < slice.totalBytes && input.offset !== undefined) notes.push(`More output follows; call again with offset=${slice.end}.`);
    if (task.status === 'running') notes.push(`The task is still running. For new output only, call again with offset=${slice.end}; to wait for it to finish, use WaitFor.`);
    if (task.outputCapped) notes.push('The log file reached its size cap; the end of the output is only kept in memory (the latest part).');
    if (notes.length > 0) lines.push(`<system>${notes.join(' ')}</system>`);
    return { output: lines.join('\n') };
  }
}

export const ITaskOutputTool = createServiceId<TaskOutputTool>('tool.TaskOutput');
export const taskOutputTool = registerAgentToolService(ITaskOutputTool, TaskOutputTool, {
  name: 'TaskOutput',
  domain: 'task',
  requiredRuntimeCapabilities: [],
  samples: TASK_OUTPUT_SAMPLES,
});
