import * as nodePath from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { isSensitivePath, sensitivePathsBelow } from '../../../tool/sensitivePaths';
import { IgnoreTree, VCS_DIR_NAMES } from '../search/ignoreTree';
import { localSearchFs } from '../search/searchPaths';
import { compileFileTypeMatcher } from './builtinEngine';
import { GrepCollector, type GrepEngine, GrepEngineError, type GrepFileResult, type GrepLimits, type GrepLine, type GrepOutcome, type GrepSearch, normalizeLine } from './grepEngine';
import { nodeBuiltins } from '../../../base/nodeBuiltins';

const KILL_GRACE_MS = 2_000;
const STDERR_MAX = 64 * 1024;
const TYPE_NAME = 'toolhostsearch';
const PREVIEW_MARKER = ' [... omitted end of long line]';
const BINARY_MESSAGE = /^(.*): (?:WARNING: stopped searching binary file after match|binary file matches) \(found "\\0" byte around offset \d+\)$/;
const STDERR_PATH_ERROR = /^rg: (.+?): (.+?)(?: \(os error \d+\))?$/;

function escapeGlobLiteral(name: string): string {
  return name.replace(/[\\*?[\]{}!]/g, (c) => `\\${c}`);
}

export interface RipgrepArgOptions {
  readonly ignoreFile: string;
  readonly insideRepository: boolean;
  /**
   * IgnoreTree.ancestorRulesApply of the folder rg runs in. `false`: no ignore file above it can
   * apply, so rg is told not to look above (the same files, without matching each against the
   * folders above). Left out, rg reads them as it does by default.
   */
  readonly ancestorRules?: boolean;
}

/**
 * The rg command line for a search. rg runs in the search folder (its globs are matched relative
 * to its working directory) on `./`. The flags make rg follow the rules both engines share: no
 * user config, hidden files searched, VCS folders and the secrets ignore file excluded, the global
 * git excludes file not read, `.gitignore` read outside repositories too (`--no-require-git` when
 * no repository encloses the search), file types from our own table, every line numbered (so
 * matches and context can be told apart), long lines cut by rg to a preview of 4x the line limit
 * (our cut is in characters, rg's in bytes), and files mode as per-file counts (so binary files
 * are skipped as in the other modes).
 */
export function ripgrepArgs(search: GrepSearch, options: RipgrepArgOptions): string[] {
  const args = ['--no-config', '--null', '--no-heading', '--with-filename', '--color', 'never', '--hidden', '--no-ignore-global'];
  if (!options.insideRepository) args.push('--no-require-git');
  if (search.includeIgnored) args.push('--no-ignore');
  else if (options.ancestorRules === false) args.push('--no-ignore-parent');
  args.push('--ignore-file', options.ignoreFile);
  if (search.file) {
    args.push('--max-depth', '1', '-g', `/${escapeGlobLiteral(nodePath.basename(search.file))}`);
  } else {
    if (search.glob) args.push('-g', search.glob.rgGlob);
    for (const vcs of VCS_DIR_NAMES) args.push('-g', `!${vcs}`);
    if (search.typeGlobs) {
      for (const glob of search.typeGlobs) args.push('--type-add', `${TYPE_NAME}:${glob}`);
      args.push('--type', TYPE_NAME);
    }
  }
  args.push(search.regex.caseInsensitive ? '--ignore-case' : '--case-sensitive');
  if (search.regex.multiline) args.push('--multiline', '--multiline-dotall');
  if (search.mode === 'content') {
    args.push('--line-number', '--max-columns', String(search.maxLineChars * 4), '--max-columns-preview');
    if (search.before > 0) args.push('--before-context', String(search.before));
    if (search.after > 0) args.push('--after-context', String(search.after));
  } else if (search.mode === 'count_matches') {
    args.push('--count-matches');
  } else {
    args.push('--count');
  }
  args.push('--regexp', search.regex.pattern, '--', './');
  return args;
}

/** Whether a file rg reported is kept (RipgrepEngine.resultFilter). */
type ResultFilter = (path: string) => boolean | Promise<boolean>;

interface PendingFile {
  rel: string;
  count: number;
  matches: number;
  /** Content mode: the file's record lines as rg printed them, in pieces. */
  parts: string[];
  /** Content mode: characters of line text kept in `parts` (and the open run). */
  kept: number;
  keptMatches: number;
  /** Content mode: the line number of the last match kept. */
  lastKept: number;
  /** Content mode: a match was left out (KeptLines): from there on only the after-context of the last kept match is kept. */
  full: boolean;
}

