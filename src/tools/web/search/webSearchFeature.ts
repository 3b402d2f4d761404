import { Feature } from '../../../di/feature';
import { webSearchConfig } from './searchConfig';
import { IWebSearchService, WebSearchService } from './webSearchService';
import { webSearchTool } from './webSearchTool';

/**
 * WebSearch and its provider selection (config `webSearch`). Needs the web feature's IHttpClient;
 * a host may bind IWebSearchProvider in the App to use its own search engine.
 */
export function createWebSearchFeature(): Feature {
  return new Feature('webSearch')
    .contributeConfig(webSearchConfig)
    .bindApp(({ bind }) => bind(IWebSearchService).to(WebSearchService).inSingletonScope(), [IWebSearchService])
    .contributeTool(webSearchTool);
}
