import type { Dirent } from 'node:fs';
import * as nodePath from 'node:path';
import { GitignoreRules, type IgnoreVerdict } from './gitignore';
import { byteForm, isAscii } from './globRegex';

/**
 * What Glob and Grep leave out of a search, the same for every engine:
 *
 * - VCS folders (`.git`, `.hg`, `.svn`, `.bzr`, `.jj`, `.sl`) and symbolic links, always;
 * - files and folders matched by `.gitignore`, `.ignore` and `.rgignore` files in the searched
 *   folder, below it and above it, and by `.git/info/exclude`, unless the search includes ignored
 *   files. Hidden files (dotfiles) are searched like any other.
 *
 * Inside a git repository (a `.git` or `.jj` entry in the searched folder or above it) the rules
 * follow git: `.gitignore` files above the repository root do not apply, nor do those of an outer
 * repository inside a nested one. Outside any repository `.gitignore` files still apply, from
 * every folder above the searched one, down to a Jujutsu repository (a `.jj` folder) below it:
 * rg takes that one for a repository root there too, a nested `.git` one not. `.ignore` and `.rgignore` always apply from every folder
 * above, and take precedence over `.gitignore` (`.rgignore` first). This is exactly what ripgrep
 * does, given `--no-require-git` only when no repository encloses the search, so both engines
 * agree. Git's global excludes file is not read (ripgrep gets `--no-ignore-global`).
 */
export const VCS_DIR_NAMES: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.bzr', '.jj', '.sl']);
/** The entries that make a folder a repository root. */
export const REPO_MARKERS = ['.git', '.jj'] as const;
/** The entry names that change a folder's ignore level. */
export const IGNORE_LEVEL_NAMES: ReadonlySet<string> = new Set(['.rgignore', '.ignore', '.gitignore', ...REPO_MARKERS]);

/** The file operations a search needs, shaped like node:fs/promises. */
export interface SearchFs {
  readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  stat(path: string): Promise<{ isFile(): boolean; isDirectory(): boolean; mtimeMs: number }>;
  lstat(path: string): Promise<{ isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }>;
  /**
   * The local disk's fast paths, when the search runs on it: a callback readdir (no promise per
   * folder) and a synchronous modification time (a thread-pool round trip costs more than the
   * stat itself).
   */
  readonly local?: {
    readdir(path: string, callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void): void;
    mtimeMs(path: string): number | undefined;
    /** Whether a path exists (symlinks not followed), without an exception. */
    exists(path: string): boolean;
  };
}

/** The ignore rules that a directory adds, linked to those of its parent. */
export interface IgnoreLevel {
  readonly dir: string;
  readonly parent: IgnoreLevel | undefined;
  /** `.rgignore` */
  readonly custom?: GitignoreRules;
  /** `.ignore` */
  readonly dot?: GitignoreRules;
  /** `.gitignore` */
  readonly git?: GitignoreRules;
  /** `.git/info/exclude` of a repository whose root is this directory */
  readonly exclude?: GitignoreRules;
  /** A repository root: it stops `.gitignore` files above it (a `.git` entry only inside a repository, a `.jj` one always, as in rg). */
  readonly hasGit: boolean;
}

function relativeTo(dir: string, path: string): string {
  return dir === '/' ? path.slice(1) : path.slice(dir.length + 1);
}