/**
 * Content mode: how much of one file's records the parser keeps. No page shows a match past the
 * page end, and more characters than the collector's budget would only fill it; the matches
 * after either are still counted.
 */
export interface KeptLines {
  readonly pageEnd: number;
  readonly maxChars: number;
}

/**
 * A content result of rg, kept as the text rg printed: its lines are parsed only when they are
 * shown (most results of a big search never are: they fall outside the page).
 */
class RipgrepContentFile implements GrepFileResult {
  private parsed: GrepLine[] | undefined;

  constructor(
    readonly path: string,
    readonly count: number,
    private readonly block: string,
    private readonly prefixLength: number,
    private readonly maxLineChars: number,
  ) {}

  get weight(): number {
    return this.block.length;
  }

  get lines(): readonly GrepLine[] {
    if (!this.parsed) {
      const lines: GrepLine[] = [];
      const block = this.block;
      let start = 0;
      while (start < block.length) {
        let end = block.indexOf('\n', start);
        if (end === -1) end = block.length;
        const line = parseRecordText(block, start + this.prefixLength, end, this.maxLineChars);
        if (line) lines.push(line);
        start = end + 1;
      }
      this.parsed = lines;
    }
    return this.parsed;
  }
}

/** `N:text` (a match) or `N-text` (context) in data[start, end). */
function parseRecordText(data: string, start: number, end: number, maxLineChars: number): GrepLine | undefined {
  let i = start;
  let n = 0;
  for (let c = data.charCodeAt(i); c >= 0x30 && c <= 0x39 && i < end; c = data.charCodeAt(++i)) n = n * 10 + (c - 0x30);
  const sep = data.charCodeAt(i);
  if (i === start || (sep !== 0x3a && sep !== 0x2d)) return undefined;
  let text = data.slice(i + 1, end);
  let cut = false;
  if (text.length - PREVIEW_MARKER.length >= maxLineChars && text.endsWith(PREVIEW_MARKER)) {
    text = text.slice(0, -PREVIEW_MARKER.length);
    cut = true;
  }
  return normalizeLine(n, text, sep === 0x3a, maxLineChars, cut);
}

/**
 * Parses rg's `--null` output as it streams; a file's records are complete when the next file
 * starts. Chunks are decoded once (a StringDecoder keeps characters split between chunks whole);
 * per line only the path is compared and, in content mode, the match/context mark counted: the
 * records themselves are kept as slices of the decoded text and parsed when shown.
 */
export class RipgrepOutputParser {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';
  private current: PendingFile | undefined;
  /** The open run of the current file's records in the chunk being read. */
  private runStart = -1;
  private runEnd = -1;
  readonly messages: string[] = [];

  constructor(
    private readonly search: GrepSearch,
    private readonly cwd: string,
    private readonly onFile: (file: GrepFileResult) => void,
    private readonly keep: KeptLines = { pageEnd: Infinity, maxChars: Infinity },
  ) {}

  push(chunk: Buffer): void {
    this.scan(this.rest + this.decoder.write(chunk), false);
  }

  /** `complete`: rg ran to the end, so the last file's records are whole. */
  end(complete: boolean): void {
    if (complete) {
      const tail = this.rest + this.decoder.end();
      if (tail.length > 0) this.scan(tail + '\n', true);
      this.commit();
    }
    this.rest = '';
    this.current = undefined;
  }

  private scan(data: string, last: boolean): void {
    let start = 0;
    for (let nl = data.indexOf('\n'); nl !== -1; nl = data.indexOf('\n', start)) {
      this.line(data, start, nl);
      start = nl + 1;
    }
    this.closeRun(data);
    this.rest = last ? '' : data.slice(start);
  }

  private closeRun(data: string): void {
    if (this.runStart >= 0 && this.current) this.current.parts.push(data.slice(this.runStart, this.runEnd));
    this.runStart = -1;
  }

