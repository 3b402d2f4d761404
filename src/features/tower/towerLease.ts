import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import type { Stats } from 'node:fs';
import { isErrnoException } from '../../base/errors';
import { TargetChangedError, writeFileAtomic } from '../../base/fs/atomicWrite';
import type { RuntimeFs } from '../../base/fs/runtimeFs';
import type { IDisposable } from '../../base/lifecycle';
import type { IClock } from '../../services/clock/clock';
import { TowerError } from './contract';
import { withTowerLock } from './towerStateStore';

/** How often the owning session renews its lease. */
export const TOWER_LEASE_HEARTBEAT_MS = 10_000;
/** A lease not renewed for this long is from a session that is gone: another may take it over. */
export const TOWER_LEASE_STALE_MS = 30_000;
const MAX_LEASE_ATTEMPTS = 10;

/** `.tower/comms/owner.lease`: which session coordinates the workspace, renewed while it lives. */
export interface TowerLeaseRecord {
  /** The main agent's id. */
  readonly agentId: string;
  /** One per session (AgentTowerService): two Apps, or two agents of one App, never share it. */
  readonly instance: string;
  readonly pid: number;
  readonly host: string;
  readonly acquiredAt: number;
  readonly heartbeatAt: number;
}

export const towerLeasePath = (comms: string) => nodePath.join(comms, 'owner.lease');

/** Leases held by sessions of this process: a lease of this process is live exactly while it is listed (no heartbeat needed to tell). */
const liveInProcess = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, owned by someone else.
    return isErrnoException(error) && error.code === 'EPERM';
  }
}

/**
 * Whether the session that wrote `lease` is still alive: in this process, while it holds it; on
 * this host, while its process runs and the heartbeat is fresh; elsewhere, while the heartbeat is.
 */
export function leaseIsLive(lease: TowerLeaseRecord, now: number): boolean {
  if (lease.host === os.hostname() && lease.pid === process.pid) return liveInProcess.has(lease.instance);
  if (now - lease.heartbeatAt > TOWER_LEASE_STALE_MS) return false;
  return lease.host !== os.hostname() || pidAlive(lease.pid);
}

export function describeLease(lease: TowerLeaseRecord, now: number): string {
  const age = Math.max(0, Math.round((now - lease.heartbeatAt) / 1000));
  return `agent ${lease.agentId}, pid ${lease.pid} on ${lease.host}, heartbeat ${age} s ago`;
}

/**
 * The coordinator's lease of one tower workspace: taken by TowerInit, renewed every
 * TOWER_LEASE_HEARTBEAT_MS through the agent's runtime fs, given back by TowerTeardown and when
 * the agent ends. A lease that is not live (its session ended, its process died, or it stopped
 * renewing) is taken over with compare-and-set on the file, so two sessions never both win.
 */
export class TowerLease {
  readonly instance = randomUUID();
  private held: { readonly file: string; readonly fs: RuntimeFs; timer?: IDisposable } | undefined;

  constructor(
    private readonly agentId: string,
    private readonly clock: IClock,
  ) {}

  get isHeld(): boolean {
    return this.held !== undefined;
  }

  /** The live lease of another session, if there is one. */
  async liveOther(fs: RuntimeFs, file: string): Promise<TowerLeaseRecord | undefined> {
    const current = (await readLease(fs, file))?.lease;
    return current && current.instance !== this.instance && leaseIsLive(current, this.clock.now()) ? current : undefined;
  }

  /** Takes the lease (or renews it when held); throws TowerError naming the live session that holds it. */
  acquire(fs: RuntimeFs, file: string): Promise<{ readonly tookOver?: TowerLeaseRecord }> {
    // Under a lock, so that two sessions taking over one stale lease cannot both pass the check.
    return withTowerLock(fs, `${file}.lock`, () => this.acquireLocked(fs, file));
  }