async function readOptional(fs: SearchFs, path: string): Promise<string | undefined> {
  if (fs.local && !fs.local.exists(path)) return undefined;
  try {
    return await fs.readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function exists(fs: SearchFs, path: string): Promise<boolean> {
  if (fs.local) return fs.local.exists(path);
  try {
    await fs.lstat(path);
    return true;
  } catch {
    return false;
  }
}

export interface IgnoreTreeOptions {
  /** Apply ignore files (false: include ignored files). */
  readonly enabled: boolean;
}

export class IgnoreTree {
  private readonly levels = new Map<string, Promise<IgnoreLevel>>();
  private readonly resolved = new Map<string, IgnoreLevel>();

  private constructor(
    readonly root: string,
    private readonly fs: SearchFs,
    readonly enabled: boolean,
    /** A repository encloses the search root: `.gitignore` files follow repository boundaries. */
    readonly insideRepository: boolean,
    readonly rootLevel: IgnoreLevel,
  ) {}

  /** `root` is a canonical absolute directory. Reads the ignore files of it and of its ancestors. */
  static async open(root: string, fs: SearchFs, options: IgnoreTreeOptions): Promise<IgnoreTree> {
    const ancestors: string[] = [];
    for (let dir = root; ; dir = nodePath.dirname(dir)) {
      ancestors.unshift(dir);
      if (nodePath.dirname(dir) === dir) break;
    }
    // One probe per name and folder: which of the names that matter exist in each ancestor.
    const present: Array<Set<string>> = [];
    const probes = options.enabled ? [...IGNORE_LEVEL_NAMES] : REPO_MARKERS;
    for (const dir of ancestors) {
      const names = new Set<string>();
      for (const name of probes) if (await exists(fs, nodePath.join(dir, name))) names.add(name);
      present.push(names);
    }
    const insideRepository = present.some((names) => REPO_MARKERS.some((marker) => names.has(marker)));
    const empty: IgnoreLevel = { dir: root, parent: undefined, hasGit: false };
    if (!options.enabled) return new IgnoreTree(root, fs, false, insideRepository, empty);
    const probe = new IgnoreTree(root, fs, true, insideRepository, empty);
    let level: IgnoreLevel | undefined;
    for (let i = 0; i < ancestors.length; i++) level = await probe.loadLevel(level, ancestors[i]!, present[i]!);
    const tree = new IgnoreTree(root, fs, true, insideRepository, level!);
    tree.remember(root, level!);
    return tree;
  }

  /**
   * Whether an ignore file in a folder above the root can apply to something below it: a
   * `.rgignore` or `.ignore` there, or a `.gitignore` or `.git/info/exclude` below the first
   * repository root at or above the search root (isIgnored stops there). When none can, rg's
   * `--no-ignore-parent` lists the same files, and rg then skips matching every file against the
   * folders above (about a sixth of its CPU time on the 100k-file bench corpus).
   */
  get ancestorRulesApply(): boolean {
    if (!this.enabled) return false;
    let level: IgnoreLevel | undefined = this.rootLevel;
    let sawGit = false;
    if (level.dir === this.root) {
      sawGit = level.hasGit;
      level = level.parent;
    }
    for (; level; level = level.parent) {
      if (level.custom || level.dot || (!sawGit && (level.git || level.exclude))) return true;
      sawGit ||= level.hasGit;
    }
    return false;
  }

  private remember(dir: string, level: IgnoreLevel): IgnoreLevel {
    this.resolved.set(dir, level);
    this.levels.set(dir, Promise.resolve(level));
    return level;
  }

  /** The level of a directory already reached (the root, or one listed through childLevel). */
  knownLevel(dir: string): IgnoreLevel | undefined {
    return this.enabled ? this.resolved.get(dir) : this.rootLevel;
  }

  /**
   * The level of a directory below the root from the entry names it holds that matter
   * (IGNORE_LEVEL_NAMES): without any, it is the parent's level, at once and without I/O.
   */
  childLevel(parent: IgnoreLevel, dir: string, levelNames: readonly string[]): IgnoreLevel | Promise<IgnoreLevel> {
    if (!this.enabled) return this.rootLevel;
    const known = this.resolved.get(dir);
    if (known) return known;
    if (levelNames.length === 0) return this.remember(dir, parent);
    let level = this.levels.get(dir);
    if (!level) {
      level = this.loadLevel(parent, dir, new Set(levelNames)).then((l) => this.remember(dir, l));
      this.levels.set(dir, level);
    }
    return level;
  }

  /** The level of any directory at or below the root, probing the file system (cached). */
  levelOf(dir: string): Promise<IgnoreLevel> {
    if (!this.enabled) return Promise.resolve(this.rootLevel);
    let level = this.levels.get(dir);
    if (!level) {
      if (!dir.startsWith(this.root) || nodePath.dirname(dir) === dir) return Promise.resolve(this.rootLevel);
      level = this.levelOf(nodePath.dirname(dir)).then(async (parent) => this.remember(dir, await this.loadLevel(parent, dir, undefined)));
      this.levels.set(dir, level);
    }
    return level;
  }

  private async loadLevel(parent: IgnoreLevel | undefined, dir: string, names: ReadonlySet<string> | undefined): Promise<IgnoreLevel> {
    const has = async (name: string) => (names ? names.has(name) : exists(this.fs, nodePath.join(dir, name)));
    const rules = async (name: string) => {
      if (names && !names.has(name)) return undefined;
      const text = await readOptional(this.fs, nodePath.join(dir, name));
      if (text === undefined) return undefined;
      const parsed = GitignoreRules.parse(text);
      return parsed.isEmpty ? undefined : parsed;
    };
    const [custom, dot, git] = await Promise.all([rules('.rgignore'), rules('.ignore'), rules('.gitignore')]);
    const hasDotGit = await has('.git');
    // rg takes a `.jj` folder for a repository root even with --no-require-git (outside any
    // repository), a `.git` one only inside a repository.
    const hasGit = (this.insideRepository && hasDotGit) || (await has('.jj'));
    let exclude: GitignoreRules | undefined;
    if (hasDotGit) {
      const gitDir = this.insideRepository ? await resolveGitCommonDir(this.fs, dir) : nodePath.join(dir, '.git');
      const text = gitDir ? await readOptional(this.fs, nodePath.join(gitDir, 'info', 'exclude')) : undefined;
      const parsed = text !== undefined ? GitignoreRules.parse(text) : undefined;
      if (parsed && !parsed.isEmpty) exclude = parsed;
    }
    if (!custom && !dot && !git && !exclude && !hasGit && parent) return parent;
    return { dir, parent, hasGit, ...(custom ? { custom } : {}), ...(dot ? { dot } : {}), ...(git ? { git } : {}), ...(exclude ? { exclude } : {}) };
  }

  /**
   * Whether an entry of the directory whose level is `level` is ignored. `ascii`: whether the
   * path is all ASCII, when the caller knows (a listing tests its folder once, not every path).
   */
  isIgnored(level: IgnoreLevel, path: string, isDir: boolean, ascii = isAscii(path)): boolean {
    if (!this.enabled) return false;
    let custom: IgnoreVerdict;
    let dot: IgnoreVerdict;
    let git: IgnoreVerdict;
    let exclude: IgnoreVerdict;
    let sawGit = false;
    // An ASCII path is its own byte form, and so is every part of it.
    for (let l: IgnoreLevel | undefined = level; l; l = l.parent) {
      if (!l.custom && !l.dot && !l.git && !l.exclude) {
        sawGit ||= l.hasGit;
        continue;
      }
      const rel = ascii ? relativeTo(l.dir, path) : byteForm(relativeTo(l.dir, path));
      if (custom === undefined && l.custom) custom = l.custom.matchBytes(rel, isDir);
      if (dot === undefined && l.dot) dot = l.dot.matchBytes(rel, isDir);
      if (!sawGit) {
        if (git === undefined && l.git) git = l.git.matchBytes(rel, isDir);
        if (exclude === undefined && l.exclude) exclude = l.exclude.matchBytes(rel, isDir);
      }
      sawGit ||= l.hasGit;
    }
    return (custom ?? dot ?? git ?? exclude) === 'ignore';
  }

  /** Whether a path below the root, or any directory between the root and it, is ignored. */
  async isPathIgnored(path: string, isDir = false): Promise<boolean> {
    if (!this.enabled || path === this.root) return false;
    const rel = relativeTo(this.root, path);
    const parts = rel.split('/');
    let dir = this.root;
    for (let i = 0; i < parts.length; i++) {
      const level = await this.levelOf(dir);
      const child = dir === '/' ? `/${parts[i]}` : `${dir}/${parts[i]}`;
      const last = i === parts.length - 1;
      if (this.isIgnored(level, child, last ? isDir : true)) return true;
      dir = child;
    }
    return false;
  }
}

/**
 * The directory holding `info/exclude` for a repository root `dir`. `.git` may be a file, as in
 * worktrees and submodules: its `gitdir:` must then name a folder with a `commondir` file (a
 * worktree's); without one (a submodule's) there is no exclude file, as in ripgrep.
 */
async function resolveGitCommonDir(fs: SearchFs, dir: string): Promise<string | undefined> {
  const dotGit = nodePath.join(dir, '.git');
  let stat;
  try {
    stat = await fs.stat(dotGit);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return dotGit;
  const pointer = await readOptional(fs, dotGit);
  const match = pointer ? /^gitdir:\s*(.+?)\s*$/m.exec(pointer) : null;
  if (!match) return undefined;
  const gitDir = nodePath.resolve(dir, match[1]!);
  const common = await readOptional(fs, nodePath.join(gitDir, 'commondir'));
  return common ? nodePath.resolve(gitDir, common.trim()) : undefined;
}
