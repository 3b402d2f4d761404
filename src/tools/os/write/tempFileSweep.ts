import { inject, injectable, preDestroy } from 'inversify';
import { removeStaleTempFiles } from '../../../base/fs/atomicWrite';
import { createServiceId } from '../../../di/serviceId';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import { type AgentOptions, IAgentOptions, IAgentWorkspaceService } from '../../../services/workspace/workspace';

/**
 * On agent start, removes the temporary files that killed Writes and Edits left at the top level
 * of the workspace roots (see removeStaleTempFiles: only toolhost's own names, only stale ones,
 * never through a link). Write and Edit sweep the folders they write to themselves. A subagent
 * does not sweep: its roots are its parent's, swept when the parent started, or a fresh worktree.
 */
@injectable()
export class AgentTempFileSweep {
  /** Settles when the sweep begun at agent start has finished; it never rejects. */
  readonly done: Promise<void>;

  constructor(
    @inject(IAgentWorkspaceService) workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) runtime: IAgentRuntimeService,
    @inject(IAgentOptions) options: AgentOptions,
  ) {
    const fs = runtime.has('fs') && options.parentAgentId === undefined ? runtime.requireFs() : undefined;
    const roots = [...new Set([workspace.cwd, ...workspace.additionalDirs])];
    // The listings start now, while the agent is being created; the removals finish in the background.
    this.done = fs ? Promise.all(roots.map((root) => removeStaleTempFiles(fs, root))).then(() => undefined, () => undefined) : Promise.resolve();
  }

  @preDestroy()
  async dispose(): Promise<void> {
    await this.done;
  }
}

export const IAgentTempFileSweep = createServiceId<AgentTempFileSweep>('AgentTempFileSweep');