  private async acquireLocked(fs: RuntimeFs, file: string): Promise<{ readonly tookOver?: TowerLeaseRecord }> {
    for (let attempt = 1; attempt <= MAX_LEASE_ATTEMPTS; attempt++) {
      const found = await readLease(fs, file);
      const now = this.clock.now();
      if (found?.lease && found.lease.instance !== this.instance && leaseIsLive(found.lease, now)) {
        throw new TowerError(`tower workspace is owned by a live session (${describeLease(found.lease, now)}); run Tower tools from that session, or let it run TowerTeardown first.`);
      }
      const acquiredAt = found?.lease?.instance === this.instance ? found.lease.acquiredAt : now;
      const mine: TowerLeaseRecord = { agentId: this.agentId, instance: this.instance, pid: process.pid, host: os.hostname(), acquiredAt, heartbeatAt: now };
      try {
        await writeFileAtomic(fs, file, (sink) => sink.write(`${JSON.stringify(mine, null, 2)}\n`), { expectedTarget: found?.stat ?? null });
      } catch (error) {
        if (error instanceof TargetChangedError) continue;
        throw error;
      }
      liveInProcess.add(this.instance);
      this.hold(fs, file);
      const previous = found?.lease;
      return previous && previous.instance !== this.instance ? { tookOver: previous } : {};
    }
    throw new TowerError(`${file} kept changing while TowerInit tried to take it; try again.`);
  }

  /** Gives the lease back (removes the file if it is still this session's). */
  async release(): Promise<void> {
    const held = this.held;
    this.stopHolding();
    if (!held) return;
    const found = await readLease(held.fs, held.file).catch(() => undefined);
    if (found?.lease?.instance === this.instance) await held.fs.unlink(held.file).catch(() => undefined);
  }

  /** At once, for an agent that ends: this process stops counting the lease as live before the file is gone. */
  dispose(): void {
    void this.release();
  }

  private hold(fs: RuntimeFs, file: string): void {
    this.held?.timer?.dispose();
    const held: { readonly file: string; readonly fs: RuntimeFs; timer?: IDisposable } = { file, fs };
    this.held = held;
    const beat = () => {
      if (this.held !== held) return;
      void this.renew(held).then((kept) => {
        if (kept && this.held === held) held.timer = this.clock.setTimer(TOWER_LEASE_HEARTBEAT_MS, beat);
      });
    };
    held.timer = this.clock.setTimer(TOWER_LEASE_HEARTBEAT_MS, beat);
  }

  /** One heartbeat; false when the lease is no longer this session's (taken over as stale) or cannot be written. */
  private async renew(held: { readonly file: string; readonly fs: RuntimeFs }): Promise<boolean> {
    try {
      const found = await readLease(held.fs, held.file);
      if (found?.lease?.instance !== this.instance) {
        this.stopHolding();
        return false;
      }
      const renewed: TowerLeaseRecord = { ...found.lease, heartbeatAt: this.clock.now() };
      await writeFileAtomic(held.fs, held.file, (sink) => sink.write(`${JSON.stringify(renewed, null, 2)}\n`), { expectedTarget: found.stat });
      return true;
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ENOENT') {
        // The comms folder is gone: there is nothing left to hold.
        this.stopHolding();
        return false;
      }
      // Changed under us, or a passing failure: the next beat tries again.
      return true;
    }
  }

  private stopHolding(): void {
    this.held?.timer?.dispose();
    this.held = undefined;
    liveInProcess.delete(this.instance);
  }
}

async function readLease(fs: RuntimeFs, file: string): Promise<{ readonly lease?: TowerLeaseRecord; readonly stat: Stats } | undefined> {
  let stat: Stats;
  let text: string;
  try {
    stat = await fs.stat(file);
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<TowerLeaseRecord>;
    if (typeof parsed.instance === 'string' && typeof parsed.pid === 'number' && typeof parsed.heartbeatAt === 'number' && typeof parsed.host === 'string') {
      return { lease: parsed as TowerLeaseRecord, stat };
    }
  } catch {
    // A torn or foreign file is no lease: it is taken over.
  }
  return { stat };
}
