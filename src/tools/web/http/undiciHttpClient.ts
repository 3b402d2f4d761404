import { inject, injectable, optional, preDestroy } from 'inversify';
import type * as dns from 'node:dns';
import * as net from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Agent, Dispatcher } from 'undici';
import { packageVersion } from '../../../base/packageInfo';
import { formatBytes } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { IConfigService } from '../../../services/config/config';
import { type AppEnvironment, IAppEnvironment } from '../../../services/environment/environment';
import { HttpError, type HttpRequest, type HttpResponse, IDnsResolver, type IHttpClient, INetworkPolicy, type NetworkVerdict, type ResolvedAddress } from '../contract';
import { type NetworkConfig, networkConfig } from '../webConfig';
import { type ProxyRoute, proxyLabel, proxyRouteFor, proxyUrlProblem } from './proxyRoute';
import { nodeBuiltins } from '../../../base/nodeBuiltins';

/**
 * TLS options of the client's connections (extra CA certificates: a test's self-signed server, a
 * corporate root). Optional; bind it to give them.
 */
export interface HttpClientTlsOptions {
  readonly ca?: ConnectionOptions['ca'];
}
export const IHttpClientTlsOptions = createServiceId<HttpClientTlsOptions>('HttpClientTlsOptions');

/** Marks a refusal thrown inside the connect lookup, so it is recognised after undici passes it on. */
class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  constructor(readonly httpError: HttpError) {
    super(httpError.message);
  }
}

