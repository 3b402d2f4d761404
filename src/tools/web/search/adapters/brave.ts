import { z } from 'zod';
import type { SearchAdapter } from '../searchAdapter';
import { endpoint, parseJsonBody, result } from '../searchAdapter';
import type { SearchRecency } from '../searchContract';

// https://api-dashboard.search.brave.com/app/documentation/web-search/get-started
const FRESHNESS: Readonly<Record<SearchRecency, string>> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' };

const BraveResponse = z.looseObject({
  web: z
    .looseObject({
      results: z.array(
        z.looseObject({
          title: z.string().optional(),
          url: z.string(),
          description: z.string().optional(),
          age: z.string().optional(),
          page_age: z.string().optional(),
          profile: z.looseObject({ name: z.string().optional() }).optional(),
          meta_url: z.looseObject({ hostname: z.string().optional() }).optional(),
        }),
      ),
    })
    .optional(),
});

/** Brave Search: GET /res/v1/web/search with X-Subscription-Token; freshness is native, domain filters are not. */
export const braveAdapter: SearchAdapter = {
  name: 'brave',
  capabilities: { domainFilters: false, recency: true, maxCount: 20 },
  buildRequest(query, settings) {
    const url = endpoint(settings.baseUrl, '/res/v1/web/search');
    url.searchParams.set('q', query.query);
    url.searchParams.set('count', String(query.count));
    if (query.recency) url.searchParams.set('freshness', FRESHNESS[query.recency]);
    return { method: 'GET', url, headers: { accept: 'application/json', 'x-subscription-token': settings.apiKey ?? '' } };
  },
  parseResponse(response) {
    const body = parseJsonBody('brave', response, BraveResponse);
    // A query with no web results has no "web" object at all.
    return (body.web?.results ?? []).map((r) =>
      result({ title: r.title, url: r.url, snippet: stripTags(r.description), date: r.page_age ?? r.age, site: r.profile?.name ?? r.meta_url?.hostname }),
    );
  },
  authProblem: (status) => `brave rejected the API key (${status}). Check the key in the variable webSearch.brave.apiKeyEnv names (default BRAVE_API_KEY).`,
};

/** Brave marks the matched words with <strong>. */
function stripTags(text: string | undefined): string | undefined {
  return text?.replace(/<\/?strong>/g, '');
}
