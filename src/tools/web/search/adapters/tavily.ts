import { z } from 'zod';
import type { SearchAdapter } from '../searchAdapter';
import { endpoint, parseJsonBody, result } from '../searchAdapter';

// https://docs.tavily.com/documentation/api-reference/endpoint/search
const TavilyResponse = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string().optional(),
      url: z.string(),
      content: z.string().optional(),
      published_date: z.string().optional(),
    }),
  ),
});

/** Tavily: POST /search with a Bearer key; domain filters (include/exclude_domains) and time_range are native. */
export const tavilyAdapter: SearchAdapter = {
  name: 'tavily',
  capabilities: { domainFilters: true, recency: true, maxCount: 20 },
  buildRequest(query, settings) {
    const body = {
      query: query.query,
      max_results: query.count,
      search_depth: 'basic',
      ...(query.allowedDomains.length > 0 ? { include_domains: query.allowedDomains } : {}),
      ...(query.blockedDomains.length > 0 ? { exclude_domains: query.blockedDomains } : {}),
      ...(query.recency ? { time_range: query.recency } : {}),
    };
    return {
      method: 'POST',
      url: endpoint(settings.baseUrl, '/search'),
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${settings.apiKey ?? ''}` },
      body: JSON.stringify(body),
    };
  },
  parseResponse(response) {
    return parseJsonBody('tavily', response, TavilyResponse).results.map((r) => result({ title: r.title, url: r.url, snippet: r.content, date: r.published_date }));
  },
  authProblem: (status) => `tavily rejected the API key (${status}). Check the key in the variable webSearch.tavily.apiKeyEnv names (default TAVILY_API_KEY).`,
};
