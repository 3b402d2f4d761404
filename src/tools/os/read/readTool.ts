import * as nodePath from 'node:path';
import type { Stats } from 'node:fs';
import { inject, injectable, optional } from 'inversify';
import { errorMessage, isErrnoException } from '../../../base/errors';
import { formatBytes, formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import type { ReadConfig } from '../osConfig';
import { SequentialHash, sha256Hex } from '../../../base/fs/fileHash';
import { IAgentFileStateService } from '../contract';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { resolvePathAccess } from '../../../tool/pathAccess';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchPathRule } from '../../../tool/ruleMatch';
import { describeBinary, detectEncoding } from '../../../base/fs/fileSniff';
import { descriptorReader, NotRegularFileError, type OpenedFile, openRegularFile, PathChangedError, pathChangedMessage } from '../../../base/fs/openedFile';
import { CHUNK_BYTES, type LineWindow, type ReadableHandle, readForward, readTail, windowFromText } from './lineReader';
import { type ReadInput, ReadInputSchema, READ_SAMPLES } from './read';
import { readConfig } from '../osConfig';

const PARAMETERS = toInputJsonSchema(ReadInputSchema);
const SNIFF_BYTES = 8192;
/** Read first, for the sniff and the window's first chunk alike: a small file costs one read. */
const FIRST_READ_BYTES = Math.max(SNIFF_BYTES, CHUNK_BYTES);
/** UTF-16 files are transcoded whole, so they have a size cap. */
export const UTF16_MAX_BYTES = 16 * 1024 * 1024;

