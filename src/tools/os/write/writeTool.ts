import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { isErrnoException } from '../../../base/errors';
import { formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IAgentFileStateService, IFileWriteLocks } from '../contract';
import { IAgentRuntimeService, type RuntimeFs } from '../../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { resolvePathAccess } from '../../../tool/pathAccess';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchPathRule } from '../../../tool/ruleMatch';
import { type AtomicWriteSink, sweepStaleTempFiles, TargetChangedError, writeFileAtomic } from '../../../base/fs/atomicWrite';
import { concurrentChangeMessage, fsErrorMessage, preview } from '../../../base/fs/fileText';
import { fileKindOf, NotRegularFileError, openRegularFile, PathChangedError, pathChangedMessage, verifyExistingPrefix } from '../../../base/fs/openedFile';
import { currentStateOf, currentStateOfHandle } from '../fileState/currentFileState';
import { type WriteInput, WriteInputSchema, WRITE_SAMPLES } from './write';

const PARAMETERS = toInputJsonSchema(WriteInputSchema);
const COPY_CHUNK_BYTES = 1024 * 1024;

export function formatByteCount(n: number): string {
  return `${formatCount(n)} byte${n === 1 ? '' : 's'}`;
}

@injectable()
export class WriteTool implements ExecutableTool<WriteInput> {
  readonly name = 'Write';
  readonly parameters: JsonSchema = PARAMETERS;
  // Overwrites files; append mode makes repeats add again, so not idempotent.
  readonly annotations: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

  constructor(
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentFileStateService) private readonly fileState: IAgentFileStateService,
    @inject(IFileWriteLocks) private readonly locks: IFileWriteLocks,
  ) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'write.md'), {});
  }

  resolveExecution(input: WriteInput): ToolExecution {
    const path = resolvePathAccess(input.path, this.workspace.pathContext('write or edit a file')).path;
    const append = input.mode === 'append';
    const generation = this.runtime.generation;
    return {
      accesses: [ToolAccesses.writeFile(path)],
      display: {
        kind: 'file_io',
        operation: 'write',
        path,
        detail: `${append ? 'append' : 'overwrite'}, ${formatCount(input.content.length)} characters`,
        content: preview(input.content),
      },
      description: `${append ? 'Appending to' : 'Writing'} ${this.shownPath(path)}`,
      approvalRule: literalRule('Write', path),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, path, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      // Held from the stale-write check to the rename: no other agent's write of the file comes between.
      execute: (ctx) => this.locks.withLock(path, () => this.write(input, path, generation, ctx.signal), ctx.signal),
    };
  }

  private shownPath(path: string): string {
    return this.workspace.isInside(path) ? nodePath.relative(this.workspace.cwd, path) || '.' : path;
  }

  private async write(input: WriteInput, path: string, generation: number, signal: AbortSignal): Promise<ToolResult> {
    if (this.runtime.generation !== generation) return toolError('The runtime changed after this call was prepared. Retry the tool call.');
    const fs = this.runtime.requireFs();
    const shown = input.path;
    // The existing target is opened exactly at the resolved path (no link followed, a FIFO never
    // blocks); the stale-write check and append read through that handle.
    let existing: ExistingTarget | undefined;
    try {
      existing = await openExistingTarget(fs, path);
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ENOTDIR') return toolError(await this.parentNotDirectory(fs, path, shown));
      return toolError(openErrorMessage(shown, error));
    }
    try {
      return await this.writeTo(input, path, existing, generation, signal);
    } finally {
      await existing?.handle?.close().catch(() => undefined);
    }
  }

  private async writeTo(input: WriteInput, path: string, existing: ExistingTarget | undefined, generation: number, signal: AbortSignal): Promise<ToolResult> {
    const fs = this.runtime.requireFs();
    const shown = input.path;
    const append = input.mode === 'append';
    let createdDir: string | undefined;
    if (existing) {
      let check;
      try {
        const current = existing.handle ? currentStateOfHandle(existing.handle, existing.stat, signal) : currentStateOf(fs, path, existing.stat, signal);
        check = await this.fileState.check(path, shown, current);
      } catch (error) {
        if (signal.aborted) throw error;
        return toolError(fsErrorMessage(`read "${shown}" to check it is unchanged`, error));
      }
      if (!check.ok) return toolError(check.message);
    } else {
      try {
        // mkdir follows links: the folders that exist must still be the resolved ones.
        await verifyExistingPrefix(fs, path);
        createdDir = await fs.mkdir(nodePath.dirname(path), { recursive: true });
      } catch (error) {
        if (error instanceof PathChangedError) return toolError(pathChangedMessage(shown, error.change, WRITE_USE));
        const code = isErrnoException(error) ? error.code : undefined;
        if (code === 'ENOTDIR' || code === 'EEXIST') return toolError(await this.parentNotDirectory(fs, path, shown));
        return toolError(fsErrorMessage(`create the directory "${this.shownPath(nodePath.dirname(path))}"`, error));
      }
    }
    await sweepStaleTempFiles(fs, nodePath.dirname(path));

    let contentBytes = 0;
    let result;
    try {
      const stat = existing?.stat;
      result = await writeFileAtomic(
        fs,
        path,
        async (sink) => {
          if (append && existing) await copyInto(fs, path, existing.handle, sink, signal);
          const before = sink.bytes;
          await sink.write(input.content);
          contentBytes = sink.bytes - before;
        },
        {
          ...(stat ? { mode: stat.mode, owner: { uid: stat.uid, gid: stat.gid } } : {}),
          signal,
          // Another writer's change during this write is kept, and this write refused.
          expectedTarget: stat ?? null,
          verifyDirectory: true,
        },
      );
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof PathChangedError) return toolError(pathChangedMessage(shown, error.change, WRITE_USE));
      if (error instanceof TargetChangedError) return toolError(concurrentChangeMessage(shown, error, 'Write'));
      const outcome = existing ? 'The file was left unchanged.' : 'Nothing was written.';
      return toolError(`${fsErrorMessage(`write "${shown}"`, error)} ${outcome}`);
    }
    await this.recordWritten(fs, path, result, generation);

    if (append && existing) return { output: `Appended ${formatByteCount(contentBytes)} to ${shown} (the file is now ${formatByteCount(result.bytes)}).` };
    if (existing) return { output: `Wrote ${formatByteCount(contentBytes)} to ${shown} (replaced the previous ${formatByteCount(existing.stat.size)}).` };
    const made = createdDir ? `; created the directory ${this.shownPath(createdDir)}` : '';
    return { output: `${append ? 'Appended' : 'Wrote'} ${formatByteCount(contentBytes)} to ${shown} (new file${made}).` };
  }

  private async recordWritten(fs: RuntimeFs, path: string, result: { bytes: number; sha256: string }, generation: number): Promise<void> {
    const after = await fs.stat(path).catch(() => undefined);
    this.fileState.record(path, { size: result.bytes, mtimeMs: after?.mtimeMs ?? 0, ctimeMs: after?.ctimeMs ?? 0, sha256: result.sha256 }, generation);
  }

  /** The message for a path whose parent chain holds a file where a directory should be. */
  private async parentNotDirectory(fs: RuntimeFs, path: string, shown: string): Promise<string> {
    for (let dir = nodePath.dirname(path); dir !== nodePath.dirname(dir); dir = nodePath.dirname(dir)) {
      const stat = await fs.stat(dir).catch(() => undefined);
      if (stat && !stat.isDirectory()) return `Cannot write "${shown}": "${this.shownPath(dir)}" is a file, not a directory.`;
    }
    return `Cannot write "${shown}": a parent path is not a directory.`;
  }
}

