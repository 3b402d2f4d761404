import type { AppConfigInput } from '../../../../src/scopes/appScope';
import { retryAfterSeconds } from '../../../../src/tools/web/search/httpSearchProvider';
import { useAgent } from '../../../helpers/agentHarness';
import { type LocalServer, startServer } from '../webFixtures';
import { type Answer, json, recordRoute, searchFeatures } from './searchFixtures';

// Errors are typed from the HTTP status (or the transport), and each text says what to do.
let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const fixture = useAgent({ features: searchFeatures() });
let routeCount = 0;

/** A brave endpoint on a fresh path that answers `answer`, and the agent configured for it. */
function braveAnswering(answer: Answer, extra: Record<string, unknown> = {}) {
  const prefix = `/b${++routeCount}`;
  const log = recordRoute(server, `${prefix}/res/v1/web/search`, answer);
  const config = { network: { allowPrivate: ['127.0.0.1'] }, webSearch: { provider: 'brave', brave: { baseUrl: `${server.origin}${prefix}` }, ...extra } } as AppConfigInput;
  return { harness: fixture.open({ config, env: { BRAVE_API_KEY: 'k' } }), log };
}

async function failure(answer: Answer, extra: Record<string, unknown> = {}) {
  const { harness } = braveAnswering(answer, extra);
  const result = await harness.call('WebSearch', { query: 'anything' });
  expect([result.outcome, result.isError]).toEqual(['executed', true]);
  return { output: result.output as string, structured: result.structuredContent };
}

