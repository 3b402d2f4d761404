import type { z } from 'zod';
import type { HttpMethod, HttpResponse } from '../contract';
import type { WebSearchProviderName } from './searchConfig';
import type { SearchRecency, WebSearchCapabilities, WebSearchQuery, WebSearchResult } from './searchContract';
import { WebSearchError } from './searchContract';

/** Where an adapter sends its request, resolved from config and the environment. */
export interface SearchAdapterSettings {
  readonly baseUrl: string;
  /** Present for the keyed providers (the value of their apiKeyEnv variable). */
  readonly apiKey?: string;
}

/** One HTTP request, as the adapter builds it. */
export interface SearchHttpRequest {
  readonly method: HttpMethod;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A query as the adapter sends it: the count already capped to what it may ask for. */
export type AdapterQuery = Omit<WebSearchQuery, 'signal'>;

/**
 * One search API: how to ask and how to read the answer. HttpSearchProvider does the rest (the
 * request through IHttpClient, timeouts, errors from status codes), the same for every adapter.
 */
export interface SearchAdapter {
  readonly name: WebSearchProviderName;
  readonly capabilities: WebSearchCapabilities;
  buildRequest(query: AdapterQuery, settings: SearchAdapterSettings): SearchHttpRequest;
  /** The results of a 2xx response; throws WebSearchError (bad_response, rate_limited) when it holds none. */
  parseResponse(response: HttpResponse): WebSearchResult[];
  /** What a 401/403 means for this provider, and what to do. */
  authProblem(status: number): string;
}

/** The base URL with `path` appended (a base with a path prefix keeps it). */
export function endpoint(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path.replace(/^\//, ''), base);
}

/** The body as JSON checked against `schema`; a WebSearchError (bad_response) otherwise. */
export function parseJsonBody<S extends z.ZodType>(provider: string, response: HttpResponse, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw badResponse(provider, `the body is not JSON (content-type ${response.headers['content-type'] ?? 'none'})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badResponse(provider, `${issue?.path.join('.') || 'the body'}: ${issue?.message ?? 'unexpected shape'}`);
  }
  return parsed.data;
}

export function badResponse(provider: string, detail: string): WebSearchError {
  return new WebSearchError('bad_response', `Web search failed: ${provider} answered with something other than its documented response (${detail}). Try again, or configure another webSearch.provider.`, provider);
}

/** A short text: whitespace collapsed, at most `max` characters. */
export function clean(text: string | undefined | null, max = 400): string {
  const collapsed = (text ?? '').replace(/\s+/g, ' ').trim();
  return collapsed.length > max ? `${collapsed.slice(0, max - 1)}…` : collapsed;
}

/** A result with its texts cleaned and empty optional fields left out; no title falls back to the URL. */
export function result(fields: { title?: string | null; url: string; snippet?: string | null; date?: string | null; site?: string | null }): WebSearchResult {
  const date = clean(fields.date, 60);
  const site = clean(fields.site, 100);
  return {
    title: clean(fields.title, 200) || fields.url,
    url: fields.url,
    snippet: clean(fields.snippet),
    ...(date ? { date } : {}),
    ...(site ? { site } : {}),
  };
}

/** Days in each recency window, for providers that take a start date. */
export const RECENCY_DAYS: Readonly<Record<SearchRecency, number>> = { day: 1, week: 7, month: 31, year: 366 };
