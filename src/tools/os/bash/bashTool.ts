import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable, optional, preDestroy } from 'inversify';
import { errorMessage, isErrnoException } from '../../../base/errors';
import { pathChangedMessage, realPathChangeSync } from '../../../base/fs/openedFile';
import { describeOutputFile, OutputCapture } from '../../../base/shell/outputCapture';
import { shellEnvironment } from '../../../base/shell/shellEnv';
import type { RunningShell, ShellExit } from '../../../base/shell/shellProcess';
import { formatBytes, formatCount, formatDuration } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import type { BashConfig } from '../osConfig';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import { IAgentTaskNotifications, IAgentTaskService, TaskLimitError } from '../../task/contract';
import { IAgentToolRegistryService } from '../../../services/toolRegistry/toolRegistry';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import { type ToolAccess, ToolAccesses } from '../../../tool/accesses';
import {
  type ExecutableTool,
  type JsonSchema,
  type ToolAnnotations,
  type ToolExecution,
  type ToolExecutionContext,
  type ToolResult,
  toolError,
} from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { canonicalizeExisting, isPathInside, resolvePathAccess } from '../../../tool/pathAccess';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchCommandRule } from '../../../tool/ruleMatch';
import { isSensitivePath } from '../../../tool/sensitivePaths';
import { type BashInput, createBashInputSchema, BASH_SAMPLES } from './bash';
import { bashPatternMayMatch, classifyCommand } from './readOnlyCommand';
import { bashConfig } from '../osConfig';
import { tasksConfig } from '../../task/contract';

/** The task tools a background command needs: to read its output and to stop it. */
const BACKGROUND_TOOLS = ['TaskOutput', 'TaskStop'] as const;
/** Entries listed, at most, to expand one pattern argument of a read-only command; past it, the command asks. */
const MAX_GLOB_LISTING = 10_000;

const schemaCache = new Map<string, JsonSchema>();

function parametersFor(config: BashConfig): JsonSchema {
  const key = `${config.defaultTimeoutS}/${config.maxTimeoutS}`;
  let schema = schemaCache.get(key);
  if (!schema) {
    schema = toInputJsonSchema(createBashInputSchema(config));
    schemaCache.set(key, schema);
  }
  return schema;
}

/** What the scheduler may assume about a command (see readOnlyCommand.ts). */
export interface BashAccessPlan {
  readonly accesses: readonly ToolAccess[];
  readonly readOnly: boolean;
}

