import type { AppConfigInput } from '../../../../src/scopes/appScope';
import { useAgent } from '../../../helpers/agentHarness';
import { type LocalServer, startServer } from '../webFixtures';
import { json, recordRoute, searchFeatures } from './searchFixtures';

// Per-adapter tests: each provider's documented request and response shapes, served on 127.0.0.1.
let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const fixture = useAgent({ features: searchFeatures() });

function open(webSearch: Record<string, unknown>, env: Record<string, string> = {}) {
  const config = { network: { allowPrivate: ['127.0.0.1'] }, webSearch } as AppConfigInput;
  return fixture.open({ config, env });
}

// https://api-dashboard.search.brave.com/app/documentation/web-search/responses
const BRAVE_BODY = {
  type: 'search',
  query: { original: 'rust async book' },
  web: {
    type: 'search',
    results: [
      {
        title: 'Asynchronous Programming in Rust',
        url: 'https://rust-lang.github.io/async-book/',
        description: 'The <strong>async</strong> book explains futures.',
        age: '2 days ago',
        page_age: '2026-11-29T10:00:00',
        profile: { name: 'rust-lang.github.io' },
        meta_url: { hostname: 'rust-lang.github.io' },
      },
      { title: 'Tokio tutorial', url: 'https://tokio.rs/tokio/tutorial', description: 'Learn <strong>async</strong> Rust with Tokio.', meta_url: { hostname: 'tokio.rs' } },
      { title: 'async - Reddit', url: 'https://www.reddit.com/r/rust/async', description: 'A thread.' },
    ],
  },
};

describe('brave', () => {
  test('GET /res/v1/web/search with the key in X-Subscription-Token; results numbered inside untrusted_content, metadata.untrusted', async () => {
    const log = recordRoute(server, '/brave/res/v1/web/search', json(BRAVE_BODY));
    const harness = open({ provider: 'brave', brave: { baseUrl: `${server.origin}/brave`, apiKeyEnv: 'MY_BRAVE' } }, { MY_BRAVE: 'brv-secret' });
    const result = await harness.call('WebSearch', { query: 'rust async book', recency: 'week' });
    expect([result.outcome, result.isError]).toEqual(['executed', false]);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ method: 'GET', path: '/brave/res/v1/web/search', query: { q: 'rust async book', count: '8', freshness: 'pw' } });
    expect(log[0]!.headers).toMatchObject({ 'x-subscription-token': 'brv-secret', accept: 'application/json' });
    expect(log[0]!.headers['user-agent']).toMatch(/^toolhost\//);
    expect(result.output).toBe(
      [
        'provider: brave',
        'query: rust async book',
        'results: 3',
        '',
        '<untrusted_content source="search:brave">',
        '1. Asynchronous Programming in Rust',
        '   url: https://rust-lang.github.io/async-book/',
        '   date: 2026-11-29T10:00:00',
        '   site: rust-lang.github.io',
        '   snippet: The async book explains futures.',
        '',
        '2. Tokio tutorial',
        '   url: https://tokio.rs/tokio/tutorial',
        '   site: tokio.rs',
        '   snippet: Learn async Rust with Tokio.',
        '',
        '3. async - Reddit',
        '   url: https://www.reddit.com/r/rust/async',
        '   snippet: A thread.',
        '</untrusted_content>',
        '',
        'Cite sources as [title](url); fetch a page with FetchURL for details.',
      ].join('\n'),
    );
    expect(result.metadata).toEqual({ untrusted: true });
    expect(result.structuredContent).toMatchObject({ provider: 'brave', query: 'rust async book', notes: [] });
  });

  test('domain filters are not native: it asks for 20 results and filters the URLs, saying so', async () => {
    const log = recordRoute(server, '/brave2/res/v1/web/search', json(BRAVE_BODY));
    const harness = open({ provider: 'brave', brave: { baseUrl: `${server.origin}/brave2` } }, { BRAVE_API_KEY: 'k' });
    const result = await harness.call('WebSearch', { query: 'rust async book', count: 1, blocked_domains: ['*.github.io', 'reddit.com'] });
    expect(log[0]!.query).toEqual({ q: 'rust async book', count: '20' });
    expect(log[0]!.headers['x-subscription-token']).toBe('k');
    const output = result.output as string;
    expect(output).toContain('results: 1\nnote: provider brave ignores domain filters; applied to the result URLs (2 of 3 dropped)\n');
    expect(output).toContain('1. Tokio tutorial');
    expect(output).not.toContain('reddit');
  });
});

