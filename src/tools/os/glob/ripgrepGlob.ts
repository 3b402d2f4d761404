import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { IgnoreTree, VCS_DIR_NAMES } from '../search/ignoreTree';
import type { GlobPattern } from '../search/searchGlob';
import { localSearchFs } from '../search/searchPaths';
import { type GlobListing, GlobMatches, globPatternMatches, type GlobWalkOptions } from './globListing';
import { nodeBuiltins } from '../../../base/nodeBuiltins';

const KILL_GRACE_MS = 2_000;
const STDERR_MAX = 16 * 1024;
/** rg's complaint about one path below `./` (an unreadable folder): the walk goes on without it, as ours does. */
const STDERR_PATH_ERROR = /^rg: \.\/.*: .*\(os error \d+\)$/;

/**
 * Whether rg can walk for a pattern. A pattern with a literal leading folder or a fixed depth
 * walks a small part of the tree, which our own walk prunes faster than a process starts; a
 * line break cannot go into an ignore file.
 */
export function ripgrepCanWalk(pattern: GlobPattern): boolean {
  return pattern.dirPrefix.length === 0 && pattern.depth === undefined && !/[\r\n]/.test(pattern.line);
}

const TYPE_NAME = 'toolhostglob';

/**
 * How rg is told which files the pattern matches, without letting the pattern override the
 * ignore files, as `-g pattern` would (rg lists an ignored `x.gen.ts` for `-g '*.ts'`):
 * - a pattern of base names (`*.ts`, `**\/package.json`) as a file type, which rg applies after
 *   the ignore files, on the base name: the cheapest filter rg has after `-g`;
 * - any other as an ignore file that ignores every file the pattern does not match and enters
 *   every folder (`*`, `!*\/`, `!pattern`): `--ignore-file` rules come after the ignore files
 *   too, but rg then matches every entry against both, which costs more.
 * rg's file types split a definition at `:`, and on Windows read a backslash as a separator, so a name
 * glob with those takes the second form.
 */
export type RipgrepGlobFilter = { readonly type: string } | { readonly ignoreFile: string };

export function ripgrepGlobFilter(pattern: GlobPattern): RipgrepGlobFilter {
  const { nameGlob } = pattern.rule;
  if (nameGlob !== undefined && !nameGlob.includes(':') && (process.platform !== 'win32' || !nameGlob.includes('\\'))) return { type: nameGlob };
  return { ignoreFile: `*\n!*/\n!${pattern.line}\n` };
}

export interface RipgrepGlobArgOptions {
  readonly includeIgnored: boolean;
  readonly insideRepository: boolean;
  /** IgnoreTree.ancestorRulesApply: without such rules rg is told not to look above the search folder. */
  readonly ancestorRules: boolean;
  /** rg's walker threads (ripgrepGlobThreads). */
  readonly threads: number;
}

/**
 * rg's walker threads for a Glob: one core fewer than the machine has, at least one. This thread
 * stats every path rg prints (newest-first order needs each mtime) while rg walks; on 2 cores
 * rg's second thread gains it nothing (its walk is kernel time that one thread keeps as busy)
 * and takes the core the stat-ing needs, which made a listing of 26,695 of 103,449 files about
 * a tenth slower (bench glob).
 */
