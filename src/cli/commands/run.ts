import * as nodePath from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { errorMessage } from '../../base/errors';
import { InputTooLargeError, NotRegularFileError, readRegularFileSync } from '../../base/fs/openedFile';
import { formatBytes } from '../../base/strings';
import { configIssuesFromZod } from '../../services/config/configLoader';
import type { ToolCall, ToolCallResult } from '../../services/executor/toolExecutor';
import { ISessionInteractionService } from '../../services/interaction/interaction';
import { isMcpToolName, type ToolOutput } from '../../tool/contract';
import { openAgentSession } from '../agentSession';
import { AGENT_ID_OPTION_HELP, addWorkspaceOptions, parseAgentIdFlag, type WorkspaceFlags } from '../commonOptions';
import { ApproveAllInteractions, TerminalInteractions, UnattendedInteractions, terminalAvailable } from '../interactions';
import { type CliIo, InterruptedError, UsageError } from '../io';
import { PrintingPromptInjection } from '../promptInjection';

interface RunFlags extends WorkspaceFlags {
  readonly yes?: boolean;
  readonly json?: boolean;
  readonly agentId?: string;
}

// Only what is not a call object rejects the batch (not an array, no name, a misspelt key); a
// call the executor cannot run (an empty or unknown name, arguments of the wrong type) gets its
// own rejected result and the others run, as when a model sends it.
const CallSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  arguments: z.unknown().optional(),
});
const BatchSchema = z.array(CallSchema);

/** Unread bytes of stderr (a pipe) past which `--json` progress events are left out. */
const PROGRESS_BACKLOG_BYTES = 1024 * 1024;

/** The most a batch may be, from a file or stdin: a JSON array of calls, not a stream without end. */
export const MAX_BATCH_BYTES = 64 * 1024 * 1024;

async function readInput(file: string | undefined, io: CliIo): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return readRegularFileSync(nodePath.resolve(io.cwd, file), MAX_BATCH_BYTES).toString('utf8');
    } catch (error) {
      if (error instanceof NotRegularFileError) {
        throw new UsageError(`cannot read ${file}: it is a ${error.kind}, not a regular file. Give a JSON file, or pipe the batch on stdin ("-").`);
      }
      if (error instanceof InputTooLargeError) {
        throw new UsageError(`cannot read ${file}: it is larger than ${formatBytes(MAX_BATCH_BYTES)}, the most a batch may be. Split it into smaller batches.`);
      }
      throw new UsageError(`cannot read ${file}: ${errorMessage(error)}`);
    }
  }
  if (io.stdin.isTTY) throw new UsageError('no input: give a FILE, or pipe a JSON array of calls on stdin.');
  return readAll(io.stdin, io.interrupt);
}

/**
 * The whole stream as text, at most MAX_BATCH_BYTES; a signal (SIGTERM while waiting for the
 * input) stops the wait.
 */
