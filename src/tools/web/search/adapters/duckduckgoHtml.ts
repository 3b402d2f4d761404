import type { SearchAdapter } from '../searchAdapter';
import { badResponse, endpoint, result } from '../searchAdapter';
import type { SearchRecency, WebSearchResult } from '../searchContract';
import { WebSearchError } from '../searchContract';

const DF: Readonly<Record<SearchRecency, string>> = { day: 'd', week: 'w', month: 'm', year: 'y' };

/** Opt-in and best effort: the page is scraped, and DuckDuckGo blocks automated clients (HTTP 202 "anomaly"). */
export const duckduckgoHtmlAdapter: SearchAdapter = {
  name: 'duckduckgo-html',
  keyed: false,
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

/** The organic results of html.duckduckgo.com (ads left out); links unwrapped from the /l/?uddg= redirect. */
export function parseResultsPage(html: string): WebSearchResult[] {
  // Loaded on first use: the CLI should not parse linkedom at start-up.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseHTML } = require('linkedom') as typeof import('linkedom');
  const { document } = parseHTML(html);
  const results: WebSearchResult[] = [];
  for (const node of document.querySelectorAll('.result')) {
    if (node.classList.contains('result--ad')) continue;
    const link = node.querySelector('a.result__a');
    const href = link?.getAttribute('href');
    if (!link || !href) continue;
    const url = unwrapRedirect(href);
    if (url === undefined) continue;
    results.push(
      result({
        title: link.textContent,
        url,
        snippet: node.querySelector('.result__snippet')?.textContent,
        site: node.querySelector('.result__url')?.textContent,
      }),
    );
  }
  if (results.length === 0 && document.querySelector('.result__a, .no-results, #links') === null) {
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
