import type { ToolCallInfo } from '../../services/executor/toolExecutor';
import { comparablePath } from '../../tool/accessPaths';
import type { ToolAccess } from '../../tool/accesses';

/** The plan guard runs before approval (0) and before PreToolUse command hooks (-10): no hook or approver can let a write through. */
export const PLAN_GUARD_ORDER = -100;

export const ENTER_PLAN_MODE_NAME = 'EnterPlanMode';
export const EXIT_PLAN_MODE_NAME = 'ExitPlanMode';
/** The state key of the mode. */
export const PLAN_MODE_STATE_KEY = 'mode';
/** State writes plan mode lets through: AskUserQuestion's question. */
const ALLOWED_STATE_WRITES: ReadonlySet<string> = new Set(['user/question']);

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
 * Why plan mode refuses this call ("<tool> would write <what>"), or undefined when it may run:
 * the plan tools, and builtin or host calls whose accesses only read or write the plan file. MCP
 * tools are refused whatever they declare (their accesses are the server's word).
 */
export function planModeRefusal(call: Pick<ToolCallInfo, 'name' | 'source' | 'accesses'>, planFile: string): string | undefined {
  if (call.source === 'builtin' && (call.name === ENTER_PLAN_MODE_NAME || call.name === EXIT_PLAN_MODE_NAME)) return undefined;
  if (call.source === 'mcp') return `${call.name} (an MCP tool) may write anything`;
  const writes: string[] = [];
  for (const access of call.accesses) {
    const write = writeOf(access, planFile);
    if (write !== undefined && !writes.includes(write)) writes.push(write);
  }
  return writes.length === 0 ? undefined : `${call.name} would write ${writes.join(', ')}`;
}

export function planModeVetoMessage(refusal: string, planFile: string): string {
  return `Plan mode is read-only: ${refusal}. Finish the plan in ${planFile} and call ExitPlanMode to leave plan mode.`;
}
