// WebSearch's public surface, re-exported by `toolhost/tools/web`.
export { createWebSearchFeature } from './webSearchFeature';
export { WebSearchTool, IWebSearchTool, webSearchTool, WebSearchInputSchema, type WebSearchInput, type WebSearchOutput, WEB_SEARCH_NAME } from './webSearchTool';
export {
  IWebSearchProvider,
  WebSearchError,
  type WebSearchErrorCode,
  type WebSearchCapabilities,
  type WebSearchQuery,
  type WebSearchResponse,
  type WebSearchResult,
  type SearchRecency,
} from './searchContract';
export { IWebSearchService, type WebSearchSelection, WEB_SEARCH_ADAPTERS } from './webSearchService';
export { HttpSearchProvider } from './httpSearchProvider';
export type { SearchAdapter, SearchAdapterSettings, SearchHttpRequest, AdapterQuery } from './searchAdapter';
export { WebSearchConfigSchema, webSearchConfig, type WebSearchConfig, WEB_SEARCH_PROVIDERS, type WebSearchProviderName } from './searchConfig';
