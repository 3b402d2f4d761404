import { HttpError, type HttpResponse, type IHttpClient } from '../contract';
import type { SearchAdapter, SearchAdapterSettings } from './searchAdapter';
import { type IWebSearchProvider, type WebSearchCapabilities, WebSearchError, type WebSearchQuery, type WebSearchResponse } from './searchContract';
import { nodeBuiltins } from '../../../base/nodeBuiltins';

/** A search answer larger than this is refused while it streams (a page of results is well under 1 MB). */
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

const TIMEOUT_CODES: ReadonlySet<HttpError['code']> = new Set(['connect_timeout', 'headers_timeout', 'body_timeout', 'idle_timeout']);

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Retry-After as seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The first line of an error body, for a 4xx the provider explains. */
function bodyExcerpt(response: HttpResponse): string {
  const text = response.body.toString('utf8').replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * An adapter made into an IWebSearchProvider: the adapter's request through IHttpClient with the
 * configured timeout, and the failure typed from the HTTP status or the transport error.
 */
export class HttpSearchProvider implements IWebSearchProvider {
  readonly name: string;
  readonly capabilities: WebSearchCapabilities;

  constructor(
    private readonly adapter: SearchAdapter,
    private readonly settings: SearchAdapterSettings,
    private readonly http: IHttpClient,
    private readonly timeoutMs: number,
  ) {
    this.name = adapter.name;
    this.capabilities = adapter.capabilities;
  }

  async search(query: WebSearchQuery): Promise<WebSearchResponse> {
    const { signal, ...rest } = query;
    const request = this.adapter.buildRequest({ ...rest, count: Math.min(query.count, this.capabilities.maxCount) }, this.settings);
    let response: HttpResponse;
    try {
      response = await this.http.request({
        url: request.url,
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal,
        timeouts: { headersMs: this.timeoutMs, bodyMs: this.timeoutMs },
        maxBytes: MAX_RESPONSE_BYTES,
        // The provider's host is the one the user configured: a SearXNG on localhost needs no network.allowPrivate.
        allowPrivateOrigin: this.settings.baseUrl,
      });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      throw this.transportError(error);
    }
    const problem = this.statusError(response);
    if (problem) throw problem;
    return { provider: this.name, results: this.adapter.parseResponse(response) };
  }

  private transportError(error: HttpError): WebSearchError {
    if (TIMEOUT_CODES.has(error.code)) {
      // A connect timeout is the network config's; the others are this search's own.
      const message =
        error.code === 'connect_timeout'
          ? `Web search timed out connecting to ${this.name} (network.connectTimeoutS). Try again later.`
          : `Web search timed out after ${seconds(this.timeoutMs)} (${this.name}). Try again, or raise webSearch.timeoutS.`;
      return new WebSearchError('timeout', message, this.name);
    }
    return new WebSearchError('unreachable', `Web search failed: ${this.name} could not be reached: ${error.message}`, this.name);
  }

  private statusError(response: HttpResponse): WebSearchError | undefined {
    const { status } = response;
    if (status >= 200 && status < 300) return undefined;
    const statusText = response.statusText || nodeBuiltins.http().STATUS_CODES[status];
    const label = statusText ? `${status} ${statusText}` : String(status);
    if (status === 401 || status === 403) return new WebSearchError('auth', `Web search failed: ${this.adapter.authProblem(status)}`, this.name, status);
    if (status === 429) {
      const retryAfterS = retryAfterSeconds(response.headers['retry-after']);
      const when = retryAfterS !== undefined ? `retry after ${retryAfterS} s` : 'wait a while before searching again';
      return new WebSearchError('rate_limited', `Web search is rate-limited by ${this.name} (429); ${when}, or check the plan's quota.`, this.name, status, retryAfterS);
    }
    if (status >= 500) {
      return new WebSearchError('server', `Web search failed: ${this.name} had a server error (${label}). Try again later, or configure another webSearch.provider.`, this.name, status);
    }
    const excerpt = bodyExcerpt(response);
    return new WebSearchError(
      'rejected',
      `Web search failed: ${this.name} refused the request (${label})${excerpt ? `: ${excerpt}` : ''}. Rephrase the query or drop a filter.`,
      this.name,
      status,
    );
  }
}
