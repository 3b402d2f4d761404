import * as zlib from 'node:zlib';
import { type App, createApp } from '../../../src/scopes/appScope';
import { HttpError, type HttpRequest, IDnsResolver, IHttpClient, INetworkPolicy } from '../../../src/tools/web/contract';
import { IHttpClientTlsOptions } from '../../../src/tools/web/http/undiciHttpClient';
import { blockedCategory } from '../../../src/tools/web/http/networkPolicy';
import { createWebToolsFeature } from '../../../src/tools/web/webFeature';
import { parseAllowPrivateEntry } from '../../../src/tools/web/webConfig';
import { type LocalServer, type TestProxy, TestResolver, makeCertificate, startConnectProxy, startServer } from './webFixtures';

const TIMEOUTS = { headersMs: 5_000, bodyMs: 5_000 };
const MB = 1024 * 1024;

let server: LocalServer;
let tlsServer: LocalServer;
let cert: { key: string; cert: string };
const apps: App[] = [];

beforeAll(async () => {
  cert = makeCertificate(['site.test', 'pub.test']);
  server = await startServer();
  tlsServer = await startServer({ tls: cert });
  for (const s of [server, tlsServer]) {
    s.route('/hello', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
    s.route('/redirect', (_req, res) => res.writeHead(302, { location: '/hello' }).end());
  }
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.dispose()));
  await server.close();
  await tlsServer.close();
});

interface ClientOptions {
  allowPrivate?: string[];
  resolver?: TestResolver;
  connectTimeoutS?: number;
  idleTimeoutS?: number;
  userAgent?: string;
  proxy?: string;
  noProxy?: string[];
  env?: Record<string, string>;
}

function client(options: ClientOptions = {}): { http: IHttpClient; app: App } {
  const app = createApp({
    features: [createWebToolsFeature()],
    env: options.env ?? {},
    config: {
      network: {
        allowPrivate: options.allowPrivate ?? [],
        ...(options.proxy ? { proxy: options.proxy } : {}),
        ...(options.noProxy ? { noProxy: options.noProxy } : {}),
        ...(options.connectTimeoutS ? { connectTimeoutS: options.connectTimeoutS } : {}),
        ...(options.idleTimeoutS ? { idleTimeoutS: options.idleTimeoutS } : {}),
        ...(options.userAgent ? { userAgent: options.userAgent } : {}),
      },
    },
    overrides: (container) => {
      if (options.resolver) container.rebind(IDnsResolver).toConstantValue(options.resolver);
      container.bind(IHttpClientTlsOptions).toConstantValue({ ca: cert.cert });
    },
  });
  apps.push(app);
  return { http: app.container.get(IHttpClient), app };
}

