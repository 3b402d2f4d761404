import { z } from 'zod';
import type { SearchAdapter } from '../searchAdapter';
import { endpoint, parseJsonBody, result } from '../searchAdapter';

// https://docs.searxng.org/dev/search_api.html
const SearxngResponse = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string().nullish(),
      url: z.string(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
      engine: z.string().nullish(),
    }),
  ),
});

/** SearXNG: GET /search?format=json, no key; time_range is native, domain filters and a count are not. */
export const searxngAdapter: SearchAdapter = {
  name: 'searxng',
  // One page is about 20 results; the count is applied to what comes back.
  capabilities: { domainFilters: false, recency: true, maxCount: 20 },
  buildRequest(query, settings) {
    const url = endpoint(settings.baseUrl, '/search');
    url.searchParams.set('q', query.query);
    url.searchParams.set('format', 'json');
    url.searchParams.set('pageno', '1');
    if (query.recency) url.searchParams.set('time_range', query.recency);
    return { method: 'GET', url, headers: { accept: 'application/json' } };
  },
  parseResponse(response) {
    return parseJsonBody('searxng', response, SearxngResponse).results.map((r) => result({ title: r.title, url: r.url, snippet: r.content, date: r.publishedDate }));
  },
  // SearXNG answers 403 when the JSON format is not enabled; it has no keys.
  authProblem: (status) => `searxng refused the JSON API (${status}). List json in search.formats of the instance's settings.yml, or check webSearch.searxng.baseUrl.`,
};
