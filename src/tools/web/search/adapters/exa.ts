import { z } from 'zod';
import type { SearchAdapter } from '../searchAdapter';
import { RECENCY_DAYS, endpoint, parseJsonBody, result } from '../searchAdapter';

// https://docs.exa.ai/reference/search
const ExaResponse = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string().nullish(),
      url: z.string(),
      publishedDate: z.string().nullish(),
      author: z.string().nullish(),
      text: z.string().nullish(),
      highlights: z.array(z.string()).nullish(),
    }),
  ),
});

const SNIPPET_CHARS = 400;
const DAY_MS = 86_400_000;

/** Exa: POST /search with x-api-key; include/excludeDomains and startPublishedDate are native. */
export const exaAdapter: SearchAdapter = {
  name: 'exa',
  capabilities: { domainFilters: true, recency: true, maxCount: 20 },
  buildRequest(query, settings) {
    const body = {
      query: query.query,
      type: 'auto',
      numResults: query.count,
      ...(query.allowedDomains.length > 0 ? { includeDomains: query.allowedDomains } : {}),
      ...(query.blockedDomains.length > 0 ? { excludeDomains: query.blockedDomains } : {}),
      ...(query.recency ? { startPublishedDate: new Date(Date.now() - RECENCY_DAYS[query.recency] * DAY_MS).toISOString() } : {}),
      // Without contents Exa returns titles and URLs only.
      contents: { text: { maxCharacters: SNIPPET_CHARS } },
    };
    return {
      method: 'POST',
      url: endpoint(settings.baseUrl, '/search'),
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': settings.apiKey ?? '' },
      body: JSON.stringify(body),
    };
  },
  parseResponse(response) {
    return parseJsonBody('exa', response, ExaResponse).results.map((r) =>
      result({ title: r.title, url: r.url, snippet: r.highlights?.join(' … ') || r.text, date: r.publishedDate, site: r.author }),
    );
  },
  authProblem: (status) => `exa rejected the API key (${status}). Check the key in the variable webSearch.exa.apiKeyEnv names (default EXA_API_KEY).`,
};
