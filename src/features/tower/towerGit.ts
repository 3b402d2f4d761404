import * as nodePath from 'node:path';
import type { RuntimeProcess } from '../../services/runtime/runtime';
import { TowerError } from './contract';

export const TOWER_GIT_TIMEOUT_MS = 60_000;

/** git through the agent's runtime (never a direct child process). */
export class TowerGit {
  constructor(private readonly process: RuntimeProcess) {}

  /** stdout of `git <args>` in `cwd`; a non-zero exit throws TowerError with git's message. */
  async run(cwd: string, args: readonly string[]): Promise<string> {
    const result = await this.process.exec('git', args, { cwd, timeoutMs: TOWER_GIT_TIMEOUT_MS });
    if (result.exitCode !== 0) throw new TowerError(`git ${args.join(' ')} failed: ${(result.stderr || result.stdout).trim() || `exit ${String(result.exitCode)}`}`);
    return result.stdout;
  }

  /** Whether `git <args>` exits 0. */
  async succeeds(cwd: string, args: readonly string[]): Promise<boolean> {
    return (await this.process.exec('git', args, { cwd, timeoutMs: TOWER_GIT_TIMEOUT_MS })).exitCode === 0;
  }

  /** The main checkout's root (also from inside a linked worktree), or undefined outside a repository. */
  async mainRoot(cwd: string): Promise<string | undefined> {
    const result = await this.process.exec('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd, timeoutMs: TOWER_GIT_TIMEOUT_MS });
    if (result.exitCode !== 0) return undefined;
    const commonDir = result.stdout.trim();
    return nodePath.basename(commonDir) === '.git' ? nodePath.dirname(commonDir) : undefined;
  }

  async currentBranch(cwd: string): Promise<string | undefined> {
    const result = await this.process.exec('git', ['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd, timeoutMs: TOWER_GIT_TIMEOUT_MS });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  async tip(cwd: string, branch: string): Promise<string | undefined> {
    const result = await this.process.exec('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd, timeoutMs: TOWER_GIT_TIMEOUT_MS });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  /** Files `branch` changed since it left `base` (three-dot diff), relative to the root. */
  async changedFiles(cwd: string, base: string, branch: string): Promise<string[]> {
    return lines(await this.run(cwd, ['diff', '--name-only', '--no-renames', `${base}...${branch}`]));
  }

  async trackedFiles(cwd: string): Promise<string[]> {
    return lines(await this.run(cwd, ['ls-files']));
  }

  async isDirty(cwd: string): Promise<boolean> {
    return (await this.run(cwd, ['status', '--porcelain'])).trim() !== '';
  }
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');