export function ripgrepGlobThreads(cores: number = os.availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** The rg command line of a Glob walk, run in the search folder; the rules are those of the Grep engines (ripgrepArgs). */
export function ripgrepGlobArgs(filter: { type: string } | { ignoreFilePath: string }, options: RipgrepGlobArgOptions): string[] {
  const args = ['--no-config', '--files', '--null', '--hidden', '--no-ignore-global', '--threads', String(options.threads)];
  if (!options.insideRepository) args.push('--no-require-git');
  if (options.includeIgnored) args.push('--no-ignore');
  else if (!options.ancestorRules) args.push('--no-ignore-parent');
  // --no-ignore leaves --ignore-file files in force (rg 13 and later).
  if ('type' in filter) args.push('--type-add', `${TYPE_NAME}:${filter.type}`, '--type', TYPE_NAME);
  else args.push('--ignore-file', filter.ignoreFilePath);
  for (const vcs of VCS_DIR_NAMES) args.push('-g', `!${vcs}`);
  args.push('--', './');
  return args;
}

/**
 * Lists the files under `root` that `pattern` matches with `rg --files` walking (on the other
 * cores, while this thread stats what it prints): the same files as listGlob, since rg follows the same
 * rules. rg decides a file type after the ignore files, and a file they re-include (`!keep.js`)
 * still has to be of the type, so rg's list is final. With the ignore-file form a re-included
 * file is listed whatever its name: each path is then matched again with our compiled pattern.
 * Undefined when rg could not run: the caller walks itself.
 */
export async function listGlobWithRipgrep(
  rgPath: string,
  root: string,
  pattern: GlobPattern,
  options: GlobWalkOptions,
): Promise<GlobListing | undefined> {
  const filter = ripgrepGlobFilter(pattern);
  // The ignore files of the folders above are read here (a few probes) to tell rg whether they matter.
  const tree = await IgnoreTree.open(root, localSearchFs, { enabled: !options.includeIgnored });
  const argOptions = { includeIgnored: options.includeIgnored, insideRepository: tree.insideRepository, ancestorRules: tree.ancestorRulesApply, threads: ripgrepGlobThreads() };
  const wanted = options.wanted ?? Infinity;
  if ('type' in filter) return walk(rgPath, root, ripgrepGlobArgs(filter, argOptions), undefined, options.signal, wanted);
  const dir = await fsp.mkdtemp(nodePath.join(os.tmpdir(), 'toolhost-glob-'));
  try {
    const ignoreFilePath = nodePath.join(dir, 'pattern.ignore');
    await fsp.writeFile(ignoreFilePath, filter.ignoreFile);
    return await walk(rgPath, root, ripgrepGlobArgs({ ignoreFilePath }, argOptions), pattern, options.signal, wanted);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** `recheck`: the pattern that each listed path must match too (undefined: rg's list is final). */
function walk(rgPath: string, root: string, args: string[], recheck: GlobPattern | undefined, signal: AbortSignal, wanted: number): Promise<GlobListing | undefined> {
  const matches = new GlobMatches(localSearchFs, root, wanted);
  const take = (rel: string): void => {
    if (!recheck || globPatternMatches(recheck, rel, rel.lastIndexOf('/') + 1, false)) matches.add(rel);
  };
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(matches.finish(true));
      return;
    }
    const child = nodeBuiltins.childProcess().spawn(rgPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Each path is decoded on its own (a NUL byte is never part of a UTF-8 character): no string
    // of the whole chunk, which every path sliced from it would keep alive.
    let rest: Buffer | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (signal.aborted) return;
      let start = 0;
      let end = chunk.indexOf(0);
      if (rest) {
        if (end === -1) {
          rest = Buffer.concat([rest, chunk]);
          return;
        }
        // `./a/b.ts`: the path relative to the root starts after `./`.
        take(Buffer.concat([rest, chunk.subarray(0, end)]).toString('utf8', 2));
        rest = undefined;
        start = end + 1;
        end = chunk.indexOf(0, start);
      }
      for (; end !== -1; end = chunk.indexOf(0, start)) {
        take(chunk.toString('utf8', start + 2, end));
        start = end + 1;
      }
      if (start < chunk.length) rest = chunk.subarray(start);
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < STDERR_MAX) stderr += text;
    });
    // A closed pipe or a failed read must not crash the host; 'close' reports the outcome.
    child.stdout.on('error', () => undefined);
    child.stderr.on('error', () => undefined);
    let failed = false;
    child.on('error', () => {
      failed = true;
    });
    child.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      // Anything else rg says (a flag or rule it does not take) means its listing may not be ours.
      const refused = stderr.split('\n').some((line) => line !== '' && !STDERR_PATH_ERROR.test(line));
      if (failed || (refused && !signal.aborted)) resolve(undefined);
      else resolve(matches.finish(signal.aborted));
    });
  });
}
