import { inject, injectable, preDestroy } from 'inversify';
import type { IDisposable } from '../../../base/lifecycle';
import { IConfigService } from '../../../services/config/config';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import {
  type CurrentFileState,
  changedMessage,
  type FileSnapshot,
  type IAgentFileStateService,
  notReadMessage,
  type StaleWriteCheck,
} from '../contract';
import { readConfig, staleGuardConfig } from '../osConfig';

@injectable()
export class AgentFileStateService implements IAgentFileStateService {
  private readonly snapshots = new Map<string, FileSnapshot>();
  private readonly runtimeListener: IDisposable;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
  ) {
    // What was read through one runtime says nothing about the files of another.
    this.runtimeListener = runtime.onDidChange(() => this.clear());
  }

  get enabled(): boolean {
    return this.config.section(staleGuardConfig).enabled;
  }

  get hashMaxBytes(): number {
    return this.config.section(readConfig).lineCountMaxBytes;
  }

  record(path: string, snapshot: FileSnapshot, generation: number): void {
    if (generation !== this.runtime.generation) return;
    this.snapshots.set(path, snapshot);
  }

  get(path: string): FileSnapshot | undefined {
    return this.snapshots.get(path);
  }

  forget(path: string): void {
    this.snapshots.delete(path);
  }

  clear(): void {
    this.snapshots.clear();
  }

  async check(path: string, shown: string, current: CurrentFileState): Promise<StaleWriteCheck> {
    if (!this.enabled) return { ok: true };
    const seen = this.snapshots.get(path);
    if (!seen) return { ok: false, reason: 'not-read', message: notReadMessage(shown) };
    let same: boolean;
    if (seen.size !== current.size) same = false;
    else if (seen.sha256 !== undefined) same = (await current.sha256()) === seen.sha256;
    // Not hashed when read (a large file): the weaker check on size and both timestamps.
    else same = seen.mtimeMs === current.mtimeMs && seen.ctimeMs === current.ctimeMs;
    return same ? { ok: true } : { ok: false, reason: 'changed', message: changedMessage(shown) };
  }

  @preDestroy()
  dispose(): void {
    this.runtimeListener.dispose();
    this.snapshots.clear();
  }
}
