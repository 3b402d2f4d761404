import { formatCount, formatDuration } from '../../base/strings';
import type { TaskInfo } from './contract';

/** `completed (exit code 0)`, `failed (exit code 2)`, `timed_out`, `killed`, `running`. */
/** The task id the conformance samples use; the suite puts the id of a real running task in its place. */
export const SAMPLE_TASK_ID = '<sample-task>';

export function statusText(task: TaskInfo): string {
  switch (task.status) {
    case 'running':
      return 'running';
    case 'completed':
      return task.kind === 'agent' ? 'completed' : 'completed (exit code 0)';
    case 'failed':
      if (task.kind === 'agent') return 'failed';
      if (task.exitCode === null && task.signal) return `failed (killed by signal ${task.signal})`;
      if (task.exitCode === undefined || task.exitCode === null) return 'failed (it could not be started)';
      return `failed (exit code ${task.exitCode})`;
    case 'timed_out':
      return `timed_out (stopped after ${task.timeoutMs !== undefined ? formatDuration(task.timeoutMs) : 'its timeout'})`;
    case 'killed':
      return 'killed';
  }
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The `key: value` lines describing a task. */
export function taskLines(task: TaskInfo, now: number = Date.now()): string[] {
  const lines = [`task_id: ${task.id}`, `status: ${statusText(task)}`, `description: ${task.description}`, `command: ${oneLine(task.command)}`];
  if (task.agentId !== undefined) lines.push(`agent_id: ${task.agentId}`);
  if (task.status === 'running') {
    lines.push(`started_at: ${isoTime(task.startedAt)} (running for ${formatDuration(now - task.startedAt)})`);
    if (task.pid !== undefined) lines.push(`pid: ${task.pid}`);
  } else {
    lines.push(`started_at: ${isoTime(task.startedAt)}`);
    if (task.endedAt !== undefined) lines.push(`ended_at: ${isoTime(task.endedAt)} (ran ${formatDuration(task.endedAt - task.startedAt)})`);
    if (task.exitCode !== undefined) lines.push(`exit_code: ${task.exitCode === null ? `none (signal ${task.signal ?? 'unknown'})` : task.exitCode}`);
  }
  if (task.stopReason !== undefined) lines.push(`stop_reason: ${task.stopReason}`);
  lines.push(`output_bytes: ${formatCount(task.outputBytes)}`);
  return lines;
}

function oneLine(command: string): string {
  const line = command.replace(/\s*\n\s*/g, ' ↵ ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The last `maxLines` lines of a text, at most `maxChars` characters. */
export function lastLines(text: string, maxLines: number, maxChars: number): string {
  let body = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (body.length > maxChars) body = body.slice(-maxChars);
  const lines = body.split('\n');
  return lines.slice(-maxLines).join('\n');
}

/** The message for an id this agent does not have. */
export function taskNotFound(id: string, known: readonly TaskInfo[]): string {
  const hint = known.length === 0 ? 'This agent has no background tasks.' : `Its tasks are: ${known.slice(-10).map((t) => t.id).join(', ')}.`;
  return `Task not found: "${id}". ${hint} TaskList lists them.`;
}
