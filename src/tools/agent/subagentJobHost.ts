import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { errorMessage } from '../../base/errors';
import { IAgentFactory, type ScopedAgent } from '../../services/agentFactory/agentFactory';
import { IAgentSessionGrants, SessionGrants } from '../../services/approval/toolApproval';
import { IConfigService } from '../../services/config/config';
import { ISessionInteractionService, type InteractionKind, NoInteractionHostError } from '../../services/interaction/interaction';
import { agentConfig } from './agentConfig';
import { runLoggedChild } from './agentResult';
import { AgentSubagentService } from './agentSubagentService';
import type { ISubagentJobHost, SubagentJob, SubagentJobResult, SubagentLaunch, SubagentOutcome } from './contract';
import { ISubagentLineage } from './lineage';

/** Why a subagent on a worker gets no approvals: the sentence the approval denial ends with. */
export const WORKER_APPROVAL_HINT =
  'approve it "for this session" in the agent before it starts the subagent (this subagent runs on a toolhost worker, where no user can answer), or run subagents in the agent\'s process (scale.jobs.subagents "local")';

/** A worker's host: no one to ask, so a call that needs approval is denied with the reason. */
class WorkerInteractionService implements ISessionInteractionService {
  readonly unavailableHint = WORKER_APPROVAL_HINT;

  canRequest(_kind: InteractionKind): boolean {
    return false;
  }

  request(): Promise<never> {
    return Promise.reject(new NoInteractionHostError(`No user can answer on a toolhost worker: ${WORKER_APPROVAL_HINT}.`));
  }
}

/** A parent's stand-in on this worker, shared by its jobs that run at once. */
interface StandIn {
  readonly agent: ScopedAgent;
  readonly grants: SessionGrants;
  users: number;
}

/**
 * ISubagentJobHost: runs a queued child through a stand-in of its parent, an agent of this App
 * with the parent's id, workspace, depth and session grants. The child is then created, run and
 * ended by the stand-in's subagent service, exactly as the parent's own would do in process; the
 * parent's plan mode holds it through the shared state store (Redis), read at each call.
 */
@injectable()
export class SubagentJobHost implements ISubagentJobHost {
  private readonly standIns = new Map<string, StandIn>();

  constructor(
    @inject(IAgentFactory) private readonly factory: IAgentFactory,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {}

  async run(job: SubagentJob, signal: AbortSignal, log: (text: string) => void): Promise<SubagentJobResult> {
    const started = Date.now();
    let standIn: StandIn;
    try {
      standIn = this.acquire(job);
    } catch (error) {
      return { outcome: this.failed(job, started, `The worker could not set up the subagent's parent: ${errorMessage(error)}`) };
    }
    try {
      const subagents = standIn.agent.get(AgentSubagentService);
      const resolved = subagents.resolveProfile(job.profile);
      if (!resolved) {
        return { outcome: this.failed(job, started, `The worker has no subagent profile "${job.profile}" (agent.profiles): start it with the agents' toolhost.json.`) };
      }
      subagents.noteChild(job.agentId, job.profile, job.resumeFrom);
      const launch: SubagentLaunch = { agentId: job.agentId, description: job.description, prompt: job.prompt, resolved, timeoutMs: job.timeoutMs, ...(job.cwd !== undefined ? { cwd: job.cwd } : {}) };
      const outcome = job.background
        ? await runLoggedChild(subagents, launch, signal, log, { cwd: job.parent.cwd, maxResultChars: this.config.section(agentConfig).maxResultChars })
        : await subagents.run(launch, signal, { progress: (text) => log(`[${text}]\n`) });
      const conversation = subagents.conversationOf(job.agentId);
      return { outcome, ...(conversation !== undefined ? { conversation } : {}) };
    } finally {
      await this.release(job.parent.id, standIn);
    }
  }

  private acquire(job: SubagentJob): StandIn {
    const { parent } = job;
    let standIn = this.standIns.get(parent.id);
    if (!standIn) {
      const grants = new SessionGrants();
      const { depth: _depth, description: _description, ...options } = parent;
      const agent = this.factory.createAgent({
        ...options,
        overrides: (container) => {
          container.rebind(ISessionInteractionService).toConstantValue(new WorkerInteractionService());
          container.rebind(IAgentSessionGrants).toConstantValue(grants);
          container.rebind(ISubagentLineage).toConstantValue({ depth: parent.depth, ...(parent.description !== undefined ? { description: parent.description } : {}) });
        },
      });
      standIn = { agent, grants, users: 0 };
      this.standIns.set(parent.id, standIn);
    }
    standIn.users++;
    // The newest job carries the parent's grants as they are now.
    for (const rule of standIn.grants.rules) if (!job.sessionGrants.includes(rule)) standIn.grants.remove(rule);
    for (const rule of job.sessionGrants) standIn.grants.add(rule);
    return standIn;
  }

  private async release(parentId: string, standIn: StandIn): Promise<void> {
    if (--standIn.users > 0) return;
    this.standIns.delete(parentId);
    await standIn.agent.dispose();
  }

  private failed(job: SubagentJob, started: number, error: string): SubagentOutcome {
    return {
      agentId: job.agentId,
      profileName: job.profile,
      status: 'failed',
      text: '',
      durationMs: Date.now() - started,
      filesChanged: [],
      error,
      // Where the parent's subagent service keeps its children's data (dataDirOf).
      dataDir: nodePath.join(job.parent.dataDir, 'subagents', job.agentId),
    };
  }
}
