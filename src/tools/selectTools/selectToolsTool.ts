import { inject, injectable } from 'inversify';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import { IAgentToolSelectService, SELECT_TOOLS_NAME } from '../../services/toolSelect/toolSelect';
import { ToolAccesses } from '../../tool/accesses';
import type { ExecutableTool, JsonSchema, ToolAnnotations, ToolExecution, ToolResult } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { renderPrompt } from '../../tool/renderPrompt';
import { type SelectToolsInput, SelectToolsInputSchema, SELECT_TOOLS_SAMPLES } from './selectTools';

const PARAMETERS = toInputJsonSchema(SelectToolsInputSchema);

@injectable()
export class SelectToolsTool implements ExecutableTool<SelectToolsInput> {
  readonly name = SELECT_TOOLS_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(@inject(IAgentToolSelectService) private readonly select: IAgentToolSelectService) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'selectTools.md'), {});
  }

  resolveExecution(input: SelectToolsInput): ToolExecution {
    const names = [...new Set(input.names.map((n) => n.trim()))];
    return {
      // It changes only which schemas the model is given (hence `approval: 'auto'` on its contribution).
      accesses: ToolAccesses.none(),
      // A call of the batch after this one may be to a tool it loads.
      resolveLaterCallsAfterThis: true,
      approvalRule: SELECT_TOOLS_NAME,
      description: `Loading ${names.join(', ')}`,
      display: { kind: 'generic', summary: `Loading ${names.join(', ')}` },
      execute: async (): Promise<ToolResult> => {
        if (!this.select.enabled) return { output: 'select_tools is not available for the current model.', isError: true };
        const outcome = this.select.load(names);
        const lines: string[] = [];
        if (outcome.loaded.length > 0) lines.push(`Loaded: ${outcome.loaded.join(', ')}`);
        if (outcome.alreadyAvailable.length > 0) lines.push(`Already available: ${outcome.alreadyAvailable.join(', ')}`);
        for (const name of outcome.unknown) lines.push(`Unknown tool: ${name}. Pick from the latest announced tools list.`);
        const nothing = outcome.loaded.length === 0 && outcome.alreadyAvailable.length === 0;
        return { output: lines.join('\n'), ...(nothing ? { isError: true } : {}) };
      },
    };
  }
}

export const ISelectToolsTool = createServiceId<SelectToolsTool>('tool.select_tools');
export const selectToolsTool = registerAgentToolService(ISelectToolsTool, SelectToolsTool, {
  name: SELECT_TOOLS_NAME,
  domain: 'toolSelect',
  requiredRuntimeCapabilities: [],
  // It declares no accesses, so it would ask; loading schemas touches nothing worth asking about.
  approval: 'auto',
  samples: SELECT_TOOLS_SAMPLES,
  exemptFromAllowlists: true,
  when: (accessor) => accessor.get(IAgentToolSelectService).enabled,
});
