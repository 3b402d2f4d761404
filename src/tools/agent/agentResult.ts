import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { formatCount, formatDuration, wrapInTag } from '../../base/strings';
import type { ToolResult } from '../../tool/contract';
import type { AgentTaskEnd } from '../task/contract';
import type { IAgentSubagentService, SubagentLaunch, SubagentOutcome } from './contract';

export const RESULT_TAG = 'agent_result';

/** The final text, cut at `maxChars` with the full text kept in the child's data folder; `configKey` names the limit. */
export function cappedText(outcome: Pick<SubagentOutcome, 'text' | 'dataDir'>, maxChars: number, configKey: string): { text: string; fullPath?: string } {
  if (outcome.text.length <= maxChars) return { text: outcome.text };
  const fullPath = nodePath.join(outcome.dataDir, `result-${Date.now()}.md`);
  try {
    fs.mkdirSync(outcome.dataDir, { recursive: true });
    fs.writeFileSync(fullPath, outcome.text);
  } catch {
    return { text: `${outcome.text.slice(0, maxChars)}\n[… ${formatCount(outcome.text.length - maxChars)} more characters were cut (${configKey}); the full text could not be saved.]` };
  }
  return { text: `${outcome.text.slice(0, maxChars)}\n[… ${formatCount(outcome.text.length - maxChars)} more characters cut (${configKey}); Read ${fullPath} for all of it.]`, fullPath };
}

/** `key: value` lines, a blank line, then `<agent_result>` with the child's text escaped and capped. */
export function formatOutcome(outcome: SubagentOutcome, options: { readonly cwd: string; readonly maxResultChars: number }): ToolResult {
  const shown = (path: string) => {
    const relative = nodePath.relative(options.cwd, path);
    return relative && !relative.startsWith('..') && !nodePath.isAbsolute(relative) ? relative : path;
  };
  const files = outcome.filesChanged.map(shown);
  const { text, fullPath } = cappedText(outcome, options.maxResultChars, 'agent.maxResultChars');
  const lines = [`agent_id: ${outcome.agentId}`, `subagent_type: ${outcome.profileName}`, `status: ${outcome.status}`];
  if (outcome.turns !== undefined) lines.push(`turns: ${outcome.turns}`);
  lines.push(`duration: ${formatDuration(outcome.durationMs)}`);
  if (outcome.usage) lines.push(`tokens: ${formatCount(outcome.usage.totalTokens)}`);
  if (files.length > 0) lines.push(`files_changed: ${files.join(', ')}`);
  if (outcome.worktree) {
    lines.push(
      outcome.worktree.kept
        ? `worktree: ${outcome.worktree.path} (branch ${outcome.worktree.branch}, kept: it has changes; merge the branch, then remove it with git worktree remove)`
        : 'worktree: removed (the subagent changed nothing there)',
    );
  }
  if (outcome.error !== undefined) lines.push(`error: ${outcome.error}`);
  if (outcome.status !== 'completed') lines.push(`resume_hint: call Agent with resume "${outcome.agentId}" and a prompt to continue it.`);
  if (fullPath) lines.push(`full_result: ${fullPath}`);
  return {
    output: `${lines.join('\n')}\n\n${wrapInTag(RESULT_TAG, text)}`,
    isError: outcome.status !== 'completed',
    structuredContent: {
      agent_id: outcome.agentId,
      subagent_type: outcome.profileName,
      status: outcome.status,
      ...(outcome.turns !== undefined ? { turns: outcome.turns } : {}),
      duration_ms: outcome.durationMs,
      ...(outcome.usage ? { tokens: outcome.usage.totalTokens } : {}),
      files_changed: files,
      ...(outcome.worktree ? { worktree: { path: outcome.worktree.path, branch: outcome.worktree.branch, kept: outcome.worktree.kept } } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      result: text,
    },
  };
}

/**
 * A background child's run as its task's output shows it, in process or on a worker: a line per
 * progress update, then the result as Agent formats it.
 */
export async function runLoggedChild(
  subagents: Pick<IAgentSubagentService, 'run'>,
  launch: SubagentLaunch,
  signal: AbortSignal,
  log: (text: string) => void,
  format: { readonly cwd: string; readonly maxResultChars: number },
): Promise<SubagentOutcome> {
  const outcome = await subagents.run(launch, signal, { progress: (text) => log(`[${text}]\n`) });
  log(formatOutcome(outcome, format).output as string);
  return outcome;
}

/** How a background child's task ends, from the child's outcome. */
export function taskEndOf(outcome: SubagentOutcome): AgentTaskEnd {
  return { status: outcome.status === 'completed' ? 'completed' : 'failed', ...(outcome.error !== undefined ? { stopReason: outcome.error } : {}) };
}
