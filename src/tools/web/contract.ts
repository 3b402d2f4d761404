import { createServiceId } from '../../di/serviceId';

/**
 * The web family's ports, for its tools and for other families (WebSearch, ReadMediaFile): the
 * guarded HTTP client, the network policy, the DNS resolver and the content extractor. Each is an
 * App-scope service with a default that a test or a host rebinds.
 */
export { networkConfig, type NetworkConfig } from './webConfig';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves host names (default: node:dns `lookup` with `all: true`, so /etc/hosts counts). */
export interface IDnsResolver {
  /** Every address of `host`; rejects with an Error whose `code` is the DNS error (ENOTFOUND, …). */
  lookup(host: string): Promise<readonly ResolvedAddress[]>;
}
export const IDnsResolver = createServiceId<IDnsResolver>('DnsResolver');

export type NetworkVerdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** The first address that is not allowed. */
      readonly address: string;
      /** What kind of address it is: "a loopback address", "a private address", … */
      readonly category: string;
    };

/**
 * Which addresses may be connected to. The default refuses loopback, private, link-local, CGNAT,
 * multicast, reserved and unspecified addresses (IPv4-mapped IPv6 forms included); config
 * `network.allowPrivate` opens chosen ranges or host names.
 */
export interface INetworkPolicy {
  /** Allowed only when every address is: a host with one private record is refused. */
  check(host: string, addresses: readonly ResolvedAddress[]): NetworkVerdict;
}
export const INetworkPolicy = createServiceId<INetworkPolicy>('NetworkPolicy');

export interface HttpTimeouts {
  /** From sending the request to the end of the response headers. */
  readonly headersMs: number;
  /** From the response headers to the end of the body. */
  readonly bodyMs: number;
  /** The longest gap without bytes while the body streams (default `network.idleTimeoutS`). */
  readonly idleMs?: number;
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST';

export interface HttpRequest {
  /** http: or https: only. */
  readonly url: string | URL;
  readonly method?: HttpMethod;
  /** Extra request headers; the client sets User-Agent (unless given) and Accept-Encoding. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly signal?: AbortSignal;
  readonly timeouts: HttpTimeouts;
  /** The body is refused once more than this many bytes (after decompression) have arrived. */
  readonly maxBytes: number;
  /**
   * An origin the user configured for this caller (a search provider's base URL, e.g.
   * `http://127.0.0.1:8080`): a request to exactly this origin (scheme, host and port) may reach a
   * loopback or private address without network.allowPrivate. Every other origin is checked as
   * always, and no other caller gets the exemption.
   */
  readonly allowPrivateOrigin?: string;
}

export interface HttpResponse {
  /** The URL that answered: the request's own, redirects are never followed. */
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names; repeated headers joined with ", " (set-cookie with "\n"). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, decompressed (gzip, deflate, br). */
  readonly body: Buffer;
  /** Bytes as they came over the wire, before decompression. */
  readonly wireBytes: number;
}

export type HttpErrorCode =
  | 'invalid_url'
  | 'blocked'
  | 'dns'
  | 'connect'
  | 'connect_timeout'
  | 'headers_timeout'
  | 'body_timeout'
  | 'idle_timeout'
  | 'too_large'
  | 'bad_encoding'
  | 'proxy'
  | 'network';

/** A request that failed; the message says what happened, for the model. An abort rethrows the signal's reason instead. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    /** The host asked for. */
    readonly host: string,
    /** Body bytes received before the failure (after decompression). */
    readonly receivedBytes = 0,
  ) {
    super(message);
  }
}

/**
 * HTTP for tools (default: an undici Agent). Never follows redirects: a 3xx comes back as it is,
 * and the caller, which knows its approval rules, decides. Every host is resolved through
 * IDnsResolver and checked with INetworkPolicy, and the connection goes to the address checked,
 * so a second DNS answer cannot redirect it (DNS rebinding).
 */
export interface IHttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
}
export const IHttpClient = createServiceId<IHttpClient>('HttpClient');

/** What the extractor made of a page. */
export interface ExtractedDocument {
  readonly markdown: string;
  readonly title?: string;
  /** `main content (Readability)`, or `full page` when Readability found nothing or was not asked. */
  readonly extracted: 'main content (Readability)' | 'full page';
  /** Characters of visible text in the page, to tell a page that renders with JavaScript. */
  readonly textChars: number;
}

export interface HtmlToMarkdownOptions {
  /** Links and images are made absolute against it. */
  readonly baseUrl: string;
  /** Readability's main content (true), or the whole page. */
  readonly mainContent: boolean;
  /** The conversion is stopped (its worker ended) after this many milliseconds. */
  readonly deadlineMs: number;
  readonly signal?: AbortSignal;
}

export type ContentExtractorErrorCode = 'deadline' | 'failed';

export class ContentExtractorError extends Error {
  override readonly name = 'ContentExtractorError';
  constructor(
    readonly code: ContentExtractorErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Turns HTML into Markdown off the main thread (default: one warm worker thread, loaded on first
 * use, ended when a conversion passes its deadline and after 30 s idle).
 */
export interface IContentExtractor {
  /** Rejects with ContentExtractorError (deadline, failed), or the signal's reason on abort. */
  htmlToMarkdown(html: string, options: HtmlToMarkdownOptions): Promise<ExtractedDocument>;
}
export const IContentExtractor = createServiceId<IContentExtractor>('ContentExtractor');