describe('errors from the HTTP status', () => {
  test('401: the key was rejected, and where the key comes from', async () => {
    const { output, structured } = await failure(json({ type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', status: 401 } }, 401));
    expect(output).toBe('Web search failed: brave rejected the API key (401). Check the key in the variable webSearch.brave.apiKeyEnv names (default BRAVE_API_KEY).');
    expect(structured).toEqual({ provider: 'brave', error: 'auth', status: 401 });
  });

  test('429 with Retry-After in seconds: rate-limited, with when to retry', async () => {
    const { output, structured } = await failure(json({ error: { code: 'RATE_LIMITED' } }, 429, { 'retry-after': '30' }));
    expect(output).toBe("Web search is rate-limited by brave (429); retry after 30 s, or check the plan's quota.");
    expect(structured).toEqual({ provider: 'brave', error: 'rate_limited', status: 429, retry_after_s: 30 });
  });

  test('429 without Retry-After', async () => {
    const { output } = await failure(json({}, 429));
    expect(output).toBe("Web search is rate-limited by brave (429); wait a while before searching again, or check the plan's quota.");
  });

  test('Retry-After as an HTTP date is seconds from now; junk is ignored', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    expect(retryAfterSeconds('Tue, 01 Dec 2026 10:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Tue, 01 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });

  test.each([500, 502, 503])('%i: a server error, try later or another provider', async (status) => {
    const { output, structured } = await failure({ status, body: 'upstream broke' });
    expect(output).toMatch(new RegExp(`^Web search failed: brave had a server error \\(${status} [A-Za-z ]+\\)\\. Try again later, or configure another webSearch\\.provider\\.$`));
    expect(structured).toEqual({ provider: 'brave', error: 'server', status });
  });

  test('another 4xx: refused, with the provider\'s own words', async () => {
    const { output, structured } = await failure(json({ error: { detail: 'count must be <= 20' } }, 422));
    expect(output).toBe('Web search failed: brave refused the request (422 Unprocessable Entity): {"error":{"detail":"count must be <= 20"}}. Rephrase the query or drop a filter.');
    expect(structured).toEqual({ provider: 'brave', error: 'rejected', status: 422 });
  });

  test('a 200 whose body is not the documented JSON is a bad response, not "no results"', async () => {
    const { output, structured } = await failure({ body: '<html>captive portal</html>', headers: { 'content-type': 'text/html' } });
    expect(output).toBe('Web search failed: brave answered with something other than its documented response (the body is not JSON (content-type text/html)). Try again, or configure another webSearch.provider.');
    expect(structured).toEqual({ provider: 'brave', error: 'bad_response' });
    const shape = await failure(json({ web: { results: [{ title: 'no url' }] } }));
    expect(shape.output).toContain('(web.results.0.url: ');
  });

  test('searxng 403: the JSON format is not enabled on the instance', async () => {
    recordRoute(server, '/sx403/search', { status: 403, body: 'Forbidden', headers: { 'content-type': 'text/html' } });
    const harness = fixture.open({ config: { network: { allowPrivate: ['127.0.0.1'] }, webSearch: { provider: 'searxng', searxng: { baseUrl: `${server.origin}/sx403` } } } as AppConfigInput });
    const result = await harness.call('WebSearch', { query: 'anything' });
    expect([result.isError, result.output]).toEqual([true, "Web search failed: searxng refused the JSON API (403). List json in search.formats of the instance's settings.yml, or check webSearch.searxng.baseUrl."]);
  });

  test('duckduckgo-html 202 "anomaly": rate-limited, configure a real provider', async () => {
    recordRoute(server, '/ddg202/html/', { status: 202, body: '<html><body><div class="anomaly-modal">Please complete the challenge</div></body></html>', headers: { 'content-type': 'text/html' } });
    const harness = fixture.open({ config: { network: { allowPrivate: ['127.0.0.1'] }, webSearch: { provider: 'duckduckgo-html', 'duckduckgo-html': { baseUrl: `${server.origin}/ddg202` } } } as AppConfigInput });
    const result = await harness.call('WebSearch', { query: 'anything' });
    expect([result.isError, result.output]).toEqual([true, 'Web search is rate-limited by duckduckgo-html (HTTP 202 "anomaly"); configure a provider with a key or a SearXNG URL (webSearch.provider).']);
    expect(result.structuredContent).toEqual({ provider: 'duckduckgo-html', error: 'rate_limited', status: 202 });
  });
});

describe('errors from the transport', () => {
  test('a provider that never answers times out after webSearch.timeoutS', async () => {
    server.route('/hang/res/v1/web/search', () => undefined);
    const harness = fixture.open({ config: { network: { allowPrivate: ['127.0.0.1'] }, webSearch: { provider: 'brave', timeoutS: 1, brave: { baseUrl: `${server.origin}/hang` } } } as AppConfigInput, env: { BRAVE_API_KEY: 'k' } });
    const started = Date.now();
    const result = await harness.call('WebSearch', { query: 'anything' });
    expect([result.isError, result.output]).toEqual([true, 'Web search timed out after 1 s (brave). Try again, or raise webSearch.timeoutS.']);
    expect(result.structuredContent).toEqual({ provider: 'brave', error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a provider\'s configured origin on 127.0.0.1 needs no network.allowPrivate; FetchURL to that origin and the provider on other hosts still do', async () => {
    const log = recordRoute(server, '/sxlocal/search', json({ results: [{ title: 'Local', url: 'https://local.example/', content: 'from the local instance' }] }));
    const harness = fixture.open({ config: { approval: { allow: ['FetchURL'] }, webSearch: { provider: 'searxng', searxng: { baseUrl: `${server.origin}/sxlocal` } } } as AppConfigInput });
    const result = await harness.call('WebSearch', { query: 'anything' });
    expect([result.isError, (result.structuredContent as { results: unknown[] }).results]).toEqual([false, [{ title: 'Local', url: 'https://local.example/', snippet: 'from the local instance' }]]);
    expect(log).toHaveLength(1);
    // The exemption is the provider's own: the same host and port through FetchURL is refused.
    const fetched = await harness.call('FetchURL', { url: `${server.origin}/sxlocal/search?q=x&format=json` });
    expect([fetched.isError, fetched.output]).toEqual([true, 'Refusing to fetch 127.0.0.1: it is a loopback address (network.allowPrivate allows chosen ranges).']);
    expect(log).toHaveLength(1);
  });

  test('an abort of the call stops the request', async () => {
    server.route('/slow/res/v1/web/search', () => undefined);
    const harness = fixture.open({ config: { network: { allowPrivate: ['127.0.0.1'] }, webSearch: { provider: 'brave', brave: { baseUrl: `${server.origin}/slow` } } } as AppConfigInput, env: { BRAVE_API_KEY: 'k' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await harness.call('WebSearch', { query: 'anything' }, { signal: controller.signal });
    expect(result.outcome).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
