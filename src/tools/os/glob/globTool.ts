import type { Dirent } from 'node:fs';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import picomatch from 'picomatch';
import { glob as tinyglob } from 'tinyglobby';
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
import { type FilteredEntries, FilteredListing } from '../search/filteredListing';
import { IgnoreTree, type SearchFs } from '../search/ignoreTree';
import { normalizeGlobPattern } from '../search/searchGlob';
import { describeFolder, displayPath, formatSeconds, runtimeSearchFs, searchRootChange } from '../search/searchPaths';
import { PathChangedError, pathChangedMessage, verifyRealPath } from '../../../base/fs/openedFile';
import { type GlobInput, GlobInputSchema, GLOB_SAMPLES } from './glob';
import { globConfig } from '../osConfig';

const PARAMETERS = toInputJsonSchema(GlobInputSchema);
const STAT_BATCH = 2_000;

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
    const normalized = normalizeGlobPattern(input.pattern, root);
    if ('error' in normalized) return toolError(normalized.error);
    const shownRoot = displayPath(root, this.workspace.cwd);
    const generation = this.runtime.generation;
    const detail = [`pattern: ${input.pattern}`, input.include_ignored ? 'include_ignored: true' : undefined].filter(Boolean).join(', ');
    return {
      accesses: [ToolAccesses.searchTree(root)],
      display: { kind: 'file_io', operation: 'glob', path: root, detail },
      description: `Finding files matching ${input.pattern} in ${shownRoot}`,
      approvalRule: literalRule('Glob', root),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, root, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      execute: (ctx) => this.run(input, root, normalized.pattern, generation, ctx.signal),
    };
  }

  private async run(input: GlobInput, root: string, pattern: string, generation: number, signal: AbortSignal): Promise<ToolResult> {
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

/** Compiled patterns, reused across calls: a model repeats the same few patterns. */
const compiledGlobs = new Map<string, (path: string) => boolean>();

function compiledGlob(pattern: string): (path: string) => boolean {
  let matcher = compiledGlobs.get(pattern);
  if (!matcher) {
    if (compiledGlobs.size >= 256) compiledGlobs.clear();
    matcher = picomatch(pattern, { dot: true, posix: true });
    compiledGlobs.set(pattern, matcher);
  }
  return matcher;
}

/** Lists the files under `root` matching a tinyglobby pattern, newest first, secrets left out. */
export async function listGlob(fs: SearchFs, root: string, pattern: string, options: { includeIgnored: boolean; signal: AbortSignal }): Promise<GlobListing> {
  const tree = await IgnoreTree.open(root, fs, { enabled: !options.includeIgnored });
  const listing = new FilteredListing(fs, tree);
  const local = fs.local;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  // On the local disk, files that will match are checked for secrets and stamped with their
  // modification time while the walk goes on: the thread pool lists further folders meanwhile.
  // tinyglobby's result stays the authority; anything not seen here is handled afterwards.
  const early = new Map<string, number | 'secret' | 'gone'>();
  const willMatch = local ? compiledGlob(pattern) : undefined;
  const stampFiles = (dir: string, entries: readonly Dirent[]): void => {
    const base = dir.endsWith('/') ? dir : `${dir}/`;
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = base + entry.name;
      const rel = path.slice(prefix.length);
      if (!willMatch!(rel)) continue;
      early.set(rel, isSensitivePath(path) ? 'secret' : (local!.mtimeMs(path) ?? 'gone'));
    }
  };
  const readdir = (path: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, entries: unknown[]) => void): void => {
    const done = (listed: FilteredEntries | Promise<FilteredEntries>) => {
      if (!(listed instanceof Promise)) {
        callback(null, listed.entries);
        if (local) stampFiles(path, listed.entries);
        return;
      }
      listed.then(
        ({ entries }) => {
          callback(null, entries);
          if (local) stampFiles(path, entries);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
    if (!local) {
      done(listing.list(path));
      return;
    }
    local.readdir(path, (error, entries) => {
      if (error) callback(error, []);
      else {
        let listed;
        try {
          listed = listing.filter(path, entries);
        } catch (filterError) {
          callback(filterError as NodeJS.ErrnoException, []);
          return;
        }
        done(listed);
      }
    });
  };
  const found = await tinyglob(pattern, {
    cwd: root,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    signal: options.signal,
    // Only readdir goes through the filter; tinyglobby needs no other file operation without symlinks.
    fs: { readdir: readdir as never },
  });
  const timedOut = options.signal.aborted;
  let sensitive = 0;
  const stamped: Array<[number, string]> = [];
  const late: string[] = [];
  for (const rel of found) {
    const known = early.get(rel);
    if (known === 'secret') sensitive++;
    else if (typeof known === 'number') stamped.push([known, rel]);
    else if (known === undefined) {
      if (isSensitivePath(prefix + rel)) sensitive++;
      else late.push(rel);
    }
  }
  for (let i = 0; i < late.length; i += STAT_BATCH) {
    const batch = late.slice(i, i + STAT_BATCH);
    let stats: Array<number | undefined>;
    if (local) {
      stats = batch.map((rel) => local.mtimeMs(prefix + rel));
      // Let other work run between slices of synchronous stats.
      if (i + STAT_BATCH < late.length) await new Promise((resolve) => setImmediate(resolve));
    } else {
      stats = await Promise.all(batch.map((rel) => fs.stat(prefix + rel).then((s) => s.mtimeMs, () => undefined)));
    }
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
