import type * as http from 'node:http';
import { Feature } from '../../../../src/di/feature';
import { IWebSearchProvider, type WebSearchQuery, type WebSearchResponse, type WebSearchCapabilities } from '../../../../src/tools/web/search/searchContract';
import { createWebSearchFeature } from '../../../../src/tools/web/search/webSearchFeature';
import { createWebToolsFeature } from '../../../../src/tools/web/webFeature';
import type { LocalServer } from '../webFixtures';

/** One request a provider's endpoint got, body included. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface Answer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Answers `path` on the server with `answer` (JSON when given an object) and records each request. */
export function recordRoute(server: LocalServer, path: string, answer: Answer | (() => Answer)): RecordedRequest[] {
  const log: RecordedRequest[] = [];
  server.route(path, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://x');
      log.push({ method: request.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const a = typeof answer === 'function' ? answer() : answer;
      response.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers }).end(a.body);
    });
  });
  return log;
}

export const json = (value: unknown, status = 200, headers: Record<string, string> = {}): Answer => ({ status, headers, body: JSON.stringify(value) });

/** The features WebSearch needs: the web ports and the search feature. */
export function searchFeatures(): Feature[] {
  return [createWebToolsFeature(), createWebSearchFeature()];
}

/** A provider bound by the test (the host's own search), answering with what `answer` returns. */
export class FakeSearchProvider implements IWebSearchProvider {
  readonly queries: Omit<WebSearchQuery, 'signal'>[] = [];
  constructor(
    private readonly answer: (query: WebSearchQuery) => WebSearchResponse | Promise<WebSearchResponse>,
    readonly capabilities: WebSearchCapabilities = { domainFilters: true, recency: true, maxCount: 20 },
    readonly name = 'fake',
  ) {}

  async search(query: WebSearchQuery): Promise<WebSearchResponse> {
    const { signal: _signal, ...rest } = query;
    this.queries.push(rest);
    return this.answer(query);
  }
}

/** A feature that binds `provider` as the App's IWebSearchProvider. */
export function hostProviderFeature(provider: IWebSearchProvider): Feature {
  return new Feature('host-search').bindApp(({ bind }) => bind(IWebSearchProvider).toConstantValue(provider));
}
