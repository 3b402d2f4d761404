import * as nodePath from 'node:path';
import { injectable } from 'inversify';
import type { Stats } from 'node:fs';
import { isErrnoException } from '../../base/errors';
import { TargetChangedError, writeFileAtomic } from '../../base/fs/atomicWrite';
import type { RuntimeFs } from '../../base/fs/runtimeFs';
import { createServiceId } from '../../di/serviceId';
import { TowerError, type TowerState } from './contract';

/** What one update does: the new state (without `version`: the store sets it) and a result, or `{skip}` to write nothing. */
export type TowerChange<R> = (current: TowerState | undefined) => { readonly state: Omit<TowerState, 'version'>; readonly result: R } | { readonly skip: R };

/** Runs after a write, still holding the lock, with the state written and the one it replaced (views derived from the state, like MISSIONS.md, stay in order). */
export type TowerAfterWrite = (written: TowerState, previous: TowerState | undefined) => Promise<void>;

export const MAX_TOWER_STATE_ATTEMPTS = 50;
/** A lock file older than this is from a writer that died mid-update: it is broken. */
export const STALE_TOWER_LOCK_MS = 30_000;
/** How long an update waits for the lock before giving up. */
export const TOWER_LOCK_WAIT_MS = 20_000;

/**
 * Reads and updates `state.json` files (App scope). Updates of one file from this App are queued;
 * across processes an update holds `state.json.lock` (created with O_EXCL) from its read to its
 * rename. Inside, it reads the file and its stat, applies the change, and replaces the file
 * atomically only if it is still the file it read (the atomic write's expected-target check:
 * compare-and-set on the file itself), retrying otherwise.
 */
@injectable()
export class TowerStateStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  async read(fs: RuntimeFs, file: string): Promise<TowerState | undefined> {
    return (await this.readWithStat(fs, file)).state;
  }

  update<R>(fs: RuntimeFs, file: string, change: TowerChange<R>, afterWrite?: TowerAfterWrite): Promise<{ readonly result: R; readonly version?: number }> {
    const previous = this.queues.get(file) ?? Promise.resolve();
    const run = previous.then(() => this.updateNow(fs, file, change, afterWrite));
    const settled = run.catch(() => undefined);
    this.queues.set(file, settled);
    void settled.then(() => {
      if (this.queues.get(file) === settled) this.queues.delete(file);
    });
    return run;
  }

  private async updateNow<R>(fs: RuntimeFs, file: string, change: TowerChange<R>, afterWrite: TowerAfterWrite | undefined): Promise<{ readonly result: R; readonly version?: number }> {
    return withTowerLock(fs, `${file}.lock`, () => this.compareAndSet(fs, file, change, afterWrite));
  }

  private async compareAndSet<R>(fs: RuntimeFs, file: string, change: TowerChange<R>, afterWrite: TowerAfterWrite | undefined): Promise<{ readonly result: R; readonly version?: number }> {
    for (let attempt = 1; ; attempt++) {
      const { state, stat } = await this.readWithStat(fs, file);
      const outcome = change(state);
      if ('skip' in outcome) return { result: outcome.skip };
      const version = (state?.version ?? 0) + 1;
      const written: TowerState = { ...outcome.state, version };
      const text = `${JSON.stringify(written, null, 2)}\n`;
      try {
        await writeFileAtomic(fs, file, (sink) => sink.write(text), { expectedTarget: stat });
      } catch (error) {
        if (!(error instanceof TargetChangedError)) throw error;
        if (attempt >= MAX_TOWER_STATE_ATTEMPTS) throw new TowerError(`${file} kept changing under ${MAX_TOWER_STATE_ATTEMPTS} attempts to update it; try again.`);
        continue;
      }
      await afterWrite?.(written, state);
      return { result: outcome.result, version };
    }
  }

  private async readWithStat(fs: RuntimeFs, file: string): Promise<{ readonly state: TowerState | undefined; readonly stat: Stats | null }> {
    let stat: Stats;
    try {
      stat = await fs.stat(file);
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ENOENT') return { state: undefined, stat: null };
      throw error;
    }
    const text = await fs.readFile(file, 'utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TowerError(`${file} is not JSON; fix or remove it (TowerInit then starts a new state).`);
    }
    if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { version?: unknown }).version !== 'number') {
      throw new TowerError(`${file} is not a tower state (no version); fix or remove it.`);
    }
    return { state: parsed as TowerState, stat };
  }
}
export const ITowerStateStore = createServiceId<TowerStateStore>('TowerStateStore');

export const towerStatePath = (repoRoot: string) => nodePath.join(repoRoot, '.tower', 'comms', 'state.json');

/** Runs `run` holding `lock` (a file created with O_EXCL, broken when older than STALE_TOWER_LOCK_MS): one writer across processes. */
export async function withTowerLock<T>(fs: RuntimeFs, lock: string, run: () => Promise<T>): Promise<T> {
  await acquireLock(fs, lock);
  try {
    return await run();
  } finally {
    await fs.unlink(lock).catch(() => undefined);
  }
}

async function acquireLock(fs: RuntimeFs, lock: string): Promise<void> {
  const deadline = Date.now() + TOWER_LOCK_WAIT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      const handle = await fs.open(lock, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return;
    } catch (error) {
      if (!(isErrnoException(error) && error.code === 'EEXIST')) throw error;
    }
    const stat = await fs.stat(lock).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > STALE_TOWER_LOCK_MS) {
      await fs.unlink(lock).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new TowerError(`${lock} has been held for over ${TOWER_LOCK_WAIT_MS / 1000} s by another writer; try again (remove it if no tower agent is running).`);
    await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
  }
}
