import type { Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { isErrnoException } from '../../base/errors';
import { formatBytes, formatCount } from '../../base/strings';
import { createServiceId } from '../../di/serviceId';
import { registerAgentToolService } from '../../di/toolContribution';
import { IConfigService } from '../../services/config/config';
import { sha256Hex } from '../../base/fs/fileHash';
import { IAgentFileStateService, IFileWriteLocks } from '../os/contract';
import { IAgentRuntimeService } from '../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../services/workspace/workspace';
import { ToolAccesses } from '../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../tool/contract';
import { loadDescriptionTemplate } from '../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../tool/inputSchema';
import { resolvePathAccess } from '../../tool/pathAccess';
import { renderPrompt } from '../../tool/renderPrompt';
import { literalRule, matchPathRule } from '../../tool/ruleMatch';
import { detectEncoding, knownBinaryType } from '../../base/fs/fileSniff';
import { sweepStaleTempFiles, TargetChangedError, writeFileAtomic } from '../../base/fs/atomicWrite';
import { concurrentChangeMessage, fsErrorMessage, preview } from '../../base/fs/fileText';
import { NotRegularFileError, openRegularFile, PathChangedError, pathChangedMessage, readBounded } from '../../base/fs/openedFile';
import { type EditInput, EditInputSchema, EDIT_SAMPLES } from './edit';
import {
  detectLineEndings,
  findOccurrences,
  firstInvalidUtf8,
  type LineEndingStyle,
  lineNumbersAt,
  type OccurrenceTally,
  tallyOccurrences,
  withLineEndings,
  writeReplacingAll,
} from './editText';
import { findNearMatch, linesOf, type NearMatch } from './nearMatch';
import { editConfig } from './editConfig';

const PARAMETERS = toInputJsonSchema(EditInputSchema);
const SNIFF_BYTES = 8192;
/** Files up to this size are searched for a near match when old_string is not found. */
export const NEAR_MATCH_MAX_BYTES = 8 * 1024 * 1024;
/** Lines of the file shown with a near match, and characters per line. */
const SNIPPET_MAX_LINES = 12;
const SNIPPET_MAX_LINE_CHARS = 240;
/** Line numbers listed in messages. */
const LISTED_LINES = 10;

/** One way to write old_string and new_string in the file's line endings. */
interface Spelling {
  readonly oldText: string;
  readonly newText: string;
  /** The line endings were changed to the file's. */
  readonly converted?: 'crlf' | 'lf';
}

/** old_string and new_string as Edit tries them, in order, for a file with these line endings. */
export function spellingsFor(oldString: string, newString: string, style: LineEndingStyle): Spelling[] {
  const asIs: Spelling = { oldText: oldString, newText: newString };
  const as = (ending: 'crlf' | 'lf'): Spelling => {
    const oldText = withLineEndings(oldString, ending);
    const newText = withLineEndings(newString, ending);
    return oldText === oldString && newText === newString ? asIs : { oldText, newText, converted: ending };
  };
  if (style === 'crlf') return [as('crlf')];
  if (style === 'lf' || style === 'none') return [as('lf')];
  // Mixed: as sent first, then all CRLF, then all LF.
  const tries = [asIs, as('crlf'), as('lf')];
  return tries.filter((s, i) => tries.findIndex((t) => t.oldText === s.oldText) === i);
}

/**
 * `line 4` or `lines 1, 3, 5 and 12 more`: the distinct lines of ascending line numbers (or the
 * first of them, with `distinctCount` saying how many there are).
 */
export function describeLines(lines: readonly number[], distinctCount?: number): string {
  const distinct = lines.filter((line, i) => i === 0 || line !== lines[i - 1]);
  const total = distinctCount ?? distinct.length;
  if (total === 1) return `line ${distinct[0]}`;
  const shown = distinct.slice(0, LISTED_LINES).join(', ');
  const more = total - Math.min(distinct.length, LISTED_LINES);
  return `lines ${shown}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
}

@injectable()
export class EditTool implements ExecutableTool<EditInput> {
  readonly name = 'Edit';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentFileStateService) private readonly fileState: IAgentFileStateService,
    @inject(IFileWriteLocks) private readonly locks: IFileWriteLocks,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'edit.md'), { MAX_FILE_SIZE: formatBytes(this.config.section(editConfig).maxFileBytes) });
  }

  resolveExecution(input: EditInput): ToolExecution {
    if (input.old_string === input.new_string) {
      return toolError('No changes to make: old_string and new_string are exactly the same. Put the new text in new_string.');
    }
    const path = resolvePathAccess(input.path, this.workspace.pathContext('write or edit a file')).path;
    const generation = this.runtime.generation;
    const shown = this.workspace.isInside(path) ? nodePath.relative(this.workspace.cwd, path) || '.' : path;
    return {
      accesses: [ToolAccesses.writeFile(path)],
      display: { kind: 'diff', path, before: preview(input.old_string), after: preview(input.new_string) },
      description: `Editing ${shown}${input.replace_all ? ' (all occurrences)' : ''}`,
      approvalRule: literalRule('Edit', path),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, path, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      // Held from reading the file to the rename: no other agent's write of the file comes between.
      execute: (ctx) => this.locks.withLock(path, () => this.edit(input, path, generation, ctx.signal), ctx.signal),
    };
  }

  private async edit(input: EditInput, path: string, generation: number, signal: AbortSignal): Promise<ToolResult> {
    if (this.runtime.generation !== generation) return toolError('The runtime changed after this call was prepared. Retry the tool call.');
    const fs = this.runtime.requireFs();
    const shown = input.path;
    const maxBytes = this.config.section(editConfig).maxFileBytes;

    // Opened once, exactly at the resolved path (no link followed, a FIFO never blocks), and read
    // through that handle; the stat the write is checked against is the handle's.
    let stat: Stats;
    let bytes: Buffer;
    try {
      const opened = await openRegularFile(fs, path);
      try {
        stat = opened.stat;
        if (stat.size > maxBytes) return toolError(tooLargeMessage(shown, stat.size, maxBytes));
        const read = await readBounded(opened.handle, maxBytes, stat.size, signal);
        if (read.more) return toolError(tooLargeMessage(shown, undefined, maxBytes));
        bytes = read.bytes;
      } finally {
        await opened.handle.close().catch(() => undefined);
      }
    } catch (error) {
      if (signal.aborted) throw error;
      return toolError(openErrorMessage(shown, error));
    }
    const refusal = encodingRefusal(shown, bytes);
    if (refusal) return toolError(refusal);

    const check = await this.fileState.check(path, shown, {
      size: bytes.length,
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      sha256: () => Promise.resolve(sha256Hex(bytes)),
    });
    if (!check.ok) return toolError(check.message);

    const style = detectLineEndings(bytes);
    let chosen: { spelling: Spelling; needle: Buffer; offsets: number[] } | undefined;
    for (const spelling of spellingsFor(input.old_string, input.new_string, style)) {
      const needle = Buffer.from(spelling.oldText, 'utf8');
      // replace_all finds the rest while it writes (one pass, no list of offsets).
      const offsets = input.replace_all ? findOccurrences(bytes, needle, { limit: 1 }) : findOccurrences(bytes, needle, { overlapping: true, limit: 2 });
      if (offsets.length > 0) {
        chosen = { spelling, needle, offsets };
        break;
      }
    }
    if (!chosen) return toolError(this.notFoundMessage(shown, bytes, style, input));
    const { spelling, needle } = chosen;
    if (spelling.oldText === spelling.newText) {
      return toolError(`No changes to make: in the file's ${style === 'crlf' ? 'CRLF' : 'LF'} line endings, old_string and new_string are the same text.`);
    }
    if (!input.replace_all && chosen.offsets.length > 1) {
      const all = await tallyOccurrences(bytes, needle, { overlapping: true, listLines: LISTED_LINES, signal });
      return toolError(
        `old_string occurs ${formatCount(all.count)} times in "${shown}" (at ${describeLines(all.lines, all.distinctLines)}). ` +
          `Add more surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to replace all ${formatCount(all.count)}.`,
      );
    }

    const replacement = Buffer.from(spelling.newText, 'utf8');
    await sweepStaleTempFiles(fs, nodePath.dirname(path));
    let replaced: OccurrenceTally | undefined;
    let written;
    try {
      written = await writeFileAtomic(
        fs,
        path,
        async (sink) => {
          replaced = await writeReplacingAll(sink, bytes, needle, replacement, { signal, listLines: LISTED_LINES, from: chosen.offsets[0] });
        },
        // Another writer's change during this edit is kept, and this edit refused.
        { mode: stat.mode, owner: { uid: stat.uid, gid: stat.gid }, signal, expectedTarget: stat, verifyDirectory: true },
      );
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof PathChangedError) return toolError(pathChangedMessage(shown, error.change, EDIT_USE));
      if (error instanceof TargetChangedError) return toolError(concurrentChangeMessage(shown, error, 'Edit'));
      return toolError(`${fsErrorMessage(`write "${shown}"`, error)} The file was left unchanged.`);
    }
    const after = await fs.stat(path).catch(() => undefined);
    this.fileState.record(path, { size: written.bytes, mtimeMs: after?.mtimeMs ?? 0, ctimeMs: after?.ctimeMs ?? 0, sha256: written.sha256 }, generation);

    const { lines, distinctLines, count: replacedCount } = replaced!;
    const where = describeLines(lines, distinctLines);
    const count = replacedCount === 1 ? '1 occurrence' : `${formatCount(replacedCount)} occurrences`;
    const endings =
      spelling.converted === 'crlf' && spelling.newText !== input.new_string ? ' Line breaks in new_string were written as CRLF, like the rest of the file.' : '';
    return { output: `Replaced ${count} in ${shown} (${where}).${endings}` };
  }

  private notFoundMessage(shown: string, bytes: Buffer, style: LineEndingStyle, input: EditInput): string {
    const parts = [`old_string was not found in "${shown}".`];
    if (input.old_string.includes('[...line truncated:')) {
      parts.push('It contains the "[...line truncated: …]" marker that Read adds to long lines; that marker is not in the file. Use a shorter old_string that stops before the cut.');
    }
    if (bytes.length > NEAR_MATCH_MAX_BYTES) {
      parts.push(`The file is larger than ${formatBytes(NEAR_MATCH_MAX_BYTES)}, so no near match was searched for: use Grep to find the text, then Read around it.`);
    } else {
      const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      let text = bytes.toString('utf8', hasBom ? 3 : 0);
      if (style !== 'lf' && style !== 'none') text = text.replace(/\r\n/g, '\n');
      const near = findNearMatch(text, input.old_string);
      parts.push(near ? describeNearMatch(near, text) : 'No similar text was found either. The file may differ from what you expect: Read it again and copy old_string exactly from it.');
    }
    // Only a distinctive new_string says something when found (a lone "}" is everywhere).
    if (input.new_string.trim().length >= 8) {
      const spelled = spellingsFor(input.new_string, '', style)[0]!.oldText;
      const at = bytes.indexOf(Buffer.from(spelled, 'utf8'));
      if (at >= 0) parts.push(`Note: new_string already appears in the file at line ${lineNumbersAt(bytes, [at])[0]}; the change may have been made already.`);
    }
    return parts.join(' ');
  }
}