  private commit(): void {
    const file = this.current;
    this.current = undefined;
    if (!file) return;
    const path = this.cwd.endsWith('/') ? this.cwd + file.rel.replace(/^\.\//, '') : `${this.cwd}/${file.rel.replace(/^\.\//, '')}`;
    if (this.search.mode === 'content') {
      this.onFile(new RipgrepContentFile(path, file.matches, file.parts.join(''), file.rel.length + 1, this.search.maxLineChars));
    } else if (file.count > 0) {
      this.onFile({ path, count: this.search.mode === 'files_with_matches' ? 1 : file.count });
    }
  }

  /**
   * Whether a record of the current file is kept (KeptLines): every one until a match is past
   * what the file may keep; after that, only the after-context of the last kept match (a match
   * in it too, as context shown around that match). The builtin worker keeps the same lines.
   */
  private keeps(file: PendingFile, n: number, isMatch: boolean): boolean {
    if (!file.full && isMatch) {
      if (file.keptMatches < this.keep.pageEnd && file.kept < this.keep.maxChars) {
        file.keptMatches++;
        file.lastKept = n;
        return true;
      }
      file.full = true;
    }
    return !file.full || n <= file.lastKept + this.search.after;
  }

  /** The line data[start, end). */
  private line(data: string, start: number, end: number): void {
    const nul = data.indexOf('\0', start);
    if (nul === -1 || nul >= end) {
      this.closeRun(data);
      const text = data.slice(start, end);
      if (text === '--' || text === '') return;
      const binary = BINARY_MESSAGE.exec(text);
      if (binary) {
        if (this.current && this.current.rel === binary[1]) this.current = undefined;
        return;
      }
      if (this.messages.length < 20) this.messages.push(text);
      return;
    }
    // Most lines belong to the file of the line before: compare in place before cutting a path.
    const current = this.current;
    if (!current || current.rel.length !== nul - start || !data.startsWith(current.rel, start)) {
      this.closeRun(data);
      this.commit();
      this.current = { rel: data.slice(start, nul), count: 0, matches: 0, parts: [], kept: 0, keptMatches: 0, lastKept: 0, full: false };
    }
    const file = this.current!;
    if (this.search.mode !== 'content') {
      file.count = Number(data.slice(nul + 1, end)) || 0;
      return;
    }
    // Count the match (`N:`) or context (`N-`) line, and keep the record in the open run.
    let i = nul + 1;
    let n = 0;
    for (let c = data.charCodeAt(i); c >= 0x30 && c <= 0x39 && i < end; c = data.charCodeAt(++i)) n = n * 10 + (c - 0x30);
    const isMatch = data.charCodeAt(i) === 0x3a;
    if (isMatch) file.matches++;
    if (!this.keeps(file, n, isMatch)) {
      this.closeRun(data);
      return;
    }
    if (this.runStart < 0) this.runStart = start;
    this.runEnd = end + 1;
    // The line's text, as the builtin worker counts it.
    file.kept += end - i - 1;
  }
}

/** Grep with the rg binary: one process per call, its output streamed and bounded. */
export class RipgrepEngine implements GrepEngine {
  readonly name = 'ripgrep' as const;

  constructor(
    readonly rgPath: string,
    private readonly ignoreFile: () => Promise<string>,
  ) {}

  async run(search: GrepSearch, limits: GrepLimits): Promise<GrepOutcome> {
    const cwd = search.file ? nodePath.dirname(search.file) : search.root;
    // The ignore files of the folders above are probed here (a few stats) to tell rg whether they matter.
    const tree = await IgnoreTree.open(cwd, localSearchFs, { enabled: !search.includeIgnored });
    const args = ripgrepArgs(search, { ignoreFile: await this.ignoreFile(), insideRepository: tree.insideRepository, ancestorRules: tree.ancestorRulesApply });
    return this.spawnRg(cwd, args, search, limits, this.resultFilter(search, cwd, tree));
  }

