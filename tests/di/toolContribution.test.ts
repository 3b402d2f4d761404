import { injectable } from 'inversify';
import { createServiceId } from '../../src/di/serviceId';
import { type AgentToolContributionOptions, registerAgentToolService, ToolContributionError } from '../../src/di/toolContribution';
import type { ExecutableTool, ToolExecution } from '../../src/tool/contract';

@injectable()
class NoopTool implements ExecutableTool<object> {
  readonly name = 'Noop';
  readonly description = 'Does nothing.';
  readonly parameters = { type: 'object', properties: {} };
  resolveExecution(): ToolExecution {
    return { approvalRule: 'Noop', execute: async () => ({ output: '' }) };
  }
}
const id = createServiceId<NoopTool>('test.Noop');

describe('registerAgentToolService', () => {
  test.each<[string, unknown, string]>([
    ['no options', undefined, 'registerAgentToolService needs options: {name, domain, requiredRuntimeCapabilities}.'],
    ['a bad name', { name: 'no spaces', domain: 'x', requiredRuntimeCapabilities: [] }, 'Tool name "no spaces" is invalid'],
    ['a missing name', { domain: 'x', requiredRuntimeCapabilities: [] }, 'Tool name "undefined" is invalid'],
    ['the mcp prefix', { name: 'mcp__a__b', domain: 'x', requiredRuntimeCapabilities: [] }, 'the "mcp__" prefix is reserved for MCP tools'],
    ['an empty domain', { name: 'Noop', domain: ' ', requiredRuntimeCapabilities: [] }, 'Tool "Noop" needs a non-empty domain.'],
    ['a missing domain', { name: 'Noop', requiredRuntimeCapabilities: [] }, 'Tool "Noop" needs a non-empty domain.'],
    [
      'no requiredRuntimeCapabilities',
      { name: 'Noop', domain: 'x' },
      'Tool "Noop" needs requiredRuntimeCapabilities: a list of what it needs from the runtime ("fs", "process"), or [] for nothing.',
    ],
    [
      'an unknown approval default',
      { name: 'Noop', domain: 'x', requiredRuntimeCapabilities: [], approval: 'always' },
      'Tool "Noop" has approval "always": use "auto" (runs unasked), "ask" (always asks), or leave it out.',
    ],
    ['an unknown capability', { name: 'Noop', domain: 'x', requiredRuntimeCapabilities: ['gpu'] }, 'Tool "Noop" requires unknown runtime capability "gpu".'],
    [
      'an inactiveReason without when',
      { name: 'Noop', domain: 'x', requiredRuntimeCapabilities: [], inactiveReason: () => 'set x' },
      'Tool "Noop" has an inactiveReason that is not a function of a when() condition: give when(accessor) and inactiveReason(accessor), or leave inactiveReason out.',
    ],
    [
      'an inactiveReason that is a string',
      { name: 'Noop', domain: 'x', requiredRuntimeCapabilities: [], when: () => false, inactiveReason: 'set x' },
      'Tool "Noop" has an inactiveReason that is not a function of a when() condition',
    ],
  ])('%s is a ToolContributionError that says what to give', (_name, options, message) => {
    const register = () => registerAgentToolService(id, NoopTool, options as AgentToolContributionOptions);
    expect(register).toThrow(ToolContributionError);
    expect(register).toThrow(message);
  });

  test('a valid contribution is frozen, inline by default, with its samples', () => {
    const contribution = registerAgentToolService(id, NoopTool, { name: 'Noop', domain: 'test', requiredRuntimeCapabilities: ['fs'], samples: [{}] });
    expect(contribution).toMatchObject({ name: 'Noop', domain: 'test', disclosure: 'inline', requiredRuntimeCapabilities: ['fs'], samples: [{}] });
    expect(Object.isFrozen(contribution)).toBe(true);
    expect(Object.isFrozen(contribution.requiredRuntimeCapabilities)).toBe(true);
  });
});
