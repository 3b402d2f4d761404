import { randomUUID } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { errorMessage } from '../../base/errors';
import { formatCount } from '../../base/strings';
import type { ContentPart, ToolResult } from '../../tool/contract';
import { IConfigService } from '../config/config';
import { IAgentWorkspaceService } from '../workspace/workspace';
import {
  type IAgentToolResultTruncationService,
  SPILL_PREVIEW_HEAD_CHARS,
  SPILL_PREVIEW_TAIL_CHARS,
  type TruncatedResult,
} from './toolResultTruncation';

/** Written in slices so a 100 MB result is never encoded into one more full-size buffer. */
const WRITE_SLICE_CHARS = 1 << 20;

function fileStem(toolName: string, toolCallId: string): string {
  const stem = `${toolName}-${toolCallId}`.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 80);
  return stem || 'tool-result';
}

@injectable()
export class AgentToolResultTruncationService implements IAgentToolResultTruncationService {
  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
  ) {}

  get spillDirectory(): string {
    return nodePath.join(this.workspace.dataDir, 'tool-results');
  }

  async truncateForModel(result: ToolResult, call: { toolName: string; toolCallId: string }): Promise<TruncatedResult> {
    if (result.spillExempt) return { result };
    const { maxChars, maxRetainedChars } = this.config.config.toolResult;
    const output = result.output;
    const text = typeof output === 'string' ? output : joinText(output);
    if (text.length <= maxChars) return { result };

    let outputPath: string | undefined;
    let failure: string | undefined;
    try {
      outputPath = await this.spill(text.length > maxRetainedChars ? text.slice(0, maxRetainedChars) : text, call);
    } catch (error) {
      failure = errorMessage(error);
    }
    const pointer = renderPointer(text, { outputPath, failure, maxChars, retained: Math.min(text.length, maxRetainedChars) });
    const media = typeof output === 'string' ? [] : output.filter((part) => part.type !== 'text');
    const newOutput = media.length > 0 ? [{ type: 'text' as const, text: pointer }, ...media] : pointer;
    return { result: { ...result, output: newOutput, truncated: true }, outputPath };
  }

  private async spill(text: string, call: { toolName: string; toolCallId: string }): Promise<string> {
    const directory = this.spillDirectory;
    await fsp.mkdir(directory, { recursive: true });
    // Canonical, so the path handed to the model resolves to itself (e.g. /tmp on macOS).
    const file = nodePath.join(await fsp.realpath(directory), `${fileStem(call.toolName, call.toolCallId)}-${randomUUID()}.txt`);
    // 'wx': two spills never share a file, even with equal names.
    const handle = await fsp.open(file, 'wx', 0o600);
    try {
      for (let at = 0; at < text.length; at += WRITE_SLICE_CHARS) {
        await handle.write(text.slice(at, at + WRITE_SLICE_CHARS));
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fsp.rm(file, { force: true }).catch(() => undefined);
      throw error;
    }
    await handle.close();
    return file;
  }
}

function joinText(parts: readonly ContentPart[]): string {
  return parts
    .filter((p): p is Extract<ContentPart, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

function renderPointer(
  text: string,
  info: { outputPath?: string; failure?: string; maxChars: number; retained: number },
): string {
  const lines = [`The output has ${formatCount(text.length)} characters, more than the ${formatCount(info.maxChars)} a tool result may have.`];
  if (info.outputPath) {
    lines.push(`output_path: ${info.outputPath}`);
    lines.push(
      `The full output${info.retained < text.length ? ` (its first ${formatCount(info.retained)} characters)` : ''} is in that file: page through it with Read (line_offset, n_lines) or search it with Grep instead of running the tool again.`,
    );
  } else {
    lines.push(`The full output could not be saved (${info.failure ?? 'unknown error'}); only this preview is available.`);
  }
  const head = text.slice(0, SPILL_PREVIEW_HEAD_CHARS);
  const tail = text.slice(Math.max(SPILL_PREVIEW_HEAD_CHARS, text.length - SPILL_PREVIEW_TAIL_CHARS));
  const omitted = text.length - head.length - tail.length;
  lines.push('', `[first ${formatCount(head.length)} characters]`, head);
  if (tail.length > 0) lines.push(`[… ${formatCount(omitted)} characters omitted …]`, `[last ${formatCount(tail.length)} characters]`, tail);
  return lines.join('\n');
}