  private spawnRg(cwd: string, args: string[], search: GrepSearch, limits: GrepLimits, filter: ResultFilter): Promise<GrepOutcome> {
    return new Promise((resolve, reject) => {
      let stopped: GrepOutcome['stopped'];
      let stderr = '';
      let killTimer: NodeJS.Timeout | undefined;
      const child = nodeBuiltins.childProcess().spawn(this.rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      const stop = (reason: NonNullable<GrepOutcome['stopped']>): void => {
        if (stopped) return;
        stopped = reason;
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
        killTimer.unref();
      };
      const collector = new GrepCollector(limits.maxOutputBytes, () => stop('cap'), search.mode, limits.pageEnd);
      // files_with_matches is sorted newest first: stat each file as rg reports it, while rg still
      // walks (a sync stat is microseconds; 27k of them after the search cost more than rg's -l).
      const mtimeOf = search.mode === 'files_with_matches' ? localSearchFs.local?.mtimeMs : undefined;
      // Files are filtered before they are collected: one left out later could hold a place on the page.
      let admitted = Promise.resolve();
      let filterError: unknown;
      const admit = (file: GrepFileResult): void => {
        const verdict = filter(file.path);
        const add = () => collector.add(mtimeOf ? { path: file.path, count: file.count, mtimeMs: mtimeOf(file.path) ?? 0 } : file);
        if (verdict === true) add();
        else if (verdict !== false) {
          // Never rejected: an error is reported once rg has ended.
          admitted = admitted.then(() =>
            verdict.then(
              (keep) => (keep ? add() : undefined),
              (error: unknown) => void (filterError ??= error),
            ),
          );
        }
      };
      const parser = new RipgrepOutputParser(search, cwd, admit, { pageEnd: limits.pageEnd, maxChars: limits.maxOutputBytes });
      const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
      const onAbort = () => stop('aborted');
      limits.signal.addEventListener('abort', onAbort, { once: true });
      if (limits.signal.aborted) stop('aborted');
      child.stdout.on('data', (chunk: Buffer) => {
        if (!collector.full) parser.push(chunk);
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        if (stderr.length < STDERR_MAX) stderr += text;
      });
      // A closed pipe or a failed read must not crash the host; 'close' reports the outcome.
      child.stdout.on('error', () => undefined);
      child.stderr.on('error', () => undefined);
      const cleanup = () => {
        clearTimeout(timer);
        if (killTimer) clearTimeout(killTimer);
        limits.signal.removeEventListener('abort', onAbort);
      };
      child.on('error', (error) => {
        cleanup();
        reject(new GrepEngineError(`Could not start ripgrep (${this.rgPath}): ${error.message}. Set grep.engine to "builtin" or fix grep.rgPath.`));
      });
      child.on('close', (code) => {
        cleanup();
        // The last file is complete now; it may still be waiting for its ignore files.
        parser.end(stopped === undefined);
        void admitted.then(() => closed(code));
      });
      const closed = (code: number | null): void => {
        if (filterError !== undefined) {
          reject(filterError instanceof Error ? filterError : new Error(String(filterError)));
          return;
        }
        const unreadable: string[] = [];
        const problems: string[] = [];
        for (const line of stderr.split('\n')) {
          if (line.trim() === '') continue;
          const pathError = STDERR_PATH_ERROR.exec(line);
          if (pathError && !line.includes('regex parse error')) unreadable.push(nodePath.join(cwd, pathError[1]!));
          else problems.push(line.replace(/^rg: /, ''));
        }
        if (stopped === undefined && code === 2 && collector.files.length === 0 && problems.length > 0) {
          reject(new GrepEngineError(`ripgrep failed: ${problems.join(' ').replace(/\s+/g, ' ').trim()}`));
          return;
        }
        resolve({ files: collector.files, totals: collector.totals, unreadable, ...(stopped ? { stopped } : {}) });
      };
    });
  }

  /**
   * rg lets a `-g` glob override ignore files and file types for the files it matches; both
   * engines treat the glob as a filter instead, so those files are checked again. And secrets are
   * never reported, whatever an ignore file says. Whether a file is kept: at once, or once its
   * ignore files are read.
   */
  private resultFilter(search: GrepSearch, cwd: string, tree: IgnoreTree): ResultFilter {
    const recheck = !search.file && search.glob !== undefined && !search.glob.negated;
    const typeMatches = recheck && search.typeGlobs ? compileFileTypeMatcher(search.typeGlobs) : undefined;
    // Without a file, rg ran in the root: the tree its flags came from is the root's.
    const ignored = recheck && tree.enabled ? tree : undefined;
    // Paths are built as cwd + '/' + rel (RipgrepOutputParser.commit): gate the folder once.
    const below = cwd.endsWith('/') ? cwd : `${cwd}/`;
    const sensitiveBelow = sensitivePathsBelow(below);
    return (path) => {
      if (path.startsWith(below) ? sensitiveBelow(path.slice(below.length)) : isSensitivePath(path)) return false;
      if (typeMatches && !typeMatches(nodePath.basename(path))) return false;
      return ignored ? ignored.isPathIgnored(path).then((isIgnored) => !isIgnored) : true;
    };
  }
}
