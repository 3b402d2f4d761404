import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { errorMessage, isErrnoException } from '../../../base/errors';
import { closestMatch, formatBytes, formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import { IGrepEngineService } from './grepEngineSelection';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolExecution, type ToolResult, toolError, type ToolAnnotations } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { resolvePathAccess } from '../../../tool/pathAccess';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchPathRule } from '../../../tool/ruleMatch';
import { compileSearchGlob, type SearchGlob } from '../search/searchGlob';
import { describeFolder, displayPath, formatSeconds, localSearchFs, searchRootChange } from '../search/searchPaths';
import { PathChangedError, pathChangedMessage, verifyRealPath } from '../../../base/fs/openedFile';
import { RG_FILE_TYPES } from './fileTypes';
import { type GrepInput, GrepInputSchema, GREP_SAMPLES } from './grep';
import { type GrepEngine, GrepEngineError, type GrepFileResult, type GrepOutputMode, type GrepSearch } from './grepEngine';
import { NewestFirst } from '../search/newestFirst';
import { renderGrep } from './grepFormat';
import { type ParsedRegex, parseRustRegex, RegexSyntaxError } from './rustRegex';
import { grepConfig } from '../osConfig';

const PARAMETERS = toInputJsonSchema(GrepInputSchema);
/** Names models use for languages that ripgrep spells differently. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  golang: 'go',
  javascript: 'js',
  node: 'js',
  'c++': 'cpp',
  shell: 'sh',
  bash: 'sh',
  yml: 'yaml',
  markdown: 'md',
  rs: 'rust',
  kt: 'kotlin',
  rb: 'ruby',
};
const STAT_BATCH = 256;

/** The error for a pattern ripgrep would reject, written for the model. */
export function invalidRegexMessage(pattern: string, error: RegexSyntaxError): string {
  const hint = /look-around|backreference/.test(error.message)
    ? 'ripgrep patterns have no look-around or backreferences: search for a simpler pattern and narrow the results with further searches.'
    : /literal "\\n"/.test(error.message)
      ? 'Set multiline: true to match across lines.'
      : 'Patterns use ripgrep (Rust regex) syntax: escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally, e.g. "foo\\(".';
  return `Invalid regex "${pattern}": ${error.message} (at character ${error.position + 1}). ${hint}`;
}

interface ResolvedGrep {
  readonly root: string;
  readonly regex: ParsedRegex;
  readonly glob?: SearchGlob;
  readonly typeGlobs?: readonly string[];
  readonly mode: GrepOutputMode;
  readonly before: number;
  readonly after: number;
}