// https://docs.tavily.com/documentation/api-reference/endpoint/search
describe('tavily', () => {
  test('POST /search with a Bearer key and the filters in the JSON body', async () => {
    const log = recordRoute(
      server,
      '/tavily/search',
      json({
        query: 'zod 4 release',
        answer: null,
        images: [],
        results: [{ title: 'Zod 4', url: 'https://zod.dev/v4', content: 'Zod 4 is stable.', score: 0.93, raw_content: null, published_date: '2025-07-10' }],
        response_time: 1.1,
      }),
    );
    const harness = open({ provider: 'tavily', tavily: { baseUrl: `${server.origin}/tavily` } }, { TAVILY_API_KEY: 'tvly-abc' });
    const result = await harness.call('WebSearch', { query: 'zod 4 release', count: 5, allowed_domains: ['zod.dev', 'github.com'], recency: 'year' });
    expect(log[0]).toMatchObject({ method: 'POST', path: '/tavily/search' });
    expect(log[0]!.headers).toMatchObject({ authorization: 'Bearer tvly-abc', 'content-type': 'application/json' });
    expect(JSON.parse(log[0]!.body)).toEqual({ query: 'zod 4 release', max_results: 5, search_depth: 'basic', include_domains: ['zod.dev', 'github.com'], time_range: 'year' });
    expect(result.output).toContain('<untrusted_content source="search:tavily">\n1. Zod 4\n   url: https://zod.dev/v4\n   date: 2025-07-10\n   snippet: Zod 4 is stable.\n</untrusted_content>');
    expect(result.output).not.toContain('note:');
  });
});

// https://docs.exa.ai/reference/search
describe('exa', () => {
  test('POST /search with x-api-key, include/excludeDomains, startPublishedDate and text contents', async () => {
    const log = recordRoute(
      server,
      '/exa/search',
      json({
        requestId: 'b5947044c4b78efa9552a7c89b306d95',
        resolvedSearchType: 'neural',
        results: [
          { id: 'https://arxiv.org/abs/2307.06435', title: 'A Comprehensive Overview of Large Language Models', url: 'https://arxiv.org/abs/2307.06435', publishedDate: '2023-07-12T00:00:00.000Z', author: 'Humza Naveed', text: 'Large Language Models (LLMs) have recently demonstrated…' },
          { id: 'x', title: null, url: 'https://example.org/untitled', publishedDate: null, author: null },
        ],
      }),
    );
    const harness = open({ provider: 'exa', exa: { baseUrl: `${server.origin}/exa` } }, { EXA_API_KEY: 'exa-key' });
    const before = Date.now();
    const result = await harness.call('WebSearch', { query: 'llm survey', blocked_domains: ['medium.com'], recency: 'month' });
    const body = JSON.parse(log[0]!.body) as Record<string, unknown>;
    expect(log[0]!.headers['x-api-key']).toBe('exa-key');
    expect(body).toEqual({ query: 'llm survey', type: 'auto', numResults: 8, excludeDomains: ['medium.com'], startPublishedDate: expect.any(String), contents: { text: { maxCharacters: 400 } } });
    const start = Date.parse(body.startPublishedDate as string);
    expect(before - start).toBeGreaterThanOrEqual(31 * 86_400_000 - 1000);
    expect(before - start).toBeLessThan(32 * 86_400_000);
    expect(result.output).toContain('1. A Comprehensive Overview of Large Language Models\n   url: https://arxiv.org/abs/2307.06435\n   date: 2023-07-12T00:00:00.000Z\n   site: Humza Naveed\n   snippet: Large Language Models');
    // No title: the URL stands in.
    expect(result.output).toContain('2. https://example.org/untitled\n   url: https://example.org/untitled\n</untrusted_content>');
  });
});

