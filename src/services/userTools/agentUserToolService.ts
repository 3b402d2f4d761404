import { inject, injectable, preDestroy } from 'inversify';
import { errorMessage } from '../../base/errors';
import type { IDisposable } from '../../base/lifecycle';
import { TOOL_NAME_PATTERN, type AgentTool } from '../../di/toolContribution';
import { ToolAccesses } from '../../tool/accesses';
import type { JsonSchema, ToolExecution, ToolResult } from '../../tool/contract';
import { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import { ISessionInteractionService } from '../interaction/interaction';
import { IAgentServiceAccessor } from '../toolActivation/toolActivation';
import type { ServiceAccessor } from '../../di/toolContribution';
import { IBuiltinToolAssemblyService } from '../toolAssembly/builtinToolAssembly';
import { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';
import { type IAgentUserToolService, UserToolError, type UserToolRegistration } from './userTools';

const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

@injectable()
export class AgentUserToolService implements IAgentUserToolService {
  private readonly registrations = new Map<string, IDisposable>();

  constructor(
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IBuiltinToolAssemblyService) private readonly assembly: IBuiltinToolAssemblyService,
    @inject(IToolArgsValidatorService) private readonly validator: IToolArgsValidatorService,
    @inject(IAgentServiceAccessor) private readonly services: ServiceAccessor,
  ) {}

  get names(): readonly string[] {
    return [...this.registrations.keys()].sort();
  }

  register(input: UserToolRegistration): void {
    const name = input.name;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name) || name.startsWith('mcp__')) {
      throw new UserToolError(
        `User tool name "${String(name)}" is invalid: use letters, digits, "_" or "-", starting with a letter, at most 64 characters, not starting with "mcp__".`,
      );
    }
    if (typeof input.description !== 'string' || input.description.trim() === '') {
      throw new UserToolError(`User tool "${name}" needs a description: the model reads it to decide when to call the tool.`);
    }
    const parameters = input.parameters ?? NO_ARGUMENTS;
    if (typeof parameters !== 'object' || parameters === null || parameters.type !== 'object') {
      throw new UserToolError(`User tool "${name}" parameters must be a JSON Schema with "type": "object".`);
    }
    const schemaProblem = this.validator.check(parameters);
    if (schemaProblem) throw new UserToolError(`User tool "${name}": ${schemaProblem}.`);
    const builtin = this.assembly.get(name);
    if (builtin) {
      const existing = { source: 'builtin' as const, owner: `builtin:${builtin.domain}` };
      const conflict = { name, existing, refused: { source: 'user' as const, owner: 'user' } };
      throw new UserToolError(`Cannot register user tool "${name}": the name belongs to the builtin tool "${name}". Choose another name.`, conflict);
    }

    const previous = this.registrations.get(name);
    previous?.dispose();
    this.registrations.delete(name);
    const result = this.registry.register(this.createTool(input, parameters), { source: 'user', disclosure: input.disclosure ?? 'inline', owner: 'user' });
    if (!result.ok) {
      throw new UserToolError(`Cannot register user tool "${name}": the name is taken by ${result.conflict.existing.owner}. Choose another name.`, result.conflict);
    }
    this.registrations.set(name, result.registration);
  }

  unregister(name: string): boolean {
    const registration = this.registrations.get(name);
    if (!registration) return false;
    registration.dispose();
    this.registrations.delete(name);
    return true;
  }

  private createTool(input: UserToolRegistration, parameters: JsonSchema): AgentTool {
    const { name, description } = input;
    const accesses = input.accesses ?? ToolAccesses.all();
    // Resolved at each call, so a host that rebinds the interaction service after createAgent runs the tool.
    const services = this.services;
    const tool = {
      name,
      description,
      parameters,
      resolveExecution(args: unknown): ToolExecution {
        return {
          accesses,
          approval: input.requiresApproval ? 'ask' : 'auto',
          approvalRule: name,
          description: `Running ${name} (provided by the host)`,
          display: { kind: 'generic', summary: `Running ${name}`, detail: args },
          execute: async (ctx): Promise<ToolResult> => {
            const interactions = services.get(ISessionInteractionService);
            if (!interactions.canRequest('user_tool')) {
              return { output: `Tool "${name}" is provided by the host, but no host is connected to run it.`, isError: true };
            }
            try {
              const answer = await interactions.request({ kind: 'user_tool', toolCallId: ctx.toolCallId, name, args }, ctx.signal);
              return { output: answer.output, ...(answer.isError ? { isError: true } : {}) };
            } catch (error) {
              if (ctx.signal.aborted) throw error;
              return { output: `Tool "${name}" failed in the host: ${errorMessage(error)}`, isError: true };
            }
          },
        };
      },
    };
    return tool as AgentTool;
  }

  @preDestroy()
  dispose(): void {
    for (const registration of this.registrations.values()) registration.dispose();
    this.registrations.clear();
  }
}
