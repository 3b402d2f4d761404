import * as net from 'node:net';
import type { AppEnvironment } from '../../../services/environment/environment';
import type { NetworkConfig } from '../webConfig';

/** The proxy a request goes through, and where that choice came from (for error messages). */
export interface ProxyRoute {
  /** The proxy's URL (http: or https:), credentials included when it has them. */
  readonly proxyUrl: string;
  /** `network.proxy`, `HTTPS_PROXY`, `http_proxy`, …: what set it. */
  readonly source: string;
}

/** The proxy URL without credentials, for messages. */
export function proxyLabel(route: ProxyRoute): string {
  try {
    return new URL(route.proxyUrl).origin;
  } catch {
    return '(an invalid proxy URL)';
  }
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Loopback targets never go through a proxy (as Go's ProxyFromEnvironment does): a proxy elsewhere cannot reach them. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = net.isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return host === '::1' || /^::ffff:127\./i.test(host) || /^::ffff:7f[0-9a-f]{2}:/i.test(host);
  return false;
}

interface NoProxyEntry {
  readonly host: string;
  /** 0: any port. */
  readonly port: number;
}

/** NO_PROXY as curl and undici read it: entries split on commas and spaces, `*` for every host, a leading `.` or `*.` ignored, an optional `:port`. */
function parseNoProxy(entries: readonly string[]): { readonly all: boolean; readonly entries: readonly NoProxyEntry[] } {
  const parsed: NoProxyEntry[] = [];
  let all = false;
  for (const entry of entries.flatMap((e) => e.split(/[,\s]+/))) {
    if (entry === '') continue;
    if (entry === '*') all = true;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const host = (withPort ? withPort[1]! : entry).replace(/^\*?\./, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
    parsed.push({ host, port: withPort ? Number(withPort[2]) : 0 });
  }
  return { all, entries: parsed };
}

function bypasses(host: string, port: number, noProxy: readonly string[]): boolean {
  const { all, entries } = parseNoProxy(noProxy);
  if (all) return true;
  return entries.some((e) => (e.port === 0 || e.port === port) && (host === e.host || host.endsWith(`.${e.host}`)));
}

/** The first set variable of `names`, with its name. */
function fromEnv(env: AppEnvironment, names: readonly string[]): { readonly name: string; readonly value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/**
 * Which proxy `url` goes through, or undefined for a direct connection. `network.proxy` wins over
 * the environment (`"direct"` turns proxies off); otherwise HTTPS_PROXY serves https: URLs and
 * HTTP_PROXY http: ones (lower-case names first, as curl reads them), an https: URL falling back
 * to HTTP_PROXY. `network.noProxy`, else NO_PROXY, lists hosts that connect directly, and loopback
 * targets always do.
 */
export function proxyRouteFor(url: URL, settings: NetworkConfig, env: AppEnvironment): ProxyRoute | undefined {
  if (settings.proxy === 'direct') return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isLoopback(host)) return undefined;
  const route: ProxyRoute | undefined =
    settings.proxy !== undefined
      ? { proxyUrl: settings.proxy, source: 'network.proxy' }
      : (() => {
          const found = fromEnv(env, url.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY']);
          return found ? { proxyUrl: found.value, source: found.name } : undefined;
        })();
  if (!route) return undefined;
  const noProxy = settings.noProxy ?? [fromEnv(env, ['no_proxy', 'NO_PROXY'])?.value ?? ''];
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  return bypasses(host, port, noProxy) ? undefined : route;
}

/** Undefined when `proxyUrl` can be used, else why not (for a proxy URL from the environment, checked at request time). */
export function proxyUrlProblem(route: ProxyRoute): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(route.proxyUrl);
  } catch {
    return `The proxy in ${route.source} is not a URL: give one like http://proxy.example:3128.`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `The proxy in ${route.source} is a ${parsed.protocol.replace(/:$/, '')} URL; only http:// and https:// proxies are supported (set network.proxy to one, or "direct").`;
  }
  return undefined;
}