async function failure(http: IHttpClient, request: HttpRequest): Promise<HttpError> {
  try {
    await http.request(request);
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('the request succeeded');
}

describe('INetworkPolicy (default)', () => {
  test('refuses loopback, private, link-local, CGNAT, unspecified and IPv4-mapped IPv6 forms; allows public addresses', () => {
    expect(blockedCategory('127.0.0.1')).toBe('a loopback address');
    expect(blockedCategory('10.0.4.2')).toBe('a private address');
    expect(blockedCategory('172.31.255.1')).toBe('a private address');
    expect(blockedCategory('192.168.1.1')).toBe('a private address');
    expect(blockedCategory('169.254.169.254')).toBe('a link-local address');
    expect(blockedCategory('100.64.0.1')).toBe('a shared (CGNAT) address');
    expect(blockedCategory('0.0.0.0')).toBe('an unspecified ("this network") address');
    expect(blockedCategory('::1')).toBe('a loopback address');
    expect(blockedCategory('fe80::1')).toBe('a link-local address');
    expect(blockedCategory('fd12::1')).toBe('a private (unique local) address');
    expect(blockedCategory('::ffff:127.0.0.1')).toBe('a loopback address');
    expect(blockedCategory('::ffff:7f00:1')).toBe('a loopback address');
    expect(blockedCategory('::ffff:a00:1')).toBe('a private address');
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '172.32.0.1', '100.128.0.1']) expect(blockedCategory(address)).toBeUndefined();
  });

  test('network.allowPrivate opens chosen ranges and host names, and nothing else', () => {
    const { app } = client({ allowPrivate: ['127.0.0.1/32', '10.1.0.0/16', 'intranet.local'] });
    const policy = app.container.get(INetworkPolicy);
    expect(policy.check('a.test', [{ address: '127.0.0.1', family: 4 }])).toEqual({ allowed: true });
    expect(policy.check('a.test', [{ address: '::ffff:127.0.0.1', family: 6 }])).toEqual({ allowed: true });
    expect(policy.check('a.test', [{ address: '127.0.0.2', family: 4 }])).toEqual({ allowed: false, address: '127.0.0.2', category: 'a loopback address' });
    expect(policy.check('a.test', [{ address: '10.1.2.3', family: 4 }])).toEqual({ allowed: true });
    expect(policy.check('a.test', [{ address: '10.2.0.1', family: 4 }]).allowed).toBe(false);
    expect(policy.check('INTRANET.local.', [{ address: '10.9.9.9', family: 4 }])).toEqual({ allowed: true });
    // One private record among public ones is enough to refuse.
    expect(policy.check('mixed.test', [{ address: '8.8.8.8', family: 4 }, { address: '192.168.0.1', family: 4 }])).toEqual({ allowed: false, address: '192.168.0.1', category: 'a private address' });
  });

  test('allowPrivate entries are parsed, and a bad entry is a config error that says what is accepted', () => {
    expect(parseAllowPrivateEntry('10.0.0.0/8')).toEqual({ kind: 'range', address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseAllowPrivateEntry('fd00::/8')).toEqual({ kind: 'range', address: 'fd00::', prefix: 8, family: 'ipv6' });
    expect(parseAllowPrivateEntry('127.0.0.1')).toEqual({ kind: 'range', address: '127.0.0.1', prefix: 32, family: 'ipv4' });
    expect(parseAllowPrivateEntry('Intranet.Local')).toEqual({ kind: 'host', host: 'intranet.local' });
    for (const bad of ['10.0.0.0/33', 'http://x', '10.0.0.0/x', 'a b', '']) expect(parseAllowPrivateEntry(bad)).toBeUndefined();
    expect(() => createApp({ features: [createWebToolsFeature()], config: { network: { allowPrivate: ['10.0.0.0/33'] } } })).toThrow(
      '"10.0.0.0/33" is not a CIDR range (10.0.0.0/8, fd00::/8), an address (127.0.0.1) or a host name (intranet.local).',
    );
  });
});

