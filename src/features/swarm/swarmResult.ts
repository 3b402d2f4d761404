import * as nodePath from 'node:path';
import { formatCount, formatDuration } from '../../base/strings';
import type { ToolResult } from '../../tool/contract';
import type { SubagentOutcome } from '../../tools/agent/contract';
import type { SwarmItemResult } from './swarmRun';

export const ITEM_TAG = 'subagent';

/** Text for an XML element's content: `&`, `<` and `>` escaped, so no child text can close (or open) a tag. */
export function escapeXmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text for a double-quoted XML attribute value (newlines kept as character references). */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

export interface SwarmSummary {
  readonly profileName: string;
  readonly durationMs: number;
  readonly results: readonly SwarmItemResult[];
  /** The workspace, to show changed files relative to it. */
  readonly cwd: string;
  /** Caps a child's text, saving the whole (IAgentSubagentService.capText with swarm.maxResultCharsPerItem). */
  capText(outcome: SubagentOutcome): { readonly text: string; readonly fullPath?: string };
}

function shownPath(cwd: string, path: string): string {
  const relative = nodePath.relative(cwd, path);
  return relative && !relative.startsWith('..') && !nodePath.isAbsolute(relative) ? relative : path;
}

/**
 * `swarm: 40 items — 37 completed, 2 failed, 1 aborted`, a few `key: value` lines, a blank line,
 * then one `<subagent item="…" agent_id="…" status="…">` element per item, in item order, with
 * the child's text XML-escaped and capped. A failed item is reported, never an error of the call.
 */
export function formatSwarm(summary: SwarmSummary): ToolResult {
  const status = (r: SwarmItemResult) => r.outcome?.status ?? 'aborted';
  const count = (s: string) => summary.results.filter((r) => status(r) === s).length;
  const [completed, failed, aborted] = [count('completed'), count('failed'), count('aborted')];
  const tokens = summary.results.reduce((sum, r) => sum + (r.outcome?.usage?.totalTokens ?? 0), 0);
  const header = [
    `swarm: ${summary.results.length} items — ${completed} completed, ${failed} failed, ${aborted} aborted`,
    `subagent_type: ${summary.profileName}`,
    `duration: ${formatDuration(summary.durationMs)}`,
    ...(tokens > 0 ? [`tokens: ${formatCount(tokens)}`] : []),
  ];
  const structured: Record<string, unknown>[] = [];
  const elements = summary.results.map((r) => {
    const outcome = r.outcome;
    const capped = outcome ? summary.capText(outcome) : { text: '' };
    const files = outcome?.filesChanged.map((path) => shownPath(summary.cwd, path)) ?? [];
    const error = outcome ? outcome.error : 'The swarm was aborted before this item started.';
    const worktree = outcome?.worktree?.kept ? `${outcome.worktree.path} (branch ${outcome.worktree.branch})` : undefined;
    const attrs: [string, string | undefined][] = [
      ['item', r.item],
      ['agent_id', outcome?.agentId],
      ['status', status(r)],
      ['turns', outcome?.turns?.toString()],
      ['attempts', r.attempts > 1 ? String(r.attempts) : undefined],
      ['files_changed', files.length > 0 ? files.join(', ') : undefined],
      ['worktree', worktree],
      ['error', error],
      ['full_result', capped.fullPath],
    ];
    structured.push({
      item: r.item,
      status: status(r),
      ...(outcome ? { agent_id: outcome.agentId } : {}),
      ...(outcome?.turns !== undefined ? { turns: outcome.turns } : {}),
      attempts: r.attempts,
      files_changed: files,
      ...(worktree !== undefined ? { worktree } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(capped.fullPath !== undefined ? { full_result: capped.fullPath } : {}),
      result: capped.text,
    });
    const attrText = attrs
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => `${key}="${escapeXmlAttribute(value)}"`)
      .join(' ');
    return `<${ITEM_TAG} ${attrText}>\n${escapeXmlText(capped.text)}\n</${ITEM_TAG}>`;
  });
  return {
    output: `${header.join('\n')}\n\n${elements.join('\n')}`,
    structuredContent: {
      items: summary.results.length,
      completed,
      failed,
      aborted,
      subagent_type: summary.profileName,
      duration_ms: summary.durationMs,
      ...(tokens > 0 ? { tokens } : {}),
      results: structured,
    },
  };
}