@injectable()
export class ReadTool implements ExecutableTool<ReadInput> {
  readonly name = 'Read';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
  /** Reads of this agent in flight. */
  private reading = 0;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    // The stale-write guard of Write and Edit; absent when an App has Read without them.
    @inject(IAgentFileStateService) @optional() private readonly fileState?: IAgentFileStateService,
  ) {}

  get description(): string {
    const read = this.config.section(readConfig);
    return renderPrompt(loadDescriptionTemplate(__dirname, 'read.md'), {
      DEFAULT_MAX_CHARS: formatCount(read.maxChars),
      DEFAULT_MAX_LINES: formatCount(read.maxLines),
      MAX_LINE_CHARS: formatCount(read.maxLineChars),
    });
  }

  resolveExecution(input: ReadInput): ToolExecution {
    // Throws PathSecurityError for secrets and escapes; the executor shows its message as it is.
    const access = resolvePathAccess(input.path, this.workspace.pathContext('read a file'));
    const path = access.path;
    const generation = this.runtime.generation;
    const shown = this.workspace.isInside(path) ? nodePath.relative(this.workspace.cwd, path) || '.' : path;
    const range =
      input.line_offset !== undefined && input.line_offset < 0
        ? `last ${-input.line_offset} lines`
        : input.line_offset !== undefined || input.n_lines !== undefined
          ? `from line ${input.line_offset ?? 1}`
          : undefined;
    return {
      accesses: [ToolAccesses.readFile(path)],
      display: { kind: 'file_io', operation: 'read', path, ...(range ? { detail: range } : {}) },
      description: `Reading ${shown}${range ? ` (${range})` : ''}`,
      approvalRule: literalRule('Read', path),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, path, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      execute: (ctx) => this.read(input, path, generation, ctx.signal),
    };
  }

  private async read(input: ReadInput, path: string, generation: number, signal: AbortSignal): Promise<ToolResult> {
    if (this.runtime.generation !== generation) return toolError('The runtime changed after this call was prepared. Retry the tool call.');
    this.reading++;
    try {
      return await this.readAs(this.reading === 1, input, path, generation, signal);
    } finally {
      this.reading--;
    }
  }

  /** `alone`: no other Read of this agent is in flight, so nothing overlaps with this one's I/O. */
  private async readAs(alone: boolean, input: ReadInput, path: string, generation: number, signal: AbortSignal): Promise<ToolResult> {
    const options = this.config.section(readConfig);
    const shown = input.path;
    const fs = this.runtime.requireFs();
    // Opened once, exactly at the resolved path, and read through that handle only: a symlink or
    // FIFO swapped in after the call was resolved is refused, never followed or blocked on.
    let opened: OpenedFile;
    try {
      opened = await openRegularFile(fs, path, { synchronousStat: alone });
    } catch (error) {
      return toolError(openErrorMessage(shown, error));
    }
    const { handle: fileHandle, stat } = opened;
    const size = stat.size;
    if (size === 0) {
      await fileHandle.close();
      this.recordSeen(path, stat, generation, sha256Hex(''));
      return { output: `<system>The file is empty (0 bytes).</system>`, spillExempt: true };
    }

    // A Read alone reads a file its first read takes whole synchronously (see OpenRegularFileOptions).
    const source = alone && opened.local && size <= FIRST_READ_BYTES ? descriptorReader(opened) : fileHandle;
    // Files Read scans whole anyway are hashed from the same reads, for the stale-write guard.
    const hash = this.fileState && size <= this.fileState.hashMaxBytes ? new SequentialHash() : undefined;
    const handle = hash ? hash.wrap(source) : source;
    const seen = async () => this.recordSeen(path, stat, generation, hash ? await hash.finish(source, size, signal) : undefined);
    try {
      const first = Buffer.allocUnsafe(Math.min(FIRST_READ_BYTES, size));
      const { bytesRead } = await handle.read(first, 0, first.length, 0);
      const head = first.subarray(0, bytesRead);
      const sniffed = head.subarray(0, SNIFF_BYTES);
      const encoding = detectEncoding(sniffed);
      if (encoding.kind === 'binary') {
        // The agent now knows what the file is; overwriting it with Write is a deliberate choice.
        await seen();
        return toolError(describeBinary(shown, sniffed));
      }
      const reader = readingFrom(head, handle, size);
      const limits = { maxLines: input.n_lines ?? options.maxLines, maxChars: options.maxChars, maxLineChars: options.maxLineChars, signal };
      const lineOffset = input.line_offset ?? 1;
      const countAll = size <= options.lineCountMaxBytes;
      let window: LineWindow;
      if (encoding.kind === 'utf16le' || encoding.kind === 'utf16be') {
        if (size > UTF16_MAX_BYTES) {
          await seen();
          return toolError(
            `"${shown}" is UTF-16 text of ${formatBytes(size)}; Read converts UTF-16 files of up to ${formatBytes(UTF16_MAX_BYTES)}. ` +
              `Convert it to UTF-8 first, e.g. with Bash: iconv -f UTF-16 -t UTF-8.`,
          );
        }
        const raw = Buffer.alloc(size);
        await reader.read(raw, 0, size, 0);
        const text = new TextDecoder(encoding.kind === 'utf16le' ? 'utf-16le' : 'utf-16be').decode(raw);
        window = windowFromText(text, { ...limits, lineOffset });
      } else if (lineOffset < 0) {
        window = await readTail(reader, size, { ...limits, count: -lineOffset, countAll });
      } else {
        window = await readForward(reader, size, { ...limits, startLine: lineOffset, countAll, from: encoding.kind === 'utf8bom' ? 3 : 0 });
      }
      await seen();
      if (window.sawNul) {
        return toolError(`"${shown}" looks like a binary file (it contains NUL bytes). Read only reads text files; use Bash (e.g. \`file\` or \`xxd | head\`) to inspect it.`);
      }
      return { output: renderWindow(window, { lineOffset, size, options, encoding: encoding.kind }), spillExempt: true };
    } catch (error) {
      if (signal.aborted) throw error;
      return toolError(`Reading "${shown}" failed: ${errorMessage(error)}`);
    } finally {
      await fileHandle.close();
    }
  }

  /** Tells the stale-write guard what this agent has now seen of the file. */
  private recordSeen(path: string, stat: Stats, generation: number, sha256: string | undefined): void {
    this.fileState?.record(path, { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ...(sha256 !== undefined ? { sha256 } : {}) }, generation);
  }
}

/**
 * Reads of the file whose first bytes are `head`: a read that lies inside them (or that they end
 * with the file) is answered from them, any other from `handle`. A short read only at the end.
 */
function readingFrom(head: Buffer, handle: ReadableHandle, size: number): ReadableHandle {
  const whole = head.length >= size;
  return {
    read: async (buffer, offset, length, position) => {
      const inHead = whole ? position <= head.length : position + length <= head.length;
      if (!inHead) return handle.read(buffer, offset, length, position);
      return { bytesRead: head.copy(buffer, offset, position, Math.min(head.length, position + length)) };
    },
  };
}

