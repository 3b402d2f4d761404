import type { Newable, ServiceIdentifier } from 'inversify';
import type { ExecutableTool, ToolApprovalDefault, ToolDisclosure } from '../tool/contract';
import { createServiceId } from './serviceId';

/** What a runtime can do. A tool that needs a capability the runtime lacks is not activated. */
export type RuntimeCapability = 'fs' | 'process';
export const RUNTIME_CAPABILITIES: readonly RuntimeCapability[] = ['fs', 'process'];

/** Read-only access to the agent's services, valid only while a `when` predicate runs. */
export interface ServiceAccessor {
  get<T>(id: ServiceIdentifier<T>): T;
}

/** The tool type the registry holds; each tool narrows its own input type. */
export type AgentTool = ExecutableTool<never>;

export interface AgentToolContributionOptions {
  /** The name the model calls the tool by; must equal the tool's own `name`. */
  readonly name: string;
  /** The area the tool belongs to (`os`, `task`, `web`, …), for docs and diagnostics. */
  readonly domain: string;
  readonly requiredRuntimeCapabilities: readonly RuntimeCapability[];
  /** An extra condition, evaluated before the tool is constructed. */
  readonly when?: (accessor: ServiceAccessor) => boolean;
  /**
   * Why the tool is inactive when `when` is false, saying how to enable it (shown by `toolhost
   * tools --all` and to a model that calls it); evaluated only then. Default: "its when()
   * condition is false".
   */
  readonly inactiveReason?: (accessor: ServiceAccessor) => string;
  readonly disclosure?: ToolDisclosure;
  /**
   * The tool's approval default for calls whose execution sets none (RunnableToolExecution.approval
   * wins). `auto` is how a tool that declares no accesses (`ToolAccesses.none()`) and has no side
   * effect runs unasked, e.g. select_tools: without it such a call asks, since only calls that
   * declare reads are read-only. Approval rules (deny, ask, allow) still apply.
   */
  readonly approval?: ToolApprovalDefault;
  /**
   * A meta-tool (select_tools) that profile and config allowlists do not filter; denylists still
   * apply. The policy service applies this one rule for activation, listing and the call guard.
   */
  readonly exemptFromAllowlists?: boolean;
  /**
   * Sample inputs for the conformance suite: each must validate against the schema and resolve
   * without touching a file or starting a process. Every builtin tool has some; defined beside
   * the tool's schema.
   */
  readonly samples?: readonly unknown[];
}

/** A builtin tool: a lazily constructed Agent-scope singleton plus the metadata to activate it. */
export interface AgentToolContribution extends AgentToolContributionOptions {
  readonly id: ServiceIdentifier<AgentTool>;
  readonly toolClass: Newable<AgentTool>;
  readonly disclosure: ToolDisclosure;
}

/** The collection of tool contributions, bound as constants in the App container only. */
export const IAgentToolContribution = createServiceId<AgentToolContribution>('AgentToolContribution');

export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export class ToolContributionError extends Error {
  override readonly name = 'ToolContributionError';
}

/**
 * Declares a builtin tool. Pure: it validates the metadata and returns a frozen contribution; a
 * feature (or createApp's `tools` option) puts it into an App. There is no global registry.
 */
export function registerAgentToolService<T extends ExecutableTool<never>>(
  id: ServiceIdentifier<T>,
  toolClass: Newable<T>,
  options: AgentToolContributionOptions,
): AgentToolContribution {
  if (typeof options !== 'object' || options === null) throw new ToolContributionError('registerAgentToolService needs options: {name, domain, requiredRuntimeCapabilities}.');
  if (typeof options.name !== 'string' || !TOOL_NAME_PATTERN.test(options.name)) {
    throw new ToolContributionError(
      `Tool name "${options.name}" is invalid: use letters, digits, "_" or "-", starting with a letter, at most 64 characters.`,
    );
  }
  if (options.name.startsWith('mcp__')) {
    throw new ToolContributionError(`Tool name "${options.name}" is invalid: the "mcp__" prefix is reserved for MCP tools.`);
  }
  if (typeof options.domain !== 'string' || options.domain.trim() === '') throw new ToolContributionError(`Tool "${options.name}" needs a non-empty domain.`);
  // Checked at run time too: JavaScript callers and casts reach here without the types.
  if (!Array.isArray(options.requiredRuntimeCapabilities)) {
    throw new ToolContributionError(
      `Tool "${options.name}" needs requiredRuntimeCapabilities: a list of what it needs from the runtime (${RUNTIME_CAPABILITIES.map((c) => `"${c}"`).join(', ')}), or [] for nothing.`,
    );
  }
  if (options.approval !== undefined && options.approval !== 'auto' && options.approval !== 'ask') {
    throw new ToolContributionError(`Tool "${options.name}" has approval ${JSON.stringify(options.approval)}: use "auto" (runs unasked), "ask" (always asks), or leave it out.`);
  }
  if (options.inactiveReason !== undefined && (typeof options.inactiveReason !== 'function' || options.when === undefined)) {
    throw new ToolContributionError(`Tool "${options.name}" has an inactiveReason that is not a function of a when() condition: give when(accessor) and inactiveReason(accessor), or leave inactiveReason out.`);
  }
  if (typeof toolClass !== 'function') throw new ToolContributionError(`Tool "${options.name}" needs a class to construct.`);
  for (const capability of options.requiredRuntimeCapabilities) {
    if (!RUNTIME_CAPABILITIES.includes(capability)) {
      throw new ToolContributionError(`Tool "${options.name}" requires unknown runtime capability "${String(capability)}".`);
    }
  }
  return Object.freeze({
    ...options,
    requiredRuntimeCapabilities: Object.freeze([...options.requiredRuntimeCapabilities]),
    ...(options.samples ? { samples: Object.freeze([...options.samples]) } : {}),
    disclosure: options.disclosure ?? 'inline',
    id: id as ServiceIdentifier<AgentTool>,
    toolClass: toolClass as Newable<AgentTool>,
  });
}
