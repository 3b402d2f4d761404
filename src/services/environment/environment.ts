import { createServiceId } from '../../di/serviceId';

/** Environment variables the App reads (feature flags); `createApp({env})`, default process.env. */
export type AppEnvironment = Readonly<Record<string, string | undefined>>;
export const IAppEnvironment = createServiceId<AppEnvironment>('AppEnvironment');

/** `1`, `true`, `yes` and `on` (any case) turn a flag on. */
export function isFlagOn(env: AppEnvironment, name: string): boolean {
  return /^(1|true|yes|on)$/i.test(env[name]?.trim() ?? '');
}

export const TOOL_SELECT_FLAG = 'TOOLHOST_EXPERIMENTAL_TOOL_SELECT';