@injectable()
export class BashTool implements ExecutableTool<BashInput> {
  readonly name = 'Bash';
  // Any command may run, including ones that delete files or reach the network.
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
  /** Foreground commands still running; stopped if the agent ends first. */
  private readonly running = new Set<RunningShell>();
  private disposed = false;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentToolRegistryService) private readonly registry: IAgentToolRegistryService,
    @inject(IAgentTaskService) @optional() private readonly tasks: IAgentTaskService | undefined,
    @inject(IAgentTaskNotifications) @optional() private readonly notifications: IAgentTaskNotifications | undefined,
  ) {}

  get parameters(): JsonSchema {
    return parametersFor(this.config.section(bashConfig));
  }

  get description(): string {
    const bash = this.config.section(bashConfig);
    const unavailable = this.backgroundUnavailableReason();
    const background =
      unavailable === undefined
        ? renderPrompt(loadDescriptionTemplate(__dirname, 'bash-background.md'), {
            MAX_TIMEOUT_S: bash.maxTimeoutS,
            MAX_RUNNING_TASKS: this.config.section(tasksConfig).maxRunning,
          })
        : renderPrompt(loadDescriptionTemplate(__dirname, 'bash-no-background.md'), { REASON: unavailable, MAX_TIMEOUT_S: bash.maxTimeoutS });
    return renderPrompt(loadDescriptionTemplate(__dirname, 'bash.md'), {
      DEFAULT_TIMEOUT_S: bash.defaultTimeoutS,
      MAX_TIMEOUT_S: bash.maxTimeoutS,
      KILL_GRACE: formatDuration(bash.killGraceMs),
      OUTPUT_HEAD_CHARS: formatCount(bash.outputHeadChars),
      OUTPUT_TAIL_CHARS: formatCount(bash.outputTailChars),
      BACKGROUND: background,
    });
  }

  /** When the agent ends, foreground commands still running are stopped (their process groups). */
  @preDestroy()
  async dispose(): Promise<void> {
    this.disposed = true;
    const running = [...this.running];
    for (const shell of running) shell.kill('abort');
    await Promise.all(running.map((shell) => shell.done));
  }

  /** Why run_in_background cannot be used, or undefined when it can. */
  private backgroundUnavailableReason(): string | undefined {
    if (!this.tasks) return 'the background-task service is not installed';
    const missing = BACKGROUND_TOOLS.filter((name) => !this.registry.get(name));
    if (missing.length > 0) return `the ${missing.join(' and ')} tool${missing.length > 1 ? 's are' : ' is'} not active`;
    return undefined;
  }

  resolveExecution(input: BashInput): ToolExecution {
    const bash = this.config.section(bashConfig);
    const command = input.command;
    if (command.trim() === '') return toolError('The command is empty. Pass the shell command to run in `command`.');
    if (input.timeout !== undefined && (!Number.isInteger(input.timeout) || input.timeout < 1)) {
      return toolError(`timeout must be a whole number of seconds from 1 to ${bash.maxTimeoutS}; got ${input.timeout}.`);
    }
    if (input.timeout !== undefined && input.timeout > bash.maxTimeoutS) {
      return toolError(
        `timeout ${input.timeout} s is above the maximum of ${bash.maxTimeoutS} s and was rejected. ` +
          `Pass a timeout of at most ${bash.maxTimeoutS}, or use run_in_background: true for longer commands and follow them with WaitFor and TaskOutput.`,
      );
    }
    const background = input.run_in_background === true;
    if (background) {
      const reason = this.backgroundUnavailableReason();
      if (reason !== undefined) {
        return toolError(
          `Background execution is not available: ${reason}. Run the command in the foreground with a timeout of at most ${bash.maxTimeoutS} s.`,
        );
      }
    }
    // Throws PathSecurityError for a cwd outside the workspace; the executor shows its message.
    const cwd =
      input.cwd !== undefined && input.cwd.trim() !== ''
        ? resolvePathAccess(input.cwd, this.workspace.pathContext('access', { outside: 'never' })).path
        : this.workspace.cwd;
    const plan = this.accessPlan(command, cwd);
    const accesses = background ? [...plan.accesses, ToolAccesses.writeState('tasks')] : plan.accesses;
    const generation = this.runtime.generation;
    const oneLine = summarize(command);
    return {
      accesses,
      display: {
        kind: 'command',
        command,
        cwd,
        ...(input.description ? { description: input.description } : {}),
        language: 'bash',
      },
      description: background ? `Starting in the background: ${input.description ?? oneLine}` : (input.description ?? `Running ${oneLine}`),
      approvalRule: literalRule('Bash', command),
      matchesRule: (ruleArgs, mode) => matchCommandRule(ruleArgs, command, mode),
      execute: (ctx) => {
        if (this.runtime.generation !== generation) return Promise.resolve(toolError('The runtime changed after this call was prepared. Retry the tool call.'));
        const shownCwd = input.cwd !== undefined && input.cwd.trim() !== '' ? input.cwd : cwd;
        return background ? this.startTask(input, cwd, shownCwd, plan.readOnly) : this.runForeground(input, cwd, shownCwd, plan.readOnly, ctx);
      },
    };
  }

  /**
   * `all` unless the command is read-only: then a recursive read of the cwd (and of any path
   * outside it that the command names) plus `process`. A read-only command that names a file
   * holding secrets is treated as not read-only, so it never runs unannounced beside others.
   */
  private accessPlan(command: string, cwd: string): BashAccessPlan {
    const classification = classifyCommand(command);
    if (!classification.readOnly) return { accesses: ToolAccesses.all(), readOnly: false };
    const named = [...classification.paths];
    for (const glob of classification.globs) {
      const matches = this.expandGlob(glob, cwd);
      if (matches === undefined) return { accesses: ToolAccesses.all(), readOnly: false };
      named.push(...matches);
    }
    const extra = new Map<string, ToolAccess>();
    for (const raw of named) {
      let expanded = raw;
      if (raw === '~' || raw.startsWith('~/')) expanded = nodePath.join(this.workspace.homeDir, raw.slice(1));
      const lexical = nodePath.resolve(cwd, expanded);
      if (isSensitivePath(lexical)) return { accesses: ToolAccesses.all(), readOnly: false };
      if (isPathInside(lexical, cwd) && !raw.includes('/') && !raw.startsWith('~')) continue;
      let canonical: string;
      try {
        canonical = canonicalizeExisting(lexical);
      } catch {
        return { accesses: ToolAccesses.all(), readOnly: false };
      }
      if (isSensitivePath(canonical)) return { accesses: ToolAccesses.all(), readOnly: false };
      if (!isPathInside(canonical, cwd)) extra.set(canonical, ToolAccesses.readTree(canonical));
    }
    return { accesses: [ToolAccesses.readTree(cwd), ...extra.values(), ToolAccesses.process()], readOnly: true };
  }

  /**
   * The files a pattern argument may become when bash expands it (itself when nothing matches, as
   * bash leaves it), or undefined when that cannot be told cheaply: a pattern in a folder part, a
   * folder that cannot be listed, or one too large to list here.
   */
  private expandGlob(glob: string, cwd: string): string[] | undefined {
    const slash = glob.lastIndexOf('/');
    const folderPart = slash >= 0 ? glob.slice(0, slash + 1) : '';
    const pattern = glob.slice(slash + 1);
    if (/[*?[]/.test(folderPart) || pattern === '') return undefined;
    let folder = folderPart === '' ? '.' : folderPart;
    if (folder === '~/' || folder.startsWith('~/')) folder = nodePath.join(this.workspace.homeDir, folder.slice(1));
    const matches: string[] = [];
    let dir: fs.Dir | undefined;
    try {
      dir = fs.opendirSync(nodePath.resolve(cwd, folder));
      for (let entry = dir.readSync(), seen = 0; entry !== null; entry = dir.readSync(), seen++) {
        if (seen >= MAX_GLOB_LISTING) return undefined;
        if (bashPatternMayMatch(pattern, entry.name)) matches.push(folderPart + entry.name);
      }
    } catch {
      return undefined;
    } finally {
      dir?.closeSync();
    }
    // Sorted, as bash sorts the names a pattern becomes.
    return matches.length > 0 ? matches.sort() : [glob];
  }

  private async checkCwd(cwd: string): Promise<string | undefined> {
    try {
      const stat = await fsp.stat(cwd);
      if (!stat.isDirectory()) return `The working directory "${cwd}" is not a directory. Pass a directory as cwd.`;
      return undefined;
    } catch (error) {
      if (isErrnoException(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) {
        return `The working directory "${cwd}" does not exist. Create it first, or pass an existing directory as cwd.`;
      }
      return `The working directory "${cwd}" cannot be used: ${errorMessage(error)}`;
    }
  }

  private env(readOnly: boolean): NodeJS.ProcessEnv {
    // Read-only git commands run beside others; keep them from taking the index lock.
    return shellEnvironment(process.env, readOnly ? { GIT_OPTIONAL_LOCKS: '0' } : {});
  }

  private async startTask(input: BashInput, cwd: string, shownCwd: string, readOnly: boolean): Promise<ToolResult> {
    const tasks = this.tasks!;
    const cwdProblem = await this.checkCwd(cwd);
    if (cwdProblem) return toolError(cwdProblem);
    // Synchronously before the spawn: nothing else runs between this check and the fork.
    const moved = cwdChangedMessage(cwd, shownCwd);
    if (moved) return toolError(moved);
    let task;
    try {
      task = tasks.startProcess({
        command: input.command,
        cwd,
        description: input.description ?? summarize(input.command),
        env: this.env(readOnly),
        ...(input.timeout !== undefined ? { timeoutMs: input.timeout * 1000 } : {}),
      });
    } catch (error) {
      if (error instanceof TaskLimitError) return toolError(error.message);
      return toolError(`The background task could not be started: ${errorMessage(error)}`);
    }
    const lines = [
      `task_id: ${task.id}`,
      `status: ${task.status}`,
      ...(task.pid !== undefined ? [`pid: ${task.pid}`] : []),
      `description: ${task.description}`,
      `cwd: ${cwd}`,
      `timeout: ${input.timeout !== undefined ? `${input.timeout} s` : 'none (runs until it exits or is stopped)'}`,
      `output_path: ${task.outputPath}`,
      ...(this.notifications?.active ? ['automatic_notification: true (you are told when it ends; do not poll it)'] : []),
      `<system>The command is running in the background. Read its output with TaskOutput(task_id="${task.id}"), wait for it with WaitFor, ` +
        `stop it with TaskStop. It is stopped when this agent ends.</system>`,
    ];
    return { output: lines.join('\n') };
  }

  private async runForeground(input: BashInput, cwd: string, shownCwd: string, readOnly: boolean, ctx: ToolExecutionContext): Promise<ToolResult> {
    if (ctx.signal.aborted) return toolError('Aborted before the command started.');
    const bash = this.config.section(bashConfig);
    const cwdProblem = await this.checkCwd(cwd);
    if (cwdProblem) return toolError(cwdProblem);
    const timeoutS = input.timeout ?? bash.defaultTimeoutS;
    const fileName = `${ctx.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}-${randomBytes(4).toString('hex')}.log`;
    // Synchronously before the spawn: nothing else runs between this check and the fork.
    const moved = cwdChangedMessage(cwd, shownCwd);
    if (moved) return toolError(moved);
    // The capture pauses the shell when its file falls behind; the shell feeds the capture.
    const ref: { shell?: RunningShell } = {};
    const capture = new OutputCapture({
      headChars: bash.outputHeadChars,
      tailChars: bash.outputTailChars,
      filePath: nodePath.join(this.workspace.dataDir, 'bash', fileName),
      fileMode: 'overflow',
      fileMaxBytes: bash.outputFileMaxBytes,
      onBackpressure: (paused) => (paused ? ref.shell?.pause() : ref.shell?.resume()),
    });
    const shell = this.runtime.requireProcess().startShell({
      command: input.command,
      cwd,
      env: this.env(readOnly),
      drainMs: bash.drainMs,
      killGraceMs: bash.killGraceMs,
      stopLeftovers: bash.stopLeftoverProcesses,
      onData: (chunk, stream) => {
        const text = capture.write(chunk, stream);
        if (text.length === 0) return;
        try {
          ctx.onUpdate({ kind: stream, text });
        } catch {
          // A failing progress listener must not stop the command.
        }
      },
    });
    ref.shell = shell;
    this.running.add(shell);
    if (this.disposed) shell.kill('abort');
    const started = Date.now();
    const timer = setTimeout(() => shell.kill('timeout'), timeoutS * 1000);
    const onAbort = () => shell.kill('abort');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let exit: ShellExit;
    try {
      exit = await shell.done;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      this.running.delete(shell);
    }
    await capture.close();
    return formatForegroundResult(exit, capture, { timeoutS, killGraceMs: bash.killGraceMs, maxTimeoutS: bash.maxTimeoutS, elapsedMs: Date.now() - started });
  }
}

/**
 * The message when the working directory (canonical) is now reached through a link, so the
 * command would start elsewhere than where it was resolved and approved.
 */
function cwdChangedMessage(cwd: string, shownCwd: string): string | undefined {
  const change = realPathChangeSync(cwd);
  return change && pathChangedMessage(shownCwd, change, { action: 'start of the command', nothing: 'the command was not run' });
}

/** The command on one line, cut to 80 characters, for descriptions. */
function summarize(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export function formatForegroundResult(
  exit: ShellExit,
  capture: OutputCapture,
  context: { timeoutS: number; killGraceMs: number; maxTimeoutS: number; elapsedMs: number },
): ToolResult {
  if (exit.spawnError !== undefined) return toolError(`The command could not be started: ${exit.spawnError}`);
  const rendered = capture.render();
  const status: string[] = [];
  let isError = false;
  const escalation = exit.forceKilled ? `SIGTERM, then SIGKILL after ${formatDuration(context.killGraceMs)}` : 'SIGTERM';
  if (exit.killReason === 'timeout') {
    isError = true;
    status.push(
      `Command timed out after ${context.timeoutS} s and was stopped (${escalation} to its process group). ` +
        (context.timeoutS < context.maxTimeoutS
          ? `If it needs longer, pass a larger timeout (at most ${context.maxTimeoutS} s) or run it in the background.`
          : `For commands longer than ${context.maxTimeoutS} s, run them in the background.`),
    );
  } else if (exit.killReason === 'abort') {
    isError = true;
    status.push(`Command was interrupted after ${formatDuration(context.elapsedMs)} and stopped (${escalation} to its process group).`);
  } else if (exit.exitCode === null) {
    isError = true;
    status.push(`Command was killed by signal ${exit.signal ?? 'unknown'}.`);
  } else if (exit.exitCode !== 0) {
    isError = true;
    status.push(`Command failed with exit code ${exit.exitCode}.`);
  } else if (rendered.text.length === 0) {
    status.push('Command succeeded with no output.');
  }
  if (rendered.text.length === 0 && isError) status.push('It printed nothing.');
  if (rendered.omittedChars > 0) {
    const file = describeOutputFile(capture);
    status.push(
      `The output was ${formatCount(capture.totalChars)} characters (${formatBytes(capture.totalBytes)}); ${formatCount(rendered.omittedChars)} in the middle are left out above.` +
        (file ? ` ${file} Page it with Read (line_offset, n_lines) or search it with Grep.` : ''),
    );
  }
  if (exit.leftoversStopped) {
    status.push('The command left processes running in the background; they were stopped when it exited. To keep a process running, start it with run_in_background.');
  } else if (exit.outputCutOff) {
    status.push('A background process still held the output open after the command exited; its later output was not collected.');
  }
  const body = rendered.text;
  const statusLine = status.length > 0 ? `<system>${status.join(' ')}</system>` : '';
  const output = statusLine ? (body.length === 0 ? statusLine : `${body}${body.endsWith('\n') ? '' : '\n'}${statusLine}`) : body;
  return {
    output,
    ...(isError ? { isError: true } : {}),
    ...(rendered.omittedChars > 0 ? { truncated: true } : {}),
    ...(rendered.omittedChars > 0 && capture.hasFile && capture.fileError === undefined ? { outputPath: capture.filePath } : {}),
  };
}

export const IBashTool = createServiceId<BashTool>('tool.Bash');
export const bashTool = registerAgentToolService(IBashTool, BashTool, {
  name: 'Bash',
  domain: 'os',
  requiredRuntimeCapabilities: ['process'],
  samples: BASH_SAMPLES,
});