const WRITE_USE = { action: 'write', nothing: 'nothing was written' } as const;

/** The file Write replaces: opened when it can be read (for the checks and append), else only its stat. */
interface ExistingTarget {
  readonly stat: Stats;
  readonly handle?: FileHandle;
}

/** The regular file at `path`, or undefined when there is none. Throws what openRegularFile throws. */
async function openExistingTarget(fs: RuntimeFs, path: string): Promise<ExistingTarget | undefined> {
  try {
    return await openRegularFile(fs, path);
  } catch (error) {
    const code = isErrnoException(error) ? error.code : undefined;
    if (code === 'ENOENT') return undefined;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
  }
  // A file this process may write but not read: only its stat (the guard then cannot hash it).
  const stat = await fs.lstat(path);
  if (stat.isSymbolicLink()) throw new PathChangedError(path, { kind: 'link' });
  if (!stat.isFile()) throw new NotRegularFileError(path, fileKindOf(stat));
  return { stat };
}

function openErrorMessage(shown: string, error: unknown): string {
  if (error instanceof PathChangedError) return pathChangedMessage(shown, error.change, WRITE_USE);
  if (error instanceof NotRegularFileError) {
    if (error.kind === 'directory') return `"${shown}" is a directory. Write writes files: give the path of a file.`;
    return `"${shown}" is not a regular file (it is a ${error.kind}). Write only writes regular files; nothing was written.`;
  }
  return fsErrorMessage(`write "${shown}"`, error);
}

/** Streams the current content of the target into the sink (append keeps the old bytes first). */
async function copyInto(fs: RuntimeFs, path: string, opened: FileHandle | undefined, sink: AtomicWriteSink, signal: AbortSignal): Promise<void> {
  const handle = opened ?? (await fs.open(path, 'r'));
  try {
    const buffer = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
    for (let position = 0; ; ) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      await sink.write(buffer.subarray(0, bytesRead));
    }
  } finally {
    if (!opened) await handle.close();
  }
}

export const IWriteTool = createServiceId<WriteTool>('tool.Write');
export const writeTool = registerAgentToolService(IWriteTool, WriteTool, {
  name: 'Write',
  domain: 'os',
  requiredRuntimeCapabilities: ['fs'],
  samples: WRITE_SAMPLES,
});
