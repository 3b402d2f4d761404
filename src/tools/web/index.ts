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
export { FetchUrlTool, IFetchUrlTool, fetchUrlTool } from './fetch/fetchUrlTool';
export { FETCH_URL_NAME, FETCH_FORMATS, type FetchFormat, FetchUrlInputSchema, type FetchUrlInput } from './fetch/fetchUrl';
export { SystemDnsResolver } from './http/dnsResolver';
export { NetworkPolicy, blockedCategory } from './http/networkPolicy';
export { UndiciHttpClient, IHttpClientTlsOptions, type HttpClientTlsOptions } from './http/undiciHttpClient';
export { FetchConfigSchema, fetchConfig, type FetchConfig, NetworkConfigSchema, networkConfig, type NetworkConfig, parseAllowPrivateEntry, type AllowPrivateEntry } from './webConfig';
export * from './search';