function readAll(stream: NodeJS.ReadableStream, interrupt: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const settle = (done: () => void) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      interrupt?.removeEventListener('abort', onAbort);
      done();
    };
    const onData = (chunk: string | Buffer) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (bytes > MAX_BATCH_BYTES) {
        // Nothing more is read: the stream is paused and let go.
        stream.pause();
        settle(() => reject(new UsageError(`stdin holds more than ${formatBytes(MAX_BATCH_BYTES)}, the most a batch may be. Split it into smaller batches.`)));
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks).toString('utf8')));
    const onError = (error: Error) => settle(() => reject(new UsageError(`cannot read stdin: ${errorMessage(error)}`)));
    const onAbort = () => settle(() => reject(new InterruptedError('stopped while reading the input')));
    if (interrupt?.aborted) return onAbort();
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    interrupt?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Parses the batch; a problem is a usage error naming where it is. */
export function parseBatch(text: string, source: string): ToolCall[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${errorMessage(error)}`);
  }
  const parsed = BatchSchema.safeParse(json);
  if (!parsed.success) {
    const issues = configIssuesFromZod(parsed.error, BatchSchema).map((i) => `${i.path || '(root)'}: ${i.message}`);
    throw new UsageError(`${source} must be a JSON array of {"id"?: string, "name": string, "arguments": string | object}:\n  - ${issues.join('\n  - ')}`);
  }
  return parsed.data.map((call, i) => ({
    id: call.id || `call_${i + 1}`,
    name: call.name,
    // The executor validates the arguments, so a wrong type is that call's error, not the batch's.
    arguments: (call.arguments ?? {}) as ToolCall['arguments'],
  }));
}

function outputText(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  return output.map((part) => (part.type === 'text' ? part.text : `[${part.type} ${part.mimeType}, ${part.data.length} base64 characters]`)).join('\n');
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

function argsText(call: ToolCall): string {
  const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return text.length > 300 ? text.slice(0, 299) + '…' : text;
}

/**
 * Writes results as the executor hands them over, in call order, each as soon as it is in, and
 * keeps none once written: a batch of thousands of calls never holds all its results, or its
 * whole output as one string.
 */
interface ResultWriter {
  write(result: ToolCallResult, index: number): void;
  end(): void;
}

function jsonResultWriter(out: CliIo['stdout']): ResultWriter {
  // The same text as JSON.stringify({results: [...]}), written in pieces.
  let written = 0;
  return {
    write: (r) => {
      const json = JSON.stringify({
        id: r.toolCallId,
        name: r.name,
        isError: r.isError,
        outcome: r.outcome,
        output: r.output,
        truncated: r.truncated,
        ...(r.outputPath !== undefined ? { outputPath: r.outputPath } : {}),
        ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}),
      });
      out.write((written++ === 0 ? '{"results":[' : ',') + json);
    },
    end: () => {
      out.write((written === 0 ? '{"results":[' : '') + ']}\n');
    },
  };
}

function transcriptWriter(out: CliIo['stdout'], calls: readonly ToolCall[]): ResultWriter {
  const counts = new Map<string, number>();
  let errors = 0;
  return {
    write: (result, i) => {
      counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
      if (result.isError) errors++;
      const status = result.isError ? `${result.outcome}, error` : result.outcome;
      const lines = [`=== [${i + 1}/${calls.length}] ${result.name} (${result.toolCallId}): ${status}, ${formatMs(result.durationMs)}`, `args: ${argsText(calls[i]!)}`];
      if (result.truncated && result.outputPath) lines.push(`full output: ${result.outputPath}`);
      lines.push(outputText(result.output));
      // Each block ends its own last line: a line on stderr ("finished …") that a shared terminal
      // or log shows between two blocks then starts a line of its own.
      out.write((i > 0 ? '\n' : '') + lines.join('\n') + '\n');
    },
    end: () => {
      const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
      const summary = `${total} call${total === 1 ? '' : 's'}: ${[...counts].map(([o, n]) => `${n} ${o}`).join(', ')}; ${errors} error${errors === 1 ? '' : 's'}.`;
      out.write((total > 0 ? '\n' : '') + summary + '\n');
    },
  };
}

export function runCommand(io: CliIo): Command {
  const command = new Command('run')
    .description('run a batch of tool calls through the executor (policy, validation, approval, scheduling, output budget)')
    .argument('[file]', 'a JSON array of {"id"?, "name", "arguments"}; "-" or absent: read stdin')
    .option('--yes', 'approve every call that needs approval')
    .option('--json', 'print only {"results": [...]} on stdout; progress and events go to stderr as JSON lines')
    .option('--agent-id <id>', AGENT_ID_OPTION_HELP);
  addWorkspaceOptions(command);
  command.action(async (file: string | undefined, flags: RunFlags) => {
    const agentId = parseAgentIdFlag(flags.agentId);
    const text = await readInput(file, io);
    const calls = parseBatch(text, file && file !== '-' ? file : 'stdin');
    const interactive = !flags.yes && terminalAvailable(io.stderr.isTTY);
    const terminal = interactive ? new TerminalInteractions(io.stderr) : undefined;
    const session = openAgentSession(flags, io, {
      jsonWarnings: flags.json === true,
      ...(agentId !== undefined ? { agentId } : {}),
      overrides: (container) => {
        const binding = container.rebind(ISessionInteractionService);
        if (flags.yes) binding.toConstantValue(new ApproveAllInteractions(io.stderr));
        else if (terminal) binding.toConstantValue(terminal);
        else binding.toConstantValue(new UnattendedInteractions(io.stderr));
        PrintingPromptInjection.bindTo(container, io.stderr, flags.json === true);
      },
    });
    try {
      const executor = session.agent.executor;
      const live = !flags.json && io.stderr.isTTY === true;
      let done = 0;
      const running = new Map<string, string>();
      // Once results are printed they are the progress: the line is no longer drawn between them.
      let printing = false;
      const drawProgress = () => {
        if (!live || printing || terminal?.prompting) return;
        const current = [...running.values()].slice(0, 3).join(', ');
        io.stderr.write(`\r\x1b[2K[${done}/${calls.length}] ${current}`);
      };
      executor.onToolCallStarted((e) => {
        if (flags.json) io.stderr.write(JSON.stringify({ event: 'started', toolCallId: e.toolCallId, name: e.name, description: e.description }) + '\n');
        running.set(e.toolCallId, e.description ?? e.name);
        drawProgress();
      });
      // Progress is advisory and can be as big as a command's whole output: while stderr's reader
      // lags, updates are left out (and counted) rather than queued in memory without bound.
      const progressSkipped = new Map<string, number>();
      const takeSkipped = (id: string): { progressSkipped?: number } => {
        const count = progressSkipped.get(id);
        progressSkipped.delete(id);
        return count ? { progressSkipped: count } : {};
      };
      executor.onToolProgress((e) => {
        if (!flags.json) return;
        if ((io.stderr.writableLength ?? 0) > PROGRESS_BACKLOG_BYTES) {
          progressSkipped.set(e.toolCallId, (progressSkipped.get(e.toolCallId) ?? 0) + 1);
          return;
        }
        io.stderr.write(JSON.stringify({ event: 'progress', toolCallId: e.toolCallId, name: e.name, update: e.update, ...takeSkipped(e.toolCallId) }) + '\n');
      });
      executor.onToolCallFinished((e) => {
        done++;
        running.delete(e.toolCallId);
        if (flags.json) {
          io.stderr.write(
            JSON.stringify({ event: 'finished', toolCallId: e.toolCallId, name: e.name, outcome: e.outcome, isError: e.isError, durationMs: e.durationMs, ...takeSkipped(e.toolCallId) }) + '\n',
          );
        } else if (!live) {
          io.stderr.write(`finished ${e.toolCallId} ${e.name}: ${e.outcome}${e.isError ? ' (error)' : ''}\n`);
        }
        drawProgress();
      });
      // A call to an MCP tool whose server is still starting waits for the servers to settle.
      if (calls.some((call) => isMcpToolName(call.name) && !session.agent.registry.has(call.name))) await session.whenMcpSettled();
      const writer = flags.json ? jsonResultWriter(io.stdout) : transcriptWriter(io.stdout, calls);
      const startPrinting = () => {
        if (live && !printing) io.stderr.write('\r\x1b[2K');
        printing = true;
      };
      await executor.executeEach(
        calls,
        (result, index) => {
          startPrinting();
          writer.write(result, index);
        },
        { signal: io.interrupt },
      );
      startPrinting();
      writer.end();
    } finally {
      terminal?.dispose();
      await session.dispose();
    }
  });
  return command;
}
