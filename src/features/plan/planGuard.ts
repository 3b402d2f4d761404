import type { ToolCallInfo } from '../../services/executor/toolExecutor';
import { comparablePath } from '../../tool/accessPaths';
import type { ToolAccess } from '../../tool/accesses';
import type { PlanModeMcpTool } from './contract';


export const ENTER_PLAN_MODE_NAME = 'EnterPlanMode';
export const EXIT_PLAN_MODE_NAME = 'ExitPlanMode';
/** The state key of the mode. */
export const PLAN_MODE_STATE_KEY = 'mode';
/** State writes plan mode lets through: AskUserQuestion's question. */
const ALLOWED_STATE_WRITES: ReadonlySet<string> = new Set(['user/question']);

/**
 * What plan mode does with a call: `run` it (approval then decides as usual), `ask` the person even
 * if a rule or grant would allow it (`reason` goes into the approval request), or `veto` it
 * (`refusal`: "<tool> would write <what>").
 */
export type PlanModeDecision =
  | { readonly kind: 'run' }
  | { readonly kind: 'ask'; readonly reason: string }
  | { readonly kind: 'veto'; readonly refusal: string };

const RUN: PlanModeDecision = { kind: 'run' };

/** What one access would write, in words; undefined when it only reads (or writes the plan file). */
function writeOf(access: ToolAccess, planFile: string): string | undefined {
  switch (access.kind) {
    case 'file':
      if (access.op !== 'write') return undefined;
      return !access.recursive && comparablePath(access.path) === comparablePath(planFile) ? undefined : access.path;
    case 'state':
      return access.op === 'read' || ALLOWED_STATE_WRITES.has(access.key) ? undefined : `state "${access.key}"`;
    // A builtin that declares a process or the network with only reads (a read-only Bash command) reads; a writing command declares `all`.
    case 'process':
    case 'network':
      return undefined;
    case 'all':
      return 'anything (it does not declare a bounded set of reads)';
  }
}

/**
 * MCP tools' accesses are the server's word: a tool runs only when its server is configured
 * `planMode: "allow"`; a `readOnlyHint` turns the veto into a question, no more.
 */
function mcpDecision(call: Pick<ToolCallInfo, 'name' | 'tool'>): PlanModeDecision {
  const mcp = call.tool as Partial<PlanModeMcpTool>;
  if (mcp.planMode === 'allow') return RUN;
  const server = mcp.server !== undefined ? `mcpServers.${mcp.server}` : 'its server';
  if (call.tool.annotations?.readOnlyHint === true) {
    return { kind: 'ask', reason: `plan mode: its MCP server says it only reads (readOnlyHint), which nothing checks; set ${server}.planMode to "allow" to trust it` };
  }
  return { kind: 'veto', refusal: `${call.name} (an MCP tool) may write anything (set ${server}.planMode to "allow" if its tools only read)` };
}

/**
 * What plan mode does with this call: the plan tools, and builtin or host calls whose accesses only
 * read or write the plan file, run; MCP tools as `mcpDecision` says; everything else is vetoed.
 */
export function planModeDecision(call: Pick<ToolCallInfo, 'name' | 'source' | 'accesses' | 'tool'>, planFile: string): PlanModeDecision {
  if (call.source === 'builtin' && (call.name === ENTER_PLAN_MODE_NAME || call.name === EXIT_PLAN_MODE_NAME)) return RUN;
  if (call.source === 'mcp') return mcpDecision(call);
  const writes: string[] = [];
  for (const access of call.accesses) {
    const write = writeOf(access, planFile);
    if (write !== undefined && !writes.includes(write)) writes.push(write);
  }
  return writes.length === 0 ? RUN : { kind: 'veto', refusal: `${call.name} would write ${writes.join(', ')}` };
}

export function planModeVetoMessage(refusal: string, planFile: string): string {
  return `Plan mode is read-only: ${refusal}. Finish the plan in ${planFile} and call ExitPlanMode to leave plan mode.`;
}
