// The web family's public surface (`toolhost/tools/web`).
export { createWebToolsFeature } from './webFeature';
export {
  ContentExtractorError,
  type ContentExtractorErrorCode,
  type ExtractedDocument,
  type HtmlToMarkdownOptions,
  HttpError,
  type HttpErrorCode,
  type HttpMethod,
  type HttpRequest,
  type HttpResponse,
  type HttpTimeouts,
  IContentExtractor,
  IDnsResolver,
  IHttpClient,
  INetworkPolicy,
  type NetworkVerdict,
  type ResolvedAddress,
} from './contract';
export { WorkerContentExtractor, EXTRACTOR_IDLE_MS } from './extract/contentExtractor';
export { SystemDnsResolver } from './http/dnsResolver';
export { NetworkPolicy, blockedCategory } from './http/networkPolicy';
export { UndiciHttpClient, IHttpClientTlsOptions, type HttpClientTlsOptions } from './http/undiciHttpClient';
export { NetworkConfigSchema, networkConfig, type NetworkConfig, parseAllowPrivateEntry, type AllowPrivateEntry } from './webConfig';
export * from './search';
