import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

/** The root of the git work tree holding `dir`, or undefined (a `.git` folder or file up the tree). */
export function gitWorkTreeRoot(dir: string): string | undefined {
  for (let current = dir; ; current = nodePath.dirname(current)) {
    if (fs.existsSync(nodePath.join(current, '.git'))) return current;
    if (nodePath.dirname(current) === current) return undefined;
  }
}

function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', cwd, ...args], { encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')} failed: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

export interface Worktree {
  readonly path: string;
  readonly branch: string;
  /** The commit it started from. */
  readonly base: string;
}

/** `git worktree add -b <branch> <path> HEAD` in the repository of `repoDir`. */
export async function createWorktree(repoDir: string, path: string, branch: string): Promise<Worktree> {
  const base = (await git(repoDir, ['rev-parse', 'HEAD'])).trim();
  fs.mkdirSync(nodePath.dirname(path), { recursive: true });
  await git(repoDir, ['worktree', 'add', '--quiet', '-b', branch, path, base]);
  return { path: fs.realpathSync.native(path), branch, base };
}

/**
 * Removes the worktree and its branch when the child left nothing in it (no uncommitted change,
 * no new commit); otherwise keeps both for the parent to merge. Returns whether it was kept.
 */
export async function finishWorktree(repoDir: string, worktree: Worktree): Promise<{ readonly kept: boolean }> {
  const dirty = (await git(worktree.path, ['status', '--porcelain'])).trim() !== '';
  const ahead = (await git(worktree.path, ['rev-list', `${worktree.base}..HEAD`])).trim() !== '';
  if (dirty || ahead) return { kept: true };
  await git(repoDir, ['worktree', 'remove', '--force', worktree.path]);
  await git(repoDir, ['branch', '-D', worktree.branch]);
  return { kept: false };
}