export function refusalMessage(host: string, verdict: Extract<NetworkVerdict, { allowed: false }>): string {
  const resolves = verdict.address === host ? 'it is' : `it resolves to ${verdict.address},`;
  return `Refusing to fetch ${host}: ${resolves} ${verdict.category} (network.allowPrivate allows chosen ranges).`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The cause chain of an error, outermost first (undici wraps socket errors). */
function* causes(error: unknown): Generator<unknown> {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** The decoders of a body, in the order to apply them ("gzip, br" was gzipped, then brotli'd). */
function decoders(contentEncoding: string | undefined, firstChunk: Buffer | undefined, host: string): NodeJS.ReadWriteStream[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const zlib = nodeBuiltins.zlib();
  // Flush on truncated input rather than failing: a server that ends early still gives its text.
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  return codings.reverse().map((coding, at) => {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip(flush);
    if (coding === 'br') return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    if (coding === 'deflate') {
      // "deflate" is zlib-wrapped by the standard and often raw in practice; the first bytes tell.
      return at === 0 && firstChunk && !isZlibHeader(firstChunk) ? zlib.createInflateRaw(flush) : zlib.createInflate(flush);
    }
    throw new HttpError('bad_encoding', `${host} sent the body with content-encoding "${coding}", which cannot be decoded (gzip, deflate and br can).`, host);
  });
}

function isZlibHeader(chunk: Buffer): boolean {
  return chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
}

/** How a request reaches its origin: which dispatcher, and whether the network policy applies. */
interface Route {
  /** False only for the caller's own configured origin (HttpRequest.allowPrivateOrigin). */
  readonly checked: boolean;
  readonly proxy?: ProxyRoute;
}

/** The dispatchers of one set of connection settings; made on first use. */
interface Dispatchers {
  readonly key: string;
  guarded?: Agent;
  unchecked?: Agent;
  readonly proxies: Map<string, Dispatcher>;
}

/** The origin of a URL string, or undefined when it is not one. */
function originOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

/**
 * The default IHttpClient: an undici Agent whose connect lookup resolves through IDnsResolver,
 * checks every address with INetworkPolicy and connects to the address it checked. An IP literal
 * is checked before the request (the socket does not look it up). Redirects are not followed.
 * Through a proxy (network.proxy, HTTPS_PROXY/HTTP_PROXY) the target is resolved and checked
 * before the request (a name that does not resolve here is the proxy's to resolve); the proxy
 * connects on its own, so the address cannot be pinned there.
 */
@injectable()
export class UndiciHttpClient implements IHttpClient {
  private dispatchers: Dispatchers | undefined;
  private readonly userAgent = `toolhost/${packageVersion()}`;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(INetworkPolicy) private readonly policy: INetworkPolicy,
    @inject(IDnsResolver) private readonly resolver: IDnsResolver,
    @inject(IAppEnvironment) private readonly env: AppEnvironment,
    @inject(IHttpClientTlsOptions) @optional() private readonly tls: HttpClientTlsOptions | undefined,
  ) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new HttpError('invalid_url', `Invalid URL "${String(request.url)}".`, '');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new HttpError('invalid_url', `Only http and https URLs can be fetched (got ${url.protocol}).`, url.hostname);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const settings = this.config.section(networkConfig);
    const proxy = proxyRouteFor(url, settings, this.env);
    const route: Route = { checked: originOf(request.allowPrivateOrigin) !== url.origin, ...(proxy ? { proxy } : {}) };
    if (proxy) {
      const problem = proxyUrlProblem(proxy);
      if (problem) throw new HttpError('proxy', problem, host);
    }
    const literal = net.isIP(host);
    if (route.checked && literal !== 0) {
      const verdict = this.policy.check(host, [{ address: host, family: literal === 6 ? 6 : 4 }]);
      if (!verdict.allowed) throw new HttpError('blocked', refusalMessage(host, verdict), host);
    } else if (route.checked && proxy) {
      // The proxy resolves the name again; what can be checked here is what it resolves to now.
      await this.checkThroughProxy(host);
    }
    const signal = request.signal ?? new AbortController().signal;
    signal.throwIfAborted();
    const idleMs = request.timeouts.idleMs ?? settings.idleTimeoutS * 1000;
    const headers: Record<string, string> = { 'user-agent': settings.userAgent ?? this.userAgent, 'accept-encoding': 'gzip, deflate, br', ...lowerCaseKeys(request.headers) };
    // The whole-body deadline starts with the headers; one controller carries it and the caller's abort.
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let bodyTimer: NodeJS.Timeout | undefined;
    let bodyTimedOut = false;
    let received = 0;
    try {
      let response;
      try {
        response = await this.dispatcher(route, settings).request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: request.method ?? 'GET',
          headers,
          body: request.body,
          signal: controller.signal,
          headersTimeout: request.timeouts.headersMs,
          bodyTimeout: idleMs,
        });
      } catch (error) {
        throw this.translate(error, signal, host, { headersMs: request.timeouts.headersMs, idleMs, received, proxy });
      }
      bodyTimer = setTimeout(() => {
        bodyTimedOut = true;
        controller.abort(new HttpError('body_timeout', `${host} did not finish sending the body within ${seconds(request.timeouts.bodyMs)} (${formatBytes(received)} so far).`, host, received));
      }, request.timeouts.bodyMs);
      const status = response.statusCode;
      const responseHeaders = flattenHeaders(response.headers);
      const chunks: Buffer[] = [];
      let wireBytes = 0;
      const overCap = () =>
        new HttpError('too_large', `The response from ${host} is larger than ${formatBytes(request.maxBytes)}.`, host, received);
      try {
        const wire = response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        const first = await wire.next();
        const bodyless = status === 204 || status === 304 || request.method === 'HEAD';
        const stages = bodyless || first.done ? [] : decoders(responseHeaders['content-encoding'], first.value, host);
        async function* wireChunks(): AsyncGenerator<Buffer> {
          for (let next = first; !next.done; next = await wire.next()) {
            wireBytes += next.value.length;
            yield next.value;
          }
        }
        const collect = (chunk: Buffer) => {
          received += chunk.length;
          if (received > request.maxBytes) throw overCap();
          chunks.push(chunk);
        };
        if (stages.length === 0) {
          for await (const chunk of wireChunks()) collect(chunk);
        } else {
          try {
            const sink = new Writable({
              write(chunk: Buffer, _encoding, done) {
                try {
                  collect(chunk);
                  done();
                } catch (error) {
                  done(error as Error);
                }
              },
            });
            await pipeline([Readable.from(wireChunks()), ...stages, sink]);
          } catch (error) {
            if (error instanceof HttpError || bodyTimedOut || signal.aborted || errorCode(error)?.startsWith('UND_ERR')) throw error;
            if (errorCode(error)?.startsWith('Z_') || (error as Error).message?.includes('decompress')) {
              throw new HttpError('bad_encoding', `The body from ${host} could not be decompressed (${responseHeaders['content-encoding']}): ${(error as Error).message}.`, host, received);
            }
            throw error;
          }
        }
      } catch (error) {
        response.body.destroy();
        if (error instanceof HttpError) throw error;
        if (bodyTimedOut) throw controller.signal.reason as HttpError;
        throw this.translate(error, signal, host, { headersMs: request.timeouts.headersMs, idleMs, received, proxy });
      }
      return { url: url.href, status, statusText: nodeBuiltins.http().STATUS_CODES[status] ?? '', headers: responseHeaders, body: Buffer.concat(chunks), wireBytes };
    } finally {
      clearTimeout(bodyTimer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** An undici or socket error as an HttpError; the caller's abort as its reason. */
  private translate(error: unknown, signal: AbortSignal, host: string, at: { headersMs: number; idleMs: number; received: number; proxy: ProxyRoute | undefined }): unknown {
    if (signal.aborted) return signal.reason;
    for (const e of causes(error)) {
      if (e instanceof RefusedAddressError) return e.httpError;
      if (e instanceof HttpError) return e;
    }
    const codes = [...causes(error)].map(errorCode);
    const has = (code: string) => codes.includes(code);
    if (has('UND_ERR_HEADERS_TIMEOUT')) {
      return new HttpError('headers_timeout', `Timed out after ${seconds(at.headersMs)} waiting for the response headers from ${host}.`, host);
    }
    if (has('UND_ERR_BODY_TIMEOUT')) {
      return new HttpError('idle_timeout', `${host} stopped sending data for ${seconds(at.idleMs)} after ${formatBytes(at.received)}.`, host, at.received);
    }
    if (has('UND_ERR_CONNECT_TIMEOUT')) {
      return new HttpError('connect_timeout', `Could not connect to ${host} within ${this.config.section(networkConfig).connectTimeoutS} s (network.connectTimeoutS).`, host);
    }
    const detail = [...causes(error)].map((e) => (e as Error).message).filter((m) => typeof m === 'string' && m !== '').at(-1) ?? String(error);
    const code = codes.find((c) => c !== undefined);
    const detailWithCode = `${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`;
    const tlsProblem = codes.some((c) => c !== undefined && /CERT|TLS|SSL/.test(c));
    if (at.proxy && at.received === 0 && !tlsProblem) {
      // Through a proxy the only local lookup and connection are the proxy's, and it may refuse the tunnel: say which proxy (a certificate error is the target's).
      return new HttpError('proxy', `The request to ${host} through the proxy ${proxyLabel(at.proxy)} (${at.proxy.source}) failed: ${detailWithCode}. Check the proxy, or list the host in network.noProxy.`, host);
    }
    if (has('ENOTFOUND') || has('EAI_AGAIN') || has('EAI_NODATA') || has('EAI_NONAME')) {
      return new HttpError('dns', `The host name ${host} could not be resolved (${codes.find((c) => c?.startsWith('E')) ?? 'DNS error'}). Check the URL.`, host);
    }
    const kind = has('ECONNREFUSED') || has('ECONNRESET') || has('EHOSTUNREACH') || has('ENETUNREACH') || has('UND_ERR_SOCKET') ? 'connect' : 'network';
    return new HttpError(kind, `The request to ${host} failed: ${detailWithCode}.`, host, at.received);
  }

  /**
   * The dispatcher of a route, kept while the connection settings stay the same: the guarded Agent,
   * the unchecked one (only ever given the caller's configured origin), or a ProxyAgent per proxy.
   */
  private dispatcher(route: Route, settings: NetworkConfig): Dispatcher {
    const key = `${settings.connectTimeoutS}/${settings.maxConnectionsPerHost}`;
    if (this.dispatchers?.key !== key) {
      this.closeDispatchers();
      this.dispatchers = { key, proxies: new Map() };
    }
    const dispatchers = this.dispatchers;
    // Loaded on first use: commands that fetch nothing do not pay for undici.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const undici = require('undici') as typeof import('undici');
    const tls = { timeout: settings.connectTimeoutS * 1000, ...(this.tls?.ca !== undefined ? { ca: this.tls.ca } : {}) };
    if (route.proxy) {
      const proxyUrl = route.proxy.proxyUrl;
      let proxy = dispatchers.proxies.get(proxyUrl);
      if (!proxy) {
        // The proxy's own address is not checked: the user or the environment chose it (often loopback).
        proxy = new undici.ProxyAgent({ uri: proxyUrl, connections: settings.maxConnectionsPerHost, proxyTls: tls, requestTls: tls });
        dispatchers.proxies.set(proxyUrl, proxy);
      }
      return proxy;
    }
    const checked = route.checked;
    const existing = checked ? dispatchers.guarded : dispatchers.unchecked;
    if (existing) return existing;
    const agent = new undici.Agent({
      connections: settings.maxConnectionsPerHost,
      connect: { ...tls, lookup: (hostname: string, options: { all?: boolean }, callback: LookupCallback) => this.lookup(hostname, options, callback, checked) },
    });
    if (checked) dispatchers.guarded = agent;
    else dispatchers.unchecked = agent;
    return agent;
  }

  private closeDispatchers(): void {
    const old = this.dispatchers;
    this.dispatchers = undefined;
    if (!old) return;
    for (const d of [old.guarded, old.unchecked, ...old.proxies.values()]) void d?.close();
  }

  /**
   * A proxied target: resolved now and every address checked, as the guarded lookup does for a
   * direct connection. A name that does not resolve here (an intranet name only the proxy's DNS
   * knows) is left to the proxy: there is no local address to check, and refusing it would make
   * such hosts unreachable. What does resolve here must pass.
   */
  private async checkThroughProxy(host: string): Promise<void> {
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await this.resolver.lookup(host);
    } catch {
      return;
    }
    const verdict = this.policy.check(host, addresses);
    if (!verdict.allowed) throw new HttpError('blocked', refusalMessage(host, verdict), host);
  }

  /** The guarded lookup: one resolution, checked (unless `checked` is false), and the checked address is what the socket uses. */
  private lookup(hostname: string, options: { all?: boolean }, callback: LookupCallback, checked: boolean): void {
    this.resolver.lookup(hostname).then(
      (addresses: readonly ResolvedAddress[]) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
          return;
        }
        const verdict: NetworkVerdict = checked ? this.policy.check(hostname, addresses) : { allowed: true };
        if (!verdict.allowed) {
          callback(new RefusedAddressError(new HttpError('blocked', refusalMessage(hostname, verdict), hostname)) as NodeJS.ErrnoException, '');
          return;
        }
        if (options.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    );
  }

  @preDestroy()
  async dispose(): Promise<void> {
    const old = this.dispatchers;
    this.dispatchers = undefined;
    if (old) await Promise.all([old.guarded, old.unchecked, ...old.proxies.values()].map((d) => d?.destroy()));
  }
}

function lowerCaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(name.toLowerCase() === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}