@injectable()
export class GrepTool implements ExecutableTool<GrepInput> {
  readonly name = 'Grep';
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IGrepEngineService) private readonly engines: IGrepEngineService,
  ) {}

  get description(): string {
    const grep = this.config.section(grepConfig);
    return renderPrompt(loadDescriptionTemplate(__dirname, 'grep.md'), {
      DEFAULT_HEAD_LIMIT: formatCount(grep.headLimit),
      MAX_LINE_CHARS: formatCount(grep.maxLineChars),
      TIMEOUT_S: formatSeconds(grep.timeoutMs),
      MAX_OUTPUT: formatBytes(grep.maxOutputBytes),
    });
  }

  resolveExecution(input: GrepInput): ToolExecution {
    const access = resolvePathAccess(input.path ?? '.', this.workspace.pathContext('search'));
    const root = access.path;
    let regex: ParsedRegex;
    try {
      regex = parseRustRegex(input.pattern, { caseInsensitive: input['-i'] === true, multiline: input.multiline === true });
    } catch (error) {
      if (error instanceof RegexSyntaxError) return toolError(invalidRegexMessage(input.pattern, error));
      throw error;
    }
    let glob: SearchGlob | undefined;
    if (input.glob !== undefined) {
      const compiled = compileSearchGlob(input.glob, root);
      if ('error' in compiled) return toolError(compiled.error);
      glob = compiled;
    }
    let typeGlobs: readonly string[] | undefined;
    if (input.type !== undefined) {
      typeGlobs = RG_FILE_TYPES[input.type];
      if (!typeGlobs) {
        const alias = TYPE_ALIASES[input.type.toLowerCase()];
        const suggestion = alias && RG_FILE_TYPES[alias] ? alias : closestMatch(input.type, Object.keys(RG_FILE_TYPES));
        return toolError(
          `Unknown file type "${input.type}".${suggestion ? ` Did you mean "${suggestion}"?` : ''} ` +
            `Use a ripgrep type name such as ts, js, py, rust, go, java, c, cpp, md, json, yaml, html, css, sh — or use glob instead (e.g. glob: "*.${input.type}").`,
        );
      }
    }
    const context = input['-C'] ?? 0;
    const resolved: ResolvedGrep = {
      root,
      regex,
      ...(glob ? { glob } : {}),
      ...(typeGlobs ? { typeGlobs } : {}),
      mode: input.output_mode ?? 'files_with_matches',
      before: input['-B'] ?? context,
      after: input['-A'] ?? context,
    };
    const shownRoot = displayPath(root, this.workspace.cwd);
    const generation = this.runtime.generation;
    const detail = [
      `pattern: ${input.pattern}`,
      input.glob !== undefined ? `glob: ${input.glob}` : undefined,
      input.type !== undefined ? `type: ${input.type}` : undefined,
      input.include_ignored ? 'include_ignored: true' : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    return {
      accesses: [ToolAccesses.searchTree(root)],
      display: { kind: 'file_io', operation: 'grep', path: root, detail },
      description: `Searching for ${input.pattern} in ${shownRoot}`,
      approvalRule: literalRule('Grep', root),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, root, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      execute: (ctx) => this.run(input, resolved, generation, ctx.signal),
    };
  }

  private async run(input: GrepInput, resolved: ResolvedGrep, generation: number, signal: AbortSignal): Promise<ToolResult> {
    if (this.runtime.generation !== generation) return toolError('The runtime changed after this call was prepared. Retry the tool call.');
    const options = this.config.section(grepConfig);
    const shownArg = input.path ?? '.';
    let isFile: boolean;
    try {
      // The folder or file searched must be the one resolved: not a link swapped in since.
      await verifyRealPath(fsp, resolved.root);
      const stat = await localSearchFs.stat(resolved.root);
      if (!stat.isFile() && !stat.isDirectory()) return toolError(`"${shownArg}" is not a regular file or a folder (it is a device, socket or pipe).`);
      isFile = stat.isFile();
    } catch (error) {
      if (error instanceof PathChangedError) return toolError(pathChangedMessage(shownArg, error.change, { action: 'search', nothing: 'nothing was searched' }));
      const code = isErrnoException(error) ? error.code : undefined;
      if (code === 'ENOENT' || code === 'ENOTDIR') return toolError(`"${shownArg}" does not exist. Check the path, or leave path out to search the working directory.`);
      return toolError(`"${shownArg}" cannot be searched: ${errorMessage(error)}`);
    }
    const search: GrepSearch = {
      root: isFile ? nodePath.dirname(resolved.root) : resolved.root,
      ...(isFile ? { file: resolved.root } : {}),
      regex: resolved.regex,
      mode: resolved.mode,
      before: resolved.before,
      after: resolved.after,
      ...(resolved.glob && !isFile ? { glob: resolved.glob } : {}),
      ...(resolved.typeGlobs && !isFile ? { typeGlobs: resolved.typeGlobs } : {}),
      includeIgnored: input.include_ignored === true,
      maxLineChars: options.maxLineChars,
    };
    const headLimit = input.head_limit ?? options.headLimit;
    const offset = input.offset ?? 0;
    const pageEnd = headLimit === 0 ? Infinity : offset + headLimit;
    let engine: GrepEngine;
    let outcome;
    try {
      engine = await this.engines.select({ setting: options.engine, rgPath: options.rgPath, canSpawn: this.runtime.has('process') });
      outcome = await engine.run(search, { signal, timeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes, pageEnd });
    } catch (error) {
      if (error instanceof GrepEngineError) return toolError(error.message);
      throw error;
    }
    if (outcome.stopped === 'aborted' || signal.aborted) return toolError('Grep was aborted before it finished.');
    // A swap during the search: what was found may lie elsewhere.
    const after = await searchRootChange(fsp, resolved.root);
    if (after) return toolError(pathChangedMessage(shownArg, after, { action: 'end of the search', nothing: 'its results were discarded' }));
    const files = await this.order(outcome.files, resolved.mode, pageEnd);
    const scope = [
      describeFolder(resolved.root, this.workspace.cwd),
      resolved.glob && !isFile ? ` (glob "${input.glob}")` : '',
      resolved.typeGlobs && !isFile ? ` (type ${input.type})` : '',
    ].join('');
    return renderGrep({
      mode: resolved.mode,
      files,
      totals: outcome.totals,
      show: (path) => displayPath(path, this.workspace.cwd),
      lineNumbers: input['-n'] !== false,
      before: resolved.before,
      after: resolved.after,
      headLimit,
      offset,
      ...(outcome.stopped ? { stopped: outcome.stopped } : {}),
      timeoutText: formatSeconds(options.timeoutMs),
      maxOutputBytes: options.maxOutputBytes,
      unreadable: outcome.unreadable,
      pattern: input.pattern,
      scope,
      includeIgnored: input.include_ignored === true,
    });
  }

  /**
   * files_with_matches: newest first (ties by path), of which only the first `wanted` (the page's
   * end) are put in order; the rest follow in any order, counted but never shown. The other
   * modes: by path.
   */
  private async order(files: readonly GrepFileResult[], mode: GrepOutputMode, wanted: number): Promise<GrepFileResult[]> {
    if (mode !== 'files_with_matches') return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const page = new NewestFirst<GrepFileResult>(Math.max(1, wanted));
    // The ripgrep engine dates files as rg reports them; only the others are stat-ed here, in batches.
    const undated: GrepFileResult[] = [];
    for (const file of files) {
      if (file.mtimeMs === undefined) undated.push(file);
      else page.add(file.mtimeMs, file.path, file);
    }
    for (let i = 0; i < undated.length; i += STAT_BATCH) {
      const batch = undated.slice(i, i + STAT_BATCH);
      const dates = await Promise.all(batch.map((file) => localSearchFs.stat(file.path).then((s) => s.mtimeMs, () => 0)));
      batch.forEach((file, j) => page.add(dates[j]!, file.path, file));
    }
    const first = page.take();
    if (first.length === files.length) return first;
    const shown = new Set(first);
    return [...first, ...files.filter((file) => !shown.has(file))];
  }
}

export const IGrepTool = createServiceId<GrepTool>('tool.Grep');
export const grepTool = registerAgentToolService(IGrepTool, GrepTool, {
  name: 'Grep',
  domain: 'os',
  requiredRuntimeCapabilities: ['fs'],
  samples: GREP_SAMPLES,
});