const EDIT_USE = { action: 'edit', nothing: 'nothing was changed' } as const;

/** `size` undefined: the file grew past the limit while it was read. */
function tooLargeMessage(shown: string, size: number | undefined, maxBytes: number): string {
  const is = size !== undefined ? `is ${formatBytes(size)}, larger than` : 'grew while it was read, past';
  return (
    `"${shown}" ${is} the ${formatBytes(maxBytes)} Edit handles. ` +
    `Change it with Bash instead (e.g. sed), or raise the limit edit.maxFileBytes in the configuration.`
  );
}

function openErrorMessage(shown: string, error: unknown): string {
  if (error instanceof PathChangedError) return pathChangedMessage(shown, error.change, EDIT_USE);
  if (error instanceof NotRegularFileError) {
    if (error.kind === 'directory') return `"${shown}" is a directory, not a file. Edit changes one file: give the path of a file.`;
    return `"${shown}" is not a regular file (it is a ${error.kind}). Edit only changes regular files; nothing was changed.`;
  }
  const code = isErrnoException(error) ? error.code : undefined;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return `"${shown}" does not exist. Edit changes existing files: to create a file, use Write. To find a file, use Glob.`;
  }
  return fsErrorMessage(`read "${shown}"`, error);
}

/** Why Edit must not touch these bytes, or undefined when they are UTF-8 text. */
export function encodingRefusal(shown: string, bytes: Buffer): string | undefined {
  const unchanged = 'Edit only changes UTF-8 text files; the file was left unchanged.';
  const header = bytes.subarray(0, SNIFF_BYTES);
  const sniffed = detectEncoding(header);
  if (sniffed.kind === 'utf16le' || sniffed.kind === 'utf16be') {
    return `"${shown}" is UTF-16 text. ${unchanged} Convert it to UTF-8 first (e.g. with Bash: iconv -f UTF-16 -t UTF-8), or rewrite it whole with Write.`;
  }
  const type = knownBinaryType(header);
  if (type) return `"${shown}" is a ${type}, not a text file. ${unchanged}`;
  if (bytes.indexOf(0) >= 0) return `"${shown}" looks like a binary file (it contains NUL bytes). ${unchanged}`;
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0) {
    const line = lineNumbersAt(bytes, [invalid])[0];
    return (
      `"${shown}" is not valid UTF-8 (the first invalid byte is on line ${line}); it may be Latin-1 or another encoding. ${unchanged} ` +
      `Change it with Bash instead (e.g. sed), or convert it to UTF-8 first (iconv -f <encoding> -t UTF-8).`
    );
  }
  return undefined;
}