function openErrorMessage(shown: string, error: unknown): string {
  if (error instanceof PathChangedError) return pathChangedMessage(shown, error.change, { action: 'read', nothing: 'nothing was read' });
  if (error instanceof NotRegularFileError) {
    if (error.kind === 'directory') return `"${shown}" is a directory, not a file. Use Glob to find files in it, or run \`ls\` through Bash to list it.`;
    return `"${shown}" is not a regular file (it is a ${error.kind}). Read only reads regular files; nothing was read.`;
  }
  const code = isErrnoException(error) ? error.code : undefined;
  if (code === 'ENOENT' || code === 'ENOTDIR') return `"${shown}" does not exist. Check the path, or use Glob to find the file by name.`;
  if (code === 'EACCES' || code === 'EPERM') return `"${shown}" cannot be read: permission denied.`;
  return `"${shown}" cannot be read: ${errorMessage(error)}`;
}

function listNumbers(numbers: readonly number[]): string {
  const shown = numbers.slice(0, 10).join(', ');
  return numbers.length > 10 ? `${shown} and ${numbers.length - 10} more` : shown;
}

export function renderWindow(
  window: LineWindow,
  context: { lineOffset: number; size: number; options: ReadConfig; encoding: string },
): string {
  // One string built in a pass (a Read's output is most of what it allocates), and the marked lines found on the way.
  let body = '';
  const cut: number[] = [];
  const invalid: number[] = [];
  for (const line of window.lines) {
    body += `${line.n}\t${line.text}`;
    if (line.cutFromBytes !== undefined) {
      body += ` [...line truncated: ${formatCount(line.cutFromBytes)} bytes in total]`;
      cut.push(line.n);
    }
    if (line.invalidUtf8) invalid.push(line.n);
    body += '\n';
  }
  const status: string[] = [];
  const total = window.totalLines;
  const totalText = total !== undefined ? formatCount(total) : undefined;
  const first = window.lines[0];
  const last = window.lines[window.lines.length - 1];
  if (!first || !last) {
    status.push(
      total !== undefined
        ? `No lines read: the file has ${totalText} line${total === 1 ? '' : 's'}, so line_offset=${context.lineOffset} is past the end.`
        : `No lines read: line_offset=${context.lineOffset} is past the end of the file.`,
    );
  } else {
    const range = first.n === last.n ? `Line ${first.n}` : first.n < 0 ? `Lines ${first.n} to ${last.n}` : `Lines ${first.n}-${last.n}`;
    if (total !== undefined) status.push(`${range} of ${totalText}.`);
    else if (first.n < 0) {
      status.push(
        `${range}, counted from the end of the file (-1 is the last line); the file is ${formatBytes(context.size)}, too large to number its lines from the start.`,
      );
    } else {
      status.push(`${range} of a ${formatBytes(context.size)} file (lines not counted past the window).`);
    }
    const next = last.n + 1;
    if (window.stoppedBy === 'eof') status.push('End of file reached.');
    else if (window.stoppedBy === 'lines') {
      status.push(`Stopped at the ${formatCount(window.lines.length)}-line limit; continue with line_offset=${next}.`);
    } else if (context.lineOffset < 0) {
      status.push(`Older lines were left out to stay within the ${formatCount(context.options.maxChars)}-character budget.`);
    } else {
      status.push(`Stopped at the ${formatCount(context.options.maxChars)}-character budget; continue with line_offset=${next}.`);
    }
  }
  if (cut.length > 0) status.push(`Line${cut.length > 1 ? 's' : ''} ${listNumbers(cut)} ${cut.length > 1 ? 'were' : 'was'} longer than ${formatCount(context.options.maxLineChars)} characters and cut.`);
  if (invalid.length > 0) status.push(`Line${invalid.length > 1 ? 's' : ''} ${listNumbers(invalid)} contain${invalid.length > 1 ? '' : 's'} bytes that are not valid UTF-8, shown as \uFFFD.`);
  if (window.crlfLines > 0) status.push('The file uses CRLF line endings (shown without \\r).');
  if (context.encoding === 'utf16le' || context.encoding === 'utf16be') status.push(`The file is ${context.encoding === 'utf16le' ? 'UTF-16 LE' : 'UTF-16 BE'} text, shown converted.`);
  return `${body}<system>${status.join(' ')}</system>`;
}

export const IReadTool = createServiceId<ReadTool>('tool.Read');
export const readTool = registerAgentToolService(IReadTool, ReadTool, {
  name: 'Read',
  domain: 'os',
  requiredRuntimeCapabilities: ['fs'],
  samples: READ_SAMPLES,
});