describe('IHttpClient (undici)', () => {
  test('refuses a loopback server by default, by IP literal and by a name that resolves to it; allowPrivate opens it', async () => {
    const resolver = new TestResolver({ 'local.test': '127.0.0.1' });
    const closed = client({ resolver }).http;
    expect((await failure(closed, { url: `${server.origin}/hello`, timeouts: TIMEOUTS, maxBytes: MB })).message).toBe(
      'Refusing to fetch 127.0.0.1: it is a loopback address (network.allowPrivate allows chosen ranges).',
    );
    const byName = await failure(closed, { url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([byName.code, byName.message]).toEqual(['blocked', 'Refusing to fetch local.test: it resolves to 127.0.0.1, a loopback address (network.allowPrivate allows chosen ranges).']);
    expect(server.requests.filter((r) => r.path === '/hello')).toEqual([]);
    const open = client({ resolver, allowPrivate: ['127.0.0.1/32'] }).http;
    const response = await open.request({ url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([response.status, response.body.toString(), response.headers['content-type']]).toEqual([200, 'hello', 'text/plain']);
  });

  test('DNS rebinding cannot pass: the connection goes to the address that was checked, not a second answer', async () => {
    // A public address first, loopback on any later lookup. A client that checked one answer and
    // connected with another would reach the local server.
    const resolver = new TestResolver({ 'rebind.test': [['203.0.113.7'], ['127.0.0.1']] });
    const { http } = client({ resolver, connectTimeoutS: 1 });
    const before = server.requests.length;
    const error = await failure(http, { url: server.url('/hello', 'rebind.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect(['connect', 'connect_timeout']).toContain(error.code);
    expect(server.requests.length).toBe(before);
    expect(resolver.lookups.get('rebind.test')).toBe(1);
  });

  test('HTTPS with a certificate made at test time, an honest user agent, and a 3xx handed back unfollowed', async () => {
    const resolver = new TestResolver({ 'site.test': '127.0.0.1' });
    const { http } = client({ resolver, allowPrivate: ['127.0.0.1'] });
    const response = await http.request({ url: tlsServer.url('/hello', 'site.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect(response.body.toString()).toBe('hello');
    expect(tlsServer.requests.at(-1)!.headers['user-agent']).toMatch(/^toolhost\/\d+\.\d+\.\d+/);
    expect(tlsServer.requests.at(-1)!.headers['accept-encoding']).toBe('gzip, deflate, br');
    const redirect = await http.request({ url: tlsServer.url('/redirect', 'site.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([redirect.status, redirect.headers.location]).toEqual([302, '/hello']);
    const custom = client({ resolver, allowPrivate: ['127.0.0.1'], userAgent: 'corp-bot/1' }).http;
    await custom.request({ url: tlsServer.url('/hello', 'site.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect(tlsServer.requests.at(-1)!.headers['user-agent']).toBe('corp-bot/1');
  });

  test('decodes gzip, deflate (zlib and raw) and br bodies', async () => {
    const text = 'compressed body '.repeat(2_000);
    const encodings: Record<string, Buffer> = {
      gzip: zlib.gzipSync(text),
      deflate: zlib.deflateSync(text),
      'deflate-raw': zlib.deflateRawSync(text),
      br: zlib.brotliCompressSync(text),
    };
    for (const [name, body] of Object.entries(encodings)) {
      server.route(`/enc/${name}`, (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': name === 'deflate-raw' ? 'deflate' : name }).end(body));
    }
    const { http } = client({ allowPrivate: ['127.0.0.1'] });
    for (const name of Object.keys(encodings)) {
      const response = await http.request({ url: `${server.origin}/enc/${name}`, timeouts: TIMEOUTS, maxBytes: MB });
      expect([name, response.body.toString()]).toEqual([name, text]);
      expect(response.wireBytes).toBe(encodings[name]!.length);
    }
    server.route('/enc/zstd', (_req, res) => res.writeHead(200, { 'content-encoding': 'zstd' }).end('xx'));
    expect((await failure(http, { url: `${server.origin}/enc/zstd`, timeouts: TIMEOUTS, maxBytes: MB })).message).toBe(
      '127.0.0.1 sent the body with content-encoding "zstd", which cannot be decoded (gzip, deflate and br can).',
    );
  });

  test('the byte cap stops a chunked body while it streams, and counts decompressed bytes (a gzip bomb)', async () => {
    let written = 0;
    server.route('/endless', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (written < 64 * MB && res.write(chunk)) written += chunk.length;
        if (written < 64 * MB) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    const bomb = zlib.gzipSync(Buffer.alloc(8 * MB));
    server.route('/bomb', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb));
    const { http } = client({ allowPrivate: ['127.0.0.1'] });
    const endless = await failure(http, { url: `${server.origin}/endless`, timeouts: TIMEOUTS, maxBytes: MB });
    expect([endless.code, endless.message]).toEqual(['too_large', 'The response from 127.0.0.1 is larger than 1.0 MB.']);
    expect(written).toBeLessThan(32 * MB);
    const gz = await failure(http, { url: `${server.origin}/bomb`, timeouts: TIMEOUTS, maxBytes: MB });
    expect(gz.code).toBe('too_large');
    expect(bomb.length).toBeLessThan(MB / 8);
  });

  test('a server that never answers times out on the headers; one that stalls mid-body on the idle gap; a slow drip on the body deadline', async () => {
    server.route('/never', () => undefined);
    server.route('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x'.repeat(2048));
    });
    server.route('/drip', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(timer));
    });
    const { http } = client({ allowPrivate: ['127.0.0.1'], idleTimeoutS: 1 });
    const started = Date.now();
    const never = await failure(http, { url: `${server.origin}/never`, timeouts: { headersMs: 500, bodyMs: 5_000 }, maxBytes: MB });
    expect([never.code, never.message]).toEqual(['headers_timeout', 'Timed out after 0.5 s waiting for the response headers from 127.0.0.1.']);
    const stall = await failure(http, { url: `${server.origin}/stall`, timeouts: { headersMs: 5_000, bodyMs: 5_000 }, maxBytes: MB });
    expect([stall.code, stall.message]).toEqual(['idle_timeout', '127.0.0.1 stopped sending data for 1 s after 2.0 KB.']);
    const drip = await failure(http, { url: `${server.origin}/drip`, timeouts: { headersMs: 5_000, bodyMs: 800 }, maxBytes: MB });
    expect(drip.code).toBe('body_timeout');
    expect(drip.message).toMatch(/^127\.0\.0\.1 did not finish sending the body within 0\.8 s \(\d+ B so far\)\.$/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('an abort rethrows the signal reason; bad URLs and unknown hosts get clear errors', async () => {
    server.route('/slow', () => undefined);
    const { http } = client({ allowPrivate: ['127.0.0.1'], resolver: new TestResolver({}) });
    const controller = new AbortController();
    const reason = new Error('stop now');
    setTimeout(() => controller.abort(reason), 50);
    await expect(http.request({ url: `${server.origin}/slow`, timeouts: TIMEOUTS, maxBytes: MB, signal: controller.signal })).rejects.toBe(reason);
    expect((await failure(http, { url: 'ftp://example.com/x', timeouts: TIMEOUTS, maxBytes: MB })).message).toBe('Only http and https URLs can be fetched (got ftp:).');
    expect((await failure(http, { url: 'not a url', timeouts: TIMEOUTS, maxBytes: MB })).message).toBe('Invalid URL "not a url".');
    const unknown = await failure(http, { url: 'http://nowhere.test/', timeouts: TIMEOUTS, maxBytes: MB });
    expect([unknown.code, unknown.message]).toEqual(['dns', 'The host name nowhere.test could not be resolved (ENOTFOUND). Check the URL.']);
  });
});

describe('allowPrivateOrigin: the caller\'s configured origin', () => {
  test('exactly that origin may reach loopback; the same host on another port, or another name for it, is still refused', async () => {
    const resolver = new TestResolver({ 'local.test': '127.0.0.1' });
    const { http } = client({ resolver });
    const response = await http.request({ url: `${server.origin}/hello`, timeouts: TIMEOUTS, maxBytes: MB, allowPrivateOrigin: `${server.origin}/some/base/path` });
    expect([response.status, response.body.toString()]).toEqual([200, 'hello']);
    const byName = await http.request({ url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB, allowPrivateOrigin: server.url('/', 'local.test') });
    expect(byName.status).toBe(200);
    const otherPort = await failure(http, { url: `http://127.0.0.1:${tlsServer.port}/hello`, timeouts: TIMEOUTS, maxBytes: MB, allowPrivateOrigin: server.origin });
    expect(otherPort.code).toBe('blocked');
    const otherName = await failure(http, { url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB, allowPrivateOrigin: server.origin });
    expect(otherName.message).toBe('Refusing to fetch local.test: it resolves to 127.0.0.1, a loopback address (network.allowPrivate allows chosen ranges).');
    // A request without it, after the exempt ones, is refused as before (the exemption is not a connection left open to reuse).
    expect((await failure(http, { url: `${server.origin}/hello`, timeouts: TIMEOUTS, maxBytes: MB })).code).toBe('blocked');
  });
});

describe('proxies (network.proxy, HTTPS_PROXY/HTTP_PROXY/NO_PROXY)', () => {
  let proxy: TestProxy;
  beforeEach(async () => {
    proxy = await startConnectProxy();
  });
  afterEach(() => proxy.close());

  const resolver = () => new TestResolver({ 'pub.test': '93.184.215.14', 'priv.test': '10.0.0.9', 'local.test': '127.0.0.1', 'direct.test': '127.0.0.1' });

  test('HTTPS_PROXY carries an https request through a CONNECT tunnel; the target\'s address is checked first and passes when public', async () => {
    const { http } = client({ resolver: resolver(), env: { HTTPS_PROXY: proxy.url } });
    const before = tlsServer.requests.length;
    const response = await http.request({ url: tlsServer.url('/hello', 'pub.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([response.status, response.body.toString()]).toEqual([200, 'hello']);
    expect(proxy.connects).toEqual([`pub.test:${tlsServer.port}`]);
    expect(tlsServer.requests.length).toBe(before + 1);
    // A certificate error is the target's, not the proxy's.
    const wrongName = await failure(http, { url: tlsServer.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB, allowPrivateOrigin: tlsServer.url('/', 'local.test') });
    expect([wrongName.code, wrongName.message]).toEqual(['network', expect.stringContaining("The request to local.test failed: Hostname/IP does not match certificate's altnames") as unknown]);
  });

  test('the SSRF guard still applies to the target: a name resolving to a private address is refused before the proxy is asked', async () => {
    const { http } = client({ resolver: resolver(), env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
    const error = await failure(http, { url: server.url('/hello', 'priv.test'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([error.code, error.message]).toEqual(['blocked', 'Refusing to fetch priv.test: it resolves to 10.0.0.9, a private address (network.allowPrivate allows chosen ranges).']);
    const literal = await failure(http, { url: `http://10.1.2.3:${server.port}/hello`, timeouts: TIMEOUTS, maxBytes: MB });
    expect(literal.code).toBe('blocked');
    expect(proxy.connects).toEqual([]);
    // allowPrivate opens a private target through the proxy as it does directly.
    const open = client({ resolver: resolver(), allowPrivate: ['10.0.0.0/8'], env: { HTTP_PROXY: proxy.url } }).http;
    expect((await open.request({ url: server.url('/hello', 'priv.test'), timeouts: TIMEOUTS, maxBytes: MB })).status).toBe(200);
    expect(proxy.connects).toEqual([`priv.test:${server.port}`]);
  });

  test('a name only the proxy can resolve goes to the proxy; without a proxy it is a DNS error', async () => {
    const names = resolver();
    const { http } = client({ resolver: names, env: { HTTP_PROXY: proxy.url } });
    const response = await http.request({ url: server.url('/hello', 'intranet.corp'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([response.status, response.body.toString()]).toEqual([200, 'hello']);
    expect(proxy.connects).toEqual([`intranet.corp:${server.port}`]);
    // It was looked up here first: a name that does resolve here is checked (the private one above is refused).
    expect(names.lookups.get('intranet.corp')).toBe(1);
    const direct = await failure(client({ resolver: resolver() }).http, { url: server.url('/hello', 'intranet.corp'), timeouts: TIMEOUTS, maxBytes: MB });
    expect([direct.code, direct.message]).toEqual(['dns', 'The host name intranet.corp could not be resolved (ENOTFOUND). Check the URL.']);
    expect(proxy.connects).toHaveLength(1);
  });

  test('NO_PROXY and loopback targets connect directly; network.proxy wins over the environment, and "direct" ignores it', async () => {
    const env = { http_proxy: proxy.url, NO_PROXY: 'example.org, .direct.test' };
    const { http } = client({ resolver: resolver(), allowPrivate: ['127.0.0.1'], env });
    expect((await http.request({ url: server.url('/hello', 'direct.test'), timeouts: TIMEOUTS, maxBytes: MB })).status).toBe(200);
    expect((await http.request({ url: `${server.origin}/hello`, timeouts: TIMEOUTS, maxBytes: MB })).status).toBe(200);
    expect(proxy.connects).toEqual([]);
    expect((await http.request({ url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB })).status).toBe(200);
    expect(proxy.connects).toEqual([`local.test:${server.port}`]);

    const configured = client({ resolver: resolver(), allowPrivate: ['127.0.0.1'], proxy: proxy.url, noProxy: ['local.test:1'], env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '*' } }).http;
    expect((await configured.request({ url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB })).status).toBe(200);
    expect(proxy.connects).toHaveLength(2);
    const direct = client({ resolver: resolver(), allowPrivate: ['127.0.0.1'], proxy: 'direct', env: { HTTP_PROXY: proxy.url } }).http;
    expect((await direct.request({ url: server.url('/hello', 'local.test'), timeouts: TIMEOUTS, maxBytes: MB })).status).toBe(200);
    expect(proxy.connects).toHaveLength(2);
  });

  test('a proxy that refuses the tunnel, one that is down, and a proxy URL that is not http(s) get errors naming the proxy', async () => {
    proxy.refuseWith = 403;
    const refused = await failure(client({ resolver: resolver(), env: { HTTPS_PROXY: proxy.url } }).http, { url: 'https://pub.test/x', timeouts: TIMEOUTS, maxBytes: MB });
    expect(refused.code).toBe('proxy');
    expect(refused.message).toMatch(new RegExp(`^The request to pub\\.test through the proxy http://127\\.0\\.0\\.1:${proxy.port} \\(HTTPS_PROXY\\) failed: .*403.*\\. Check the proxy, or list the host in network\\.noProxy\\.$`));
    const down = await failure(client({ resolver: resolver(), env: { HTTP_PROXY: 'http://127.0.0.1:9' } }).http, { url: 'http://pub.test/x', timeouts: TIMEOUTS, maxBytes: MB });
    expect([down.code, down.message.startsWith('The request to pub.test through the proxy http://127.0.0.1:9 (HTTP_PROXY) failed: ')]).toEqual(['proxy', true]);
    const socks = await failure(client({ resolver: resolver(), env: { HTTPS_PROXY: 'socks5://127.0.0.1:1080' } }).http, { url: 'https://pub.test/x', timeouts: TIMEOUTS, maxBytes: MB });
    expect([socks.code, socks.message]).toEqual(['proxy', 'The proxy in HTTPS_PROXY is a socks5 URL; only http:// and https:// proxies are supported (set network.proxy to one, or "direct").']);
    expect(() => createApp({ features: [createWebToolsFeature()], config: { network: { proxy: 'socks5://x:1' } } })).toThrow('give an http:// or https:// proxy URL, or "direct"');
  });
});