const INDENTATION_DETAIL: Record<NonNullable<NearMatch['indentation']>, string> = {
  'tabs-vs-spaces': 'the file indents with tabs where old_string has spaces',
  'spaces-vs-tabs': 'the file indents with spaces where old_string has tabs',
  width: 'the number of spaces or tabs differs',
};

export function describeNearMatch(near: NearMatch, text: string): string {
  const where = near.startLine === near.endLine ? `line ${near.startLine}` : `lines ${near.startLine}-${near.endLine}`;
  const prefixNote = near.lineNumberPrefixes
    ? 'old_string includes the line-number prefixes that Read shows ("12<TAB>"); they are not part of the file, so leave them out. '
    : '';
  let lead: string;
  let advice: string;
  switch (near.kind) {
    case 'line-numbers':
      return `${prefixNote}Without them, the text matches at ${where}.`;
    case 'line-endings':
      lead = `The same text is at ${where}, but with other line endings: the file mixes CRLF and LF there.`;
      advice = 'Copy old_string from those lines with their exact line endings, or make the line endings uniform first (e.g. with Bash: sed -i \'s/\\r$//\' FILE).';
      break;
    case 'indentation':
      lead = `The closest match, at ${where}, differs only in indentation (${INDENTATION_DETAIL[near.indentation ?? 'width']}):`;
      advice = 'Copy the lines exactly as the file has them, including their tabs and spaces.';
      break;
    case 'trailing-whitespace':
      lead = `The closest match, at ${where}, differs only in whitespace at the end of a line or of old_string:`;
      advice = 'Copy the lines exactly as the file has them, with their trailing spaces, tabs and line breaks.';
      break;
    case 'whitespace':
      lead = `The closest match, at ${where}, differs only in whitespace (spaces, tabs or line breaks):`;
      advice = 'Copy the lines exactly as the file has them.';
      break;
    case 'similar':
      lead =
        near.identicalLines !== undefined
          ? `The most similar text is at ${where}, where ${near.identicalLines} of old_string's ${near.needleLines} lines are identical (ignoring indentation):`
          : `The most similar text is at ${where} (${Math.round((near.similarity ?? 0) * 100)}% similar):`;
      advice = 'If that is the place, copy old_string exactly from it; otherwise Read the file again.';
      break;
  }
  return `${prefixNote}${lead}\n${snippet(text, near.startLine, near.endLine)}\n${advice}`;
}

/** The lines as Read shows them (`N<TAB>text`), bounded. */
export function snippet(text: string, from: number, to: number): string {
  const last = Math.min(to, from + SNIPPET_MAX_LINES - 1);
  const lines = linesOf(text, from, last).map((line, i) => {
    const cut = line.length > SNIPPET_MAX_LINE_CHARS ? `${line.slice(0, SNIPPET_MAX_LINE_CHARS)} [...line truncated]` : line;
    return `${from + i}\t${cut}`;
  });
  if (to > last) lines.push(`[… ${to - last} more line${to - last === 1 ? '' : 's'}]`);
  return lines.join('\n');
}

export const IEditTool = createServiceId<EditTool>('tool.Edit');
export const editTool = registerAgentToolService(IEditTool, EditTool, {
  name: 'Edit',
  domain: 'edit',
  requiredRuntimeCapabilities: ['fs'],
  samples: EDIT_SAMPLES,
});
