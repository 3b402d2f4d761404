import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { ToolPolicy } from '../../toolPolicy/evaluate';

/** A profile by name (from config `profiles`, or `default`), or an inline policy. */
export type ProfileSelection = string | ToolPolicy;

export const DEFAULT_PROFILE_NAME = 'default';

export interface AgentProfile {
  /** The profile's name; `undefined` for an inline policy. */
  readonly name?: string;
  readonly policy: ToolPolicy;
}

/** The agent's profile (Agent scope). A named profile follows config changes. */
export interface IAgentProfileService {
  readonly profile: AgentProfile;
  /** Switches profile. Throws ProfileError for an unknown name and keeps the current one. */
  set(selection: ProfileSelection): void;
  readonly onDidChange: Event<AgentProfile>;
}
export const IAgentProfileService = createServiceId<IAgentProfileService>('AgentProfileService');

/** The profile an agent starts with (bound as a constant by the Agent scope). */
export const IInitialProfile = createServiceId<ProfileSelection | undefined>('InitialProfile');

export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}