// https://docs.searxng.org/dev/search_api.html
const SEARXNG_BODY = {
  query: 'sqlite wal',
  number_of_results: 0,
  results: [
    { url: 'https://www.sqlite.org/wal.html', title: 'Write-Ahead Logging', content: 'The default method by which SQLite implements atomic commit…', engine: 'duckduckgo', parsed_url: ['https', 'www.sqlite.org', '/wal.html', '', '', ''], engines: ['duckduckgo', 'brave'], positions: [1, 1], score: 4.0, category: 'general', publishedDate: null },
    { url: 'https://stackoverflow.com/q/1', title: 'WAL mode?', content: 'question', engine: 'google', category: 'general' },
    { url: 'https://sqlite.org/forum/x', title: 'Forum', content: 'post', engine: 'brave', publishedDate: '2026-10-01T00:00:00' },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [],
};

describe('searxng', () => {
  test('GET <baseUrl>/search?format=json with time_range, no key; blocked_domains and count applied locally', async () => {
    const log = recordRoute(server, '/searx/search', json(SEARXNG_BODY));
    const harness = open({ provider: 'searxng', searxng: { baseUrl: `${server.origin}/searx/` } });
    const result = await harness.call('WebSearch', { query: 'sqlite   wal', count: 1, blocked_domains: ['stackoverflow.com'], recency: 'day' });
    expect(log[0]).toMatchObject({ method: 'GET', path: '/searx/search', query: { q: 'sqlite wal', format: 'json', pageno: '1', time_range: 'day' } });
    expect(log[0]!.headers.authorization).toBeUndefined();
    expect(result.output).toContain('query: sqlite wal\nresults: 1\nnote: provider searxng ignores domain filters; applied to the result URLs (1 of 3 dropped)\n');
    expect(result.output).toContain('1. Write-Ahead Logging\n   url: https://www.sqlite.org/wal.html\n   snippet: The default method');
    expect(result.output).not.toContain('Forum');
  });

  test('allowed_domains keeps only those sites and their subdomains', async () => {
    recordRoute(server, '/searx2/search', json(SEARXNG_BODY));
    const harness = open({ provider: 'searxng', searxng: { baseUrl: `${server.origin}/searx2` } });
    const result = await harness.call('WebSearch', { query: 'sqlite wal', allowed_domains: ['SQLite.org.'] });
    expect((result.structuredContent as { results: { url: string }[] }).results.map((r) => r.url)).toEqual(['https://www.sqlite.org/wal.html', 'https://sqlite.org/forum/x']);
  });
});

const DDG_HTML = `<!DOCTYPE html><html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--ad"><div class="links_main links_deep result__body">
  <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Buy now</a></h2>
  <a class="result__snippet" href="#">An ad</a></div></div>
<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fnodejs.org%2Fapi%2Fglobals.html%23abortsignal&amp;rut=abc">Global objects | Node.js <b>Documentation</b></a></h2>
  <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=x">nodejs.org/api/globals.html</a></div></div>
  <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x"><b>AbortSignal</b>.any(signals) returns a signal</a>
</div></div>
<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/any_static">AbortSignal: any() static method - MDN</a></h2>
  <a class="result__snippet" href="#">The any() static method</a>
</div></div>
</div></body></html>`;

describe('duckduckgo-html (opt-in, best effort)', () => {
  test('POST /html/ with the query as a form; organic results only, links unwrapped from /l/?uddg=', async () => {
    const log = recordRoute(server, '/html/', { headers: { 'content-type': 'text/html; charset=utf-8' }, body: DDG_HTML });
    const harness = open({ provider: 'duckduckgo-html', 'duckduckgo-html': { baseUrl: server.origin } });
    const result = await harness.call('WebSearch', { query: 'AbortSignal.any', recency: 'month' });
    expect(log[0]).toMatchObject({ method: 'POST', path: '/html/' });
    expect(log[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(log[0]!.body))).toEqual({ q: 'AbortSignal.any', b: '', df: 'm' });
    expect((result.structuredContent as { results: unknown[] }).results).toEqual([
      { title: 'Global objects | Node.js Documentation', url: 'https://nodejs.org/api/globals.html#abortsignal', snippet: 'AbortSignal.any(signals) returns a signal', site: 'nodejs.org/api/globals.html' },
      { title: 'AbortSignal: any() static method - MDN', url: 'https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/any_static', snippet: 'The any() static method' },
    ]);
  });

  test('a "no results" page is a success with no results', async () => {
    recordRoute(server, '/ddg-empty/html/', { headers: { 'content-type': 'text/html' }, body: '<html><body><div id="links"><div class="no-results">No results.</div></div></body></html>' });
    const harness = open({ provider: 'duckduckgo-html', 'duckduckgo-html': { baseUrl: `${server.origin}/ddg-empty` } });
    const result = await harness.call('WebSearch', { query: 'zzqx nothing' });
    expect([result.isError, result.output]).toEqual([false, 'provider: duckduckgo-html\nquery: zzqx nothing\nresults: 0\n\nNo results for "zzqx nothing".']);
    expect(result.metadata).toEqual({ untrusted: true });
  });
});
