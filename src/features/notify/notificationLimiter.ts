import { inject, injectable } from 'inversify';
import { formatDuration } from '../../base/strings';
import { createServiceId } from '../../di/serviceId';
import { IClock } from '../../services/clock/clock';
import { IConfigService } from '../../services/config/config';
import { notifyConfig } from './notify';

/** What identifies a notification for de-duplication. */
export interface NotificationIdentity {
  readonly title: string;
  readonly body: string;
  readonly dedupeKey?: string;
}

/** `send`: the notification is counted now; `withdraw()` un-counts it when the host then fails to deliver it. */
export type NotificationVerdict = { readonly send: true; withdraw(): void } | { readonly send: false; readonly reason: string };

const MINUTE_MS = 60_000;

/**
 * The limits of NotifyUser (App scope, shared by every agent of the App): de-duplication App-wide
 * (several agents finishing the same thing notify once) and a per-agent rate per minute. `admit`
 * decides and counts in one step, so calls running side by side cannot both slip through.
 */
export interface INotificationLimiter {
  admit(agentId: string, notification: NotificationIdentity): NotificationVerdict;
}
export const INotificationLimiter = createServiceId<INotificationLimiter>('NotificationLimiter');

interface Sent {
  readonly at: number;
  readonly agentId: string;
  readonly identity: NotificationIdentity;
}

function ago(ms: number): string {
  return `${formatDuration(Math.max(1000, Math.round(ms / 1000) * 1000))} ago`;
}

@injectable()
export class NotificationLimiter implements INotificationLimiter {
  // In send order; entries older than both windows are dropped on each call.
  private sent: Sent[] = [];

  constructor(
    @inject(IClock) private readonly clock: IClock,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {}

  admit(agentId: string, notification: NotificationIdentity): NotificationVerdict {
    const now = this.clock.now();
    const { dedupeSeconds, perMinute } = this.config.section(notifyConfig);
    const dedupeMs = dedupeSeconds * 1000;
    this.sent = this.sent.filter((s) => now - s.at < Math.max(dedupeMs, MINUTE_MS));
    const key = notification.dedupeKey;
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const earlier = this.sent[i]!;
      if (now - earlier.at >= dedupeMs) break;
      if (key !== undefined && earlier.identity.dedupeKey === key) return { send: false, reason: `same notification ${ago(now - earlier.at)}; dedupe_key ${key}` };
      if (earlier.identity.title === notification.title && earlier.identity.body === notification.body) {
        return { send: false, reason: `same title and body ${ago(now - earlier.at)}` };
      }
    }
    const recent = this.sent.filter((s) => s.agentId === agentId && now - s.at < MINUTE_MS);
    if (recent.length >= perMinute) {
      const nextIn = recent[recent.length - perMinute]!.at + MINUTE_MS - now;
      return { send: false, reason: `${recent.length} notifications in the last minute (notify.perMinute ${perMinute}); the next can go in ${formatDuration(Math.max(1000, Math.ceil(nextIn / 1000) * 1000))}` };
    }
    const entry: Sent = { at: now, agentId, identity: notification };
    this.sent.push(entry);
    return { send: true, withdraw: () => (this.sent = this.sent.filter((s) => s !== entry)) };
  }
}
