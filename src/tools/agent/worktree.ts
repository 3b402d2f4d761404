import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { RuntimeFs, RuntimeProcess } from '../../services/runtime/runtime';

/**
 * The root of the git work tree holding `dir`, or undefined (a `.git` folder or file up the tree).
 * Synchronous, on the workspace path as toolhost sees it (like the workspace checks of every
 * agent): it decides whether Agent's schema offers `isolation`.
 */
export function gitWorkTreeRoot(dir: string): string | undefined {
  for (let current = dir; ; current = nodePath.dirname(current)) {
    if (fs.existsSync(nodePath.join(current, '.git'))) return current;
    if (nodePath.dirname(current) === current) return undefined;
  }
}

/** What the worktree commands run through: the agent's runtime (its process and fs operations). */
export interface WorktreeRuntime {
  readonly process: RuntimeProcess;
  readonly fs: RuntimeFs;
}

async function git(runtime: WorktreeRuntime, cwd: string, args: readonly string[]): Promise<string> {
  const result = await runtime.process.exec('git', ['-C', cwd, ...args], { cwd, maxBytes: 4 * 1024 * 1024 });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed: ${(result.stderr || `exit code ${String(result.exitCode)}`).trim()}`);
  return result.stdout;
}

export interface Worktree {
  readonly path: string;
  readonly branch: string;
  /** The commit it started from. */
  readonly base: string;
}

/** `git worktree add -b <branch> <path> HEAD` in the repository of `repoDir`. */
export async function createWorktree(runtime: WorktreeRuntime, repoDir: string, path: string, branch: string): Promise<Worktree> {
  const base = (await git(runtime, repoDir, ['rev-parse', 'HEAD'])).trim();
  await runtime.fs.mkdir(nodePath.dirname(path), { recursive: true });
  await git(runtime, repoDir, ['worktree', 'add', '--quiet', '-b', branch, path, base]);
  return { path: await runtime.fs.realpath(path), branch, base };
}

/** Whether `worktree` is still a work tree on its branch (a resumed subagent continues in it). */
export async function worktreeStillThere(runtime: WorktreeRuntime, worktree: Worktree): Promise<boolean> {
  try {
    return (await git(runtime, worktree.path, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim() === worktree.branch;
  } catch {
    return false;
  }
}

/**
 * Removes the worktree and its branch when the child left nothing in it (no uncommitted change,
 * no new commit); otherwise keeps both for the parent to merge. Returns whether it was kept.
 */
export async function finishWorktree(runtime: WorktreeRuntime, repoDir: string, worktree: Worktree): Promise<{ readonly kept: boolean }> {
  const dirty = (await git(runtime, worktree.path, ['status', '--porcelain'])).trim() !== '';
  const ahead = (await git(runtime, worktree.path, ['rev-list', `${worktree.base}..HEAD`])).trim() !== '';
  if (dirty || ahead) return { kept: true };
  await git(runtime, repoDir, ['worktree', 'remove', '--force', worktree.path]);
  await git(runtime, repoDir, ['branch', '-D', worktree.branch]);
  return { kept: false };
}
