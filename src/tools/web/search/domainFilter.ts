import type { WebSearchResult } from './searchContract';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A domain filter entry as a lower-case host name ("*.example.com" and ".example.com" mean
 * example.com, whose subdomains match anyway); undefined when it is not a host name.
 */
export function normalizeDomain(entry: string): string | undefined {
  const host = entry.trim().toLowerCase().replace(/^\*?\./, '').replace(/\.$/, '');
  return HOST_NAME.test(host) ? host : undefined;
}

/** Whether `host` is `domain` or one of its subdomains. */
export function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/**
 * The results whose URL passes the filters: on an allowed domain (when any are given) and on no
 * blocked one. A result whose URL has no host is dropped when any filter is given.
 */
export function filterByDomain(results: readonly WebSearchResult[], allowed: readonly string[], blocked: readonly string[]): WebSearchResult[] {
  if (allowed.length === 0 && blocked.length === 0) return [...results];
  return results.filter((r) => {
    const host = hostOf(r.url);
    if (host === undefined) return false;
    if (allowed.length > 0 && !allowed.some((d) => hostMatches(host, d))) return false;
    return !blocked.some((d) => hostMatches(host, d));
  });
}
