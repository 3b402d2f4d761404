import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { deadlineSignal } from '../../../base/abort';
import { errorMessage, isErrnoException } from '../../../base/errors';
import { formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import { MAX_GLOB_LIMIT } from '../osConfig';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolExecution, type ToolResult, toolError, type ToolAnnotations } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { resolvePathAccess } from '../../../tool/pathAccess';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchPathRule } from '../../../tool/ruleMatch';
import { IRipgrepLocatorService } from '../grep/grepEngineSelection';
import type { SearchFs } from '../search/ignoreTree';
import { compileGlobPattern, type GlobPattern } from '../search/searchGlob';
import { describeFolder, displayPath, formatSeconds, localSearchFs, runtimeSearchFs, searchRootChange } from '../search/searchPaths';
import { PathChangedError, pathChangedMessage, verifyRealPath } from '../../../base/fs/openedFile';
import { type GlobInput, GlobInputSchema, GLOB_SAMPLES } from './glob';
import { globConfig, grepConfig } from '../osConfig';
import { type GlobListing, listGlob, walkGlob } from './globListing';
import { listGlobWithRipgrep, ripgrepCanWalk } from './ripgrepGlob';

const PARAMETERS = toInputJsonSchema(GlobInputSchema);
/**
 * Entries our walk lists before it hands the tree to rg (each folder found and not listed yet
 * counts as PENDING_FOLDER_ENTRIES). Our walk lists about 200 entries a millisecond and rg lists a
 * tree of 1,000 in about 9 ms: a tree up to about 1,700 entries is ours sooner. A big tree used to
 * wait 8–20 ms for our walk to give up; counting the folders found, it waits 1–3 ms (the
 * 103,000-file corpus of bench/).
 */
const RIPGREP_FROM_ENTRIES = 1_500;


@injectable()
export class GlobTool implements ExecutableTool<GlobInput> {
  readonly name = 'Glob';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IRipgrepLocatorService) private readonly ripgrep: IRipgrepLocatorService,
  ) {}

  get description(): string {
    const glob = this.config.section(globConfig);
    return renderPrompt(loadDescriptionTemplate(__dirname, 'glob.md'), {
      DEFAULT_LIMIT: formatCount(glob.defaultLimit),
      MAX_LIMIT: formatCount(MAX_GLOB_LIMIT),
      TIMEOUT_S: formatSeconds(glob.timeoutMs),
    });
  }

  resolveExecution(input: GlobInput): ToolExecution {
    const access = resolvePathAccess(input.path ?? '.', this.workspace.pathContext('search'));
    const root = access.path;
    const compiled = compileGlobPattern(input.pattern, root);
    if ('error' in compiled) return toolError(compiled.error);
    const shownRoot = displayPath(root, this.workspace.cwd);
    const generation = this.runtime.generation;
    const detail = [`pattern: ${input.pattern}`, input.include_ignored ? 'include_ignored: true' : undefined].filter(Boolean).join(', ');
    return {
      accesses: [ToolAccesses.searchTree(root)],
      display: { kind: 'file_io', operation: 'glob', path: root, detail },
      description: `Finding files matching ${input.pattern} in ${shownRoot}`,
      approvalRule: literalRule('Glob', root),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, root, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      execute: (ctx) => this.run(input, root, compiled, generation, ctx.signal),
    };
  }

  private async run(input: GlobInput, root: string, pattern: GlobPattern, generation: number, signal: AbortSignal): Promise<ToolResult> {
    if (this.runtime.generation !== generation) return toolError('The runtime changed after this call was prepared. Retry the tool call.');
    const options = this.config.section(globConfig);
    const runtimeFs = this.runtime.requireFs();
    const fs = runtimeSearchFs(runtimeFs);
    const shownRoot = displayPath(root, this.workspace.cwd);
    const shownArg = input.path ?? '.';
    try {
      // The folder searched must be the one resolved: not a link swapped in since.
      await verifyRealPath(runtimeFs, root);
      const stat = await fs.stat(root);
      if (!stat.isDirectory()) {
        return toolError(`"${shownArg}" is a file, not a folder. Glob searches folders; to read this file, use Read.`);
      }
    } catch (error) {
      if (error instanceof PathChangedError) return toolError(pathChangedMessage(shownArg, error.change, { action: 'search', nothing: 'nothing was searched' }));
      const code = isErrnoException(error) ? error.code : undefined;
      if (code === 'ENOENT' || code === 'ENOTDIR') return toolError(`"${shownArg}" does not exist. Check the path, or leave path out to search the working directory.`);
      return toolError(`"${shownArg}" cannot be searched: ${errorMessage(error)}`);
    }
    const deadline = deadlineSignal(signal, options.timeoutMs);
    let listing: GlobListing;
    try {
      const walkOptions = {
        includeIgnored: input.include_ignored === true,
        signal: deadline.signal,
        wanted: (input.offset ?? 0) + (input.limit ?? options.defaultLimit),
      };
      const rgPath = await this.ripgrepFor(fs, pattern);
      // Our walk first: a small tree is listed before rg would have started.
      const small = rgPath !== undefined ? await walkGlob(fs, root, pattern, { ...walkOptions, entryBudget: RIPGREP_FROM_ENTRIES }) : undefined;
      const big = rgPath !== undefined && !small ? await listGlobWithRipgrep(rgPath, root, pattern, walkOptions) : undefined;
      listing = small ?? big ?? (await listGlob(fs, root, pattern, walkOptions));
    } catch (error) {
      if (signal.aborted) return toolError('Glob was aborted.');
      return toolError(`Glob failed in "${shownRoot}": ${errorMessage(error)}`);
    } finally {
      deadline.dispose();
    }
    if (signal.aborted) return toolError('Glob was aborted.');
    // A swap during the walk: what was listed may lie elsewhere.
    const after = await searchRootChange(runtimeFs, root);
    if (after) return toolError(pathChangedMessage(shownArg, after, { action: 'end of the search', nothing: 'its results were discarded' }));
    const offset = input.offset ?? 0;
    const limit = input.limit ?? options.defaultLimit;
    return renderGlob(listing, {
      cwd: this.workspace.cwd,
      root,
      pattern: input.pattern,
      offset,
      limit,
      includeIgnored: input.include_ignored === true,
      timeoutMs: options.timeoutMs,
    });
  }

  /**
   * The rg binary to walk with, when it may: the local disk, a runtime that starts processes, a
   * pattern that needs the whole tree (ripgrepCanWalk), and grep.engine not "builtin" (the
   * setting that keeps searches in process). Without one, Glob walks in process.
   */
  private async ripgrepFor(fs: SearchFs, pattern: GlobPattern): Promise<string | undefined> {
    if (fs !== localSearchFs || !this.runtime.has('process') || !ripgrepCanWalk(pattern)) return undefined;
    const grep = this.config.section(grepConfig);
    if (grep.engine === 'builtin') return undefined;
    return (await this.ripgrep.locate(grep.rgPath)).found?.path;
  }
}

