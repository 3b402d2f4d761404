import { z } from 'zod';
import { defineConfigSection } from '../../../di/configSection';

/** The adapters config `webSearch.provider` can name. */
export const WEB_SEARCH_PROVIDERS = ['brave', 'tavily', 'exa', 'searxng', 'duckduckgo-html'] as const;
export type WebSearchProviderName = (typeof WEB_SEARCH_PROVIDERS)[number];
/** The providers that need an API key, each with `apiKeyEnv` and `baseUrl` in its config. */
export type KeyedProviderName = Extract<WebSearchProviderName, 'brave' | 'tavily' | 'exa'>;

export function isKeyedProvider(name: WebSearchProviderName): name is KeyedProviderName {
  return name === 'brave' || name === 'tavily' || name === 'exa';
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'give an http:// or https:// URL' });
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'give the name of an environment variable, e.g. BRAVE_API_KEY');

function keyedProvider(defaultEnv: string, defaultBaseUrl: string) {
  return z
    .strictObject({
      apiKeyEnv: envName.default(defaultEnv).describe(`The environment variable holding the API key (default ${defaultEnv}); the key itself is never written in config.`),
      baseUrl: httpUrl.default(defaultBaseUrl).describe(`The API's base URL (default ${defaultBaseUrl}), e.g. a proxy.`),
    })
    .prefault({});
}

export const WebSearchConfigSchema = z
  .strictObject({
    provider: z
      .enum(WEB_SEARCH_PROVIDERS)
      .optional()
      .describe('The search engine WebSearch uses. Unset: WebSearch is inactive. "duckduckgo-html" scrapes a web page and is best effort (often rate-limited).'),
    timeoutS: z.number().int().min(1).max(120).default(15).describe('Seconds a search may take (headers, then again for the body).'),
    brave: keyedProvider('BRAVE_API_KEY', 'https://api.search.brave.com').describe('Brave Search API (X-Subscription-Token).'),
    tavily: keyedProvider('TAVILY_API_KEY', 'https://api.tavily.com').describe('Tavily search API (Authorization: Bearer).'),
    exa: keyedProvider('EXA_API_KEY', 'https://api.exa.ai').describe('Exa search API (x-api-key).'),
    searxng: z
      .strictObject({
        baseUrl: httpUrl.optional().describe('The SearXNG instance, e.g. http://localhost:8080; its settings.yml must list json in search.formats.'),
      })
      .prefault({})
      .describe('A SearXNG instance (no key; the keyless choice to prefer).'),
    'duckduckgo-html': z
      .strictObject({ baseUrl: httpUrl.default('https://html.duckduckgo.com').describe('The DuckDuckGo HTML endpoint.') })
      .prefault({})
      .describe('DuckDuckGo\'s HTML page, scraped: best effort, opt-in only.'),
  })
  .refine((c) => c.provider !== 'searxng' || c.searxng.baseUrl !== undefined, {
    message: 'webSearch.provider is "searxng" but webSearch.searxng.baseUrl is not set: give the instance\'s URL, e.g. "http://localhost:8080".',
    path: ['searxng', 'baseUrl'],
  });

export const webSearchConfig = defineConfigSection('webSearch', WebSearchConfigSchema.prefault({}));
export type WebSearchConfig = z.output<typeof WebSearchConfigSchema>;
