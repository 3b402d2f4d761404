import { createServiceId } from '../../di/serviceId';

/** Where an agent sits in the subagent tree (Agent scope): depth 0 for a main agent. */
export interface SubagentLineage {
  readonly depth: number;
  /** The Agent call's description, for a subagent. */
  readonly description?: string;
}
export const ISubagentLineage = createServiceId<SubagentLineage>('SubagentLineage');

export const MAIN_AGENT_LINEAGE: SubagentLineage = Object.freeze({ depth: 0 });
