import type { SearchAdapter } from '../searchAdapter';
import { badResponse, endpoint, result } from '../searchAdapter';
import type { SearchRecency, WebSearchResult } from '../searchContract';
import { WebSearchError } from '../searchContract';

const DF: Readonly<Record<SearchRecency, string>> = { day: 'd', week: 'w', month: 'm', year: 'y' };

/** Opt-in and best effort: the page is scraped, and DuckDuckGo blocks automated clients (HTTP 202 "anomaly"). */
export const duckduckgoHtmlAdapter: SearchAdapter = {
  name: 'duckduckgo-html',
  capabilities: { domainFilters: false, recency: true, maxCount: 20 },
  buildRequest(query, settings) {
    const form = new URLSearchParams({ q: query.query, b: '' });
    if (query.recency) form.set('df', DF[query.recency]);
    return {
      method: 'POST',
      url: endpoint(settings.baseUrl, '/html/'),
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    };
  },
  parseResponse(response) {
    const html = response.body.toString('utf8');
    // The challenge page comes as 202, and sometimes as 200 with the same markup.
    if (response.status === 202 || /anomaly-modal|\/anomaly\.js/.test(html)) throw rateLimitedByAnomaly(response.status);
    return parseResultsPage(html);
  },
  authProblem: (status) => `duckduckgo-html refused the request (${status}). Configure a provider with a key, or a SearXNG URL (webSearch.provider).`,
};

function rateLimitedByAnomaly(status: number): WebSearchError {
  return new WebSearchError(
    'rate_limited',
    `Web search is rate-limited by duckduckgo-html (HTTP ${status} "anomaly"); configure a provider with a key or a SearXNG URL (webSearch.provider).`,
    'duckduckgo-html',
    status,
  );
}

const TAG = /<(\/?)([a-z][a-z0-9]*)\b([^>]*)>/gi;

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attributes);
  return match ? decodeEntities(match[1] ?? match[2] ?? match[3] ?? '') : undefined;
}

function hasClass(attributes: string, name: string): boolean {
  return (attribute(attributes, 'class') ?? '').split(/\s+/).includes(name);
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function textOf(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ''));
}

/** The inner HTML of the first `tag` element with class `name` in `html` (no nesting of the same tag inside). */
function elementWithClass(html: string, name: string): { readonly attributes: string; readonly inner: string } | undefined {
  for (const match of html.matchAll(TAG)) {
    if (match[1] === '/' || !hasClass(match[3]!, name)) continue;
    const from = match.index + match[0].length;
    const close = html.toLowerCase().indexOf(`</${match[2]!.toLowerCase()}`, from);
    return { attributes: match[3]!, inner: html.slice(from, close < 0 ? undefined : close) };
  }
  return undefined;
}

/**
 * The organic results of html.duckduckgo.com (ads left out), links unwrapped from the /l/?uddg=
 * redirect. Read with patterns rather than a DOM: the page is regular, and this is best effort.
 */
export function parseResultsPage(html: string): WebSearchResult[] {
  // Each result starts at a <div> whose classes include "result"; it runs to the next one.
  const starts: { readonly at: number; readonly ad: boolean }[] = [];
  for (const match of html.matchAll(TAG)) {
    if (match[1] === '' && match[2]!.toLowerCase() === 'div' && hasClass(match[3]!, 'result')) starts.push({ at: match.index, ad: hasClass(match[3]!, 'result--ad') });
  }
  const results: WebSearchResult[] = [];
  starts.forEach((start, i) => {
    if (start.ad) return;
    const block = html.slice(start.at, starts[i + 1]?.at);
    const link = elementWithClass(block, 'result__a');
    const href = link ? attribute(link.attributes, 'href') : undefined;
    const url = href !== undefined ? unwrapRedirect(href) : undefined;
    if (!link || url === undefined) return;
    const snippet = elementWithClass(block, 'result__snippet');
    const site = elementWithClass(block, 'result__url');
    results.push(result({ title: textOf(link.inner), url, snippet: snippet && textOf(snippet.inner), site: site && textOf(site.inner) }));
  });
  if (results.length === 0 && starts.length === 0 && !/class\s*=\s*["'][^"']*\bno-results\b/i.test(html)) {
    throw badResponse('duckduckgo-html', 'the page has neither results nor a "no results" notice');
  }
  return results;
}

function unwrapRedirect(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com');
  } catch {
    return undefined;
  }
  const target = url.pathname === '/l/' ? url.searchParams.get('uddg') : url.href;
  if (!target || !/^https?:\/\//i.test(target)) return undefined;
  return target;
}