export interface GlobRenderContext {
  readonly cwd: string;
  readonly root: string;
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly includeIgnored: boolean;
  readonly timeoutMs: number;
}

export function renderGlob(listing: GlobListing, context: GlobRenderContext): ToolResult {
  const total = listing.total;
  const shownRoot = describeFolder(context.root, context.cwd);
  const lines: string[] = [];
  if (listing.timedOut) {
    lines.push(`Glob timed out after ${formatSeconds(context.timeoutMs)} s; the list below is partial. Narrow the pattern or the path.`);
  }
  const page = listing.files.slice(context.offset, context.offset + context.limit);
  for (const rel of page) lines.push(displayPath(nodePath.join(context.root, rel), context.cwd));
  const end = context.offset + page.length;
  let truncated = listing.timedOut;
  if (total === 0) {
    lines.push(
      `No files match "${context.pattern}" in ${shownRoot}.` +
        (context.includeIgnored ? '' : ' Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to include them.'),
    );
  } else if (page.length === 0) {
    lines.push(`No files at offset=${context.offset}: ${formatCount(total)} file${total === 1 ? '' : 's'} match. Use a smaller offset.`);
  } else if (end < total) {
    truncated = true;
    lines.push(`Showing files ${formatCount(context.offset + 1)}-${formatCount(end)} of ${formatCount(total)}, newest first. Use offset=${end} to see more.`);
  } else if (context.offset > 0) {
    lines.push(`Showing files ${formatCount(context.offset + 1)}-${formatCount(end)} of ${formatCount(total)}, newest first.`);
  }
  if (listing.sensitive > 0) {
    lines.push(
      `Left out ${formatCount(listing.sensitive)} matching file${listing.sensitive === 1 ? '' : 's'} that hold${listing.sensitive === 1 ? 's' : ''} secrets (env files, private keys, credentials); no tool reads them.`,
    );
  }
  return truncated ? { output: lines.join('\n'), truncated: true } : { output: lines.join('\n') };
}


export const IGlobTool = createServiceId<GlobTool>('tool.Glob');
export const globTool = registerAgentToolService(IGlobTool, GlobTool, {
  name: 'Glob',
  domain: 'os',
  requiredRuntimeCapabilities: ['fs'],
  samples: GLOB_SAMPLES,
});
