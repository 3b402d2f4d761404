import type { Dirent } from 'node:fs';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
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
import { isSensitivePath } from '../../../tool/sensitivePaths';
import { FilteredListing } from '../search/filteredListing';
import { IgnoreTree, type SearchFs } from '../search/ignoreTree';
import { byteForm, isAscii } from '../search/globRegex';
import { compileGlobPattern, type GlobPattern, ruleMatchesPath } from '../search/searchGlob';
import { describeFolder, displayPath, formatSeconds, runtimeSearchFs, searchRootChange } from '../search/searchPaths';
import { PathChangedError, pathChangedMessage, verifyRealPath } from '../../../base/fs/openedFile';
import { type GlobInput, GlobInputSchema, GLOB_SAMPLES } from './glob';
import { globConfig } from '../osConfig';

const PARAMETERS = toInputJsonSchema(GlobInputSchema);
const STAT_BATCH = 2_000;
/** Folders listed at once: enough to keep the thread pool busy while the main thread filters. */
const WALK_CONCURRENCY = 8;

export interface GlobListing {
  /** Relative to the search root, newest first. */
  readonly files: readonly string[];
  readonly sensitive: number;
  readonly timedOut: boolean;
}

@injectable()
export class GlobTool implements ExecutableTool<GlobInput> {
  readonly name = 'Glob';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
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
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let listing: GlobListing;
    try {
      listing = await listGlob(fs, root, pattern, { includeIgnored: input.include_ignored === true, signal: AbortSignal.any([signal, timeout]) });
    } catch (error) {
      if (signal.aborted) return toolError('Glob was aborted.');
      return toolError(`Glob failed in "${shownRoot}": ${errorMessage(error)}`);
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
}

/**
 * Lists the files under `root` that `pattern` matches, newest first, secrets left out: one walk
 * with the shared search rules (FilteredListing), each file name matched once. On the local disk
 * a match is stamped with its modification time as soon as its folder is listed (a synchronous
 * stat costs less than a thread-pool round trip, and the pool lists further folders meanwhile);
 * other runtimes stat the matches in batches afterwards.
 */
export async function listGlob(fs: SearchFs, root: string, pattern: GlobPattern, options: { includeIgnored: boolean; signal: AbortSignal }): Promise<GlobListing> {
  const tree = await IgnoreTree.open(root, fs, { enabled: !options.includeIgnored });
  const listing = new FilteredListing(fs, tree);
  const local = fs.local;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const { rule, dirPrefix, depth } = pattern;
  const stamped: Array<[number, string]> = [];
  const unstamped: string[] = [];
  let sensitive = 0;

  const { basenameOnly, regex } = rule;
  const take = (dir: string, relDir: string, dirDepth: number, entries: readonly Dirent[], pending: Array<[string, string, number]>): void => {
    const base = dir.endsWith('/') ? dir : `${dir}/`;
    const asciiDir = isAscii(relDir);
    for (const entry of entries) {
      const name = entry.name;
      if (entry.isDirectory()) {
        // Folders no match can lie in are not entered.
        if (dirDepth < dirPrefix.length && name !== dirPrefix[dirDepth]) continue;
        if (depth !== undefined && dirDepth + 1 >= depth) continue;
        pending.push([base + name, relDir + name + '/', dirDepth + 1]);
        continue;
      }
      if (depth !== undefined && dirDepth + 1 !== depth) continue;
      const rel = relDir + name;
      if (basenameOnly ? !regex.test(byteForm(name)) : !ruleMatchesPath(rule, asciiDir ? relDir + byteForm(name) : byteForm(rel))) continue;
      const path = base + name;
      if (isSensitivePath(path)) sensitive++;
      else if (!local) unstamped.push(rel);
      else {
        const mtime = local.mtimeMs(path);
        if (mtime !== undefined) stamped.push([mtime, rel]);
      }
    }
  };

  const list = (dir: string): Promise<Dirent[]> => {
    if (!local) return listing.list(dir).then((listed) => listed.entries);
    return new Promise((resolve, reject) => {
      local.readdir(dir, (error, entries) => {
        if (error) {
          reject(error);
          return;
        }
        try {
          const listed = listing.filter(dir, entries);
          if (listed instanceof Promise) listed.then((l) => resolve(l.entries), reject);
          else resolve(listed.entries);
        } catch (filterError) {
          reject(filterError as Error);
        }
      });
    });
  };

  // Depth-first, a few folders at a time; a folder that cannot be listed is left out.
  const pending: Array<[string, string, number]> = [[root, '', 0]];
  let inFlight = 0;
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      while (!options.signal.aborted && inFlight < WALK_CONCURRENCY && pending.length > 0) {
        const [dir, relDir, dirDepth] = pending.pop()!;
        inFlight++;
        list(dir).then(
          (entries) => {
            inFlight--;
            try {
              if (!options.signal.aborted) take(dir, relDir, dirDepth, entries, pending);
            } catch {
              // A folder whose entries cannot be stat-ed (listable, not searchable): what was taken stays.
            }
            pump();
          },
          () => {
            inFlight--;
            pump();
          },
        );
      }
      if (inFlight === 0 && (pending.length === 0 || options.signal.aborted)) resolve();
    };
    pump();
  });
  const timedOut = options.signal.aborted;
  for (let i = 0; i < unstamped.length; i += STAT_BATCH) {
    const batch = unstamped.slice(i, i + STAT_BATCH);
    const stats = await Promise.all(batch.map((rel) => fs.stat(prefix + rel).then((s) => s.mtimeMs, () => undefined)));
    batch.forEach((rel, j) => {
      const mtime = stats[j];
      if (mtime !== undefined) stamped.push([mtime, rel]);
    });
  }
  stamped.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const files = stamped.map(([, rel]) => rel);
  return { files, sensitive, timedOut };
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
  const total = listing.files.length;
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
