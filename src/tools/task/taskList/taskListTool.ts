import { inject, injectable } from 'inversify';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import { IAgentTaskService, type TaskInfo } from '../contract';
import { ToolAccesses } from '../../../tool/accesses';
import type { ExecutableTool, JsonSchema, ToolAnnotations, ToolExecution, ToolResult } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { renderPrompt } from '../../../tool/renderPrompt';
import { taskLines } from '../taskFormat';
import { type TaskListInput, TaskListInputSchema, TASK_LIST_SAMPLES } from './taskList';
import { tasksConfig } from '../taskConfig';

const PARAMETERS = toInputJsonSchema(TaskListInputSchema);
const DEFAULT_LIMIT = 20;

@injectable()
export class TaskListTool implements ExecutableTool<TaskListInput> {
  readonly name = 'TaskList';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentTaskService) private readonly tasks: IAgentTaskService,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'taskList.md'), { MAX_RUNNING_TASKS: this.config.section(tasksConfig).maxRunning });
  }

  resolveExecution(input: TaskListInput): ToolExecution {
    const activeOnly = input.active_only === true;
    return {
      accesses: [ToolAccesses.readState('tasks')],
      display: { kind: 'generic', summary: activeOnly ? 'List running background tasks' : 'List background tasks' },
      description: activeOnly ? 'Listing running background tasks' : 'Listing background tasks',
      approvalRule: 'TaskList',
      execute: async () => {
        await this.tasks.refresh();
        return this.list(activeOnly, input.limit ?? DEFAULT_LIMIT);
      },
    };
  }

  private list(activeOnly: boolean, limit: number): ToolResult {
    const all = this.tasks.list();
    const running = all.filter((t) => t.status === 'running');
    const finished = all.filter((t) => t.status !== 'running').sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0));
    if (all.length === 0) return { output: 'No background tasks. Start one with Bash and run_in_background: true.' };
    if (activeOnly && running.length === 0) {
      return { output: `No running background tasks (${finished.length} finished; pass active_only: false to list them).` };
    }
    const shown: TaskInfo[] = (activeOnly ? running : [...running, ...finished]).slice(0, limit);
    const total = activeOnly ? running.length : all.length;
    const now = Date.now();
    const header = `tasks: ${total} (${running.length} running, ${finished.length} finished)` + (shown.length < total ? `; showing ${shown.length}, raise limit to see more` : '');
    return { output: [header, ...shown.map((t) => ['---', ...taskLines(t, now)].join('\n'))].join('\n') };
  }
}

export const ITaskListTool = createServiceId<TaskListTool>('tool.TaskList');
export const taskListTool = registerAgentToolService(ITaskListTool, TaskListTool, {
  name: 'TaskList',
  domain: 'task',
  requiredRuntimeCapabilities: [],
  samples: TASK_LIST_SAMPLES,
});
