import { createServiceId } from '../../../di/serviceId';

/** How far back results may date: the last day, week, month or year. */
export type SearchRecency = 'day' | 'week' | 'month' | 'year';

export interface WebSearchQuery {
  readonly query: string;
  /** How many results to return (the provider may return fewer). */
  readonly count: number;
  /** Host names whose pages (subdomains included) are the only ones wanted; empty: any. */
  readonly allowedDomains: readonly string[];
  /** Host names whose pages (subdomains included) are not wanted. */
  readonly blockedDomains: readonly string[];
  readonly recency?: SearchRecency;
  readonly signal: AbortSignal;
}

export interface WebSearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
  /** As the provider gave it (an ISO date, or Brave's "2 days ago"). */
  readonly date?: string;
  /** The site's name or host. */
  readonly site?: string;
}

export interface WebSearchResponse {
  /** The provider that answered (`brave`, `searxng`, …), shown to the model. */
  readonly provider: string;
  readonly results: readonly WebSearchResult[];
}

/** Which filters the provider applies itself; the tool applies the others to the URLs it gets back. */
export interface WebSearchCapabilities {
  readonly domainFilters: boolean;
  readonly recency: boolean;
  /** The most results one request may ask for. */
  readonly maxCount: number;
}

/**
 * A search engine for WebSearch. The adapters (brave, tavily, exa, searxng, duckduckgo-html) are
 * chosen by config `webSearch.provider`; a host may bind its own, which then wins over config.
 */
export interface IWebSearchProvider {
  readonly name: string;
  readonly capabilities: WebSearchCapabilities;
  /** Rejects with WebSearchError; with the signal's reason on abort. */
  search(query: WebSearchQuery): Promise<WebSearchResponse>;
}
export const IWebSearchProvider = createServiceId<IWebSearchProvider>('WebSearchProvider');

/**
 * What went wrong, from the HTTP status or the transport (never from matching message text):
 * `auth` 401/403, `rate_limited` 429 (or DuckDuckGo's anomaly page), `server` 5xx, `timeout`,
 * `rejected` another 4xx, `unreachable` DNS/connect/policy, `bad_response` a body that is not the
 * documented shape.
 */
export type WebSearchErrorCode = 'auth' | 'rate_limited' | 'server' | 'timeout' | 'rejected' | 'unreachable' | 'bad_response';

export class WebSearchError extends Error {
  override readonly name = 'WebSearchError';
  constructor(
    readonly code: WebSearchErrorCode,
    /** For the model: what happened and what to do. */
    message: string,
    readonly provider: string,
    /** The HTTP status, when there was a response. */
    readonly status?: number,
    /** From a 429's Retry-After header, in seconds. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}
