import { inject, injectable, optional } from 'inversify';
import { createServiceId } from '../../../di/serviceId';
import { IConfigService } from '../../../services/config/config';
import { type AppEnvironment, IAppEnvironment } from '../../../services/environment/environment';
import { IHttpClient } from '../contract';
import { braveAdapter } from './adapters/brave';
import { duckduckgoHtmlAdapter } from './adapters/duckduckgoHtml';
import { exaAdapter } from './adapters/exa';
import { searxngAdapter } from './adapters/searxng';
import { tavilyAdapter } from './adapters/tavily';
import { HttpSearchProvider } from './httpSearchProvider';
import type { SearchAdapter } from './searchAdapter';
import { type WebSearchConfig, type WebSearchProviderName, isKeyedProvider, webSearchConfig } from './searchConfig';
import { IWebSearchProvider } from './searchContract';

/** The adapters by the name config `webSearch.provider` gives. */
export const WEB_SEARCH_ADAPTERS: Readonly<Record<WebSearchProviderName, SearchAdapter>> = {
  brave: braveAdapter,
  tavily: tavilyAdapter,
  exa: exaAdapter,
  searxng: searxngAdapter,
  'duckduckgo-html': duckduckgoHtmlAdapter,
};

export const HOW_TO_ENABLE_WEB_SEARCH =
  'no search provider is configured: set webSearch.provider to "searxng" with webSearch.searxng.baseUrl (self-hosted, no key), or to "brave", "tavily" or "exa" with the API key in BRAVE_API_KEY, TAVILY_API_KEY or EXA_API_KEY';

export type WebSearchSelection = { readonly provider: IWebSearchProvider } | { readonly provider?: undefined; readonly inactiveReason: string };

/** Which provider WebSearch uses now: a host-bound IWebSearchProvider, else the adapter config names. */
export interface IWebSearchService {
  current(): WebSearchSelection;
}
export const IWebSearchService = createServiceId<IWebSearchService>('WebSearchService');

@injectable()
export class WebSearchService implements IWebSearchService {
  /** Rebuilt when the config section or the key changes (a reloaded config). */
  private cached: { readonly config: WebSearchConfig; readonly apiKey: string | undefined; readonly selection: WebSearchSelection } | undefined;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAppEnvironment) private readonly env: AppEnvironment,
    @inject(IHttpClient) private readonly http: IHttpClient,
    @inject(IWebSearchProvider) @optional() private readonly hostProvider: IWebSearchProvider | undefined,
  ) {}

  current(): WebSearchSelection {
    if (this.hostProvider) return { provider: this.hostProvider };
    const config = this.config.section(webSearchConfig);
    const apiKey = config.provider ? this.apiKey(config, config.provider) : undefined;
    if (this.cached?.config !== config || this.cached.apiKey !== apiKey) this.cached = { config, apiKey, selection: this.select(config, apiKey) };
    return this.cached.selection;
  }

  private apiKey(config: WebSearchConfig, name: WebSearchProviderName): string | undefined {
    if (!isKeyedProvider(name)) return undefined;
    const value = this.env[config[name].apiKeyEnv]?.trim();
    return value ? value : undefined;
  }

  private select(config: WebSearchConfig, apiKey: string | undefined): WebSearchSelection {
    const name = config.provider;
    if (name === undefined) return { inactiveReason: HOW_TO_ENABLE_WEB_SEARCH };
    const adapter = WEB_SEARCH_ADAPTERS[name];
    const timeoutMs = config.timeoutS * 1000;
    if (isKeyedProvider(name)) {
      const { apiKeyEnv, baseUrl } = config[name];
      if (apiKey === undefined) return { inactiveReason: `webSearch.provider is "${name}" but the environment variable ${apiKeyEnv} (webSearch.${name}.apiKeyEnv) is not set: put the API key there` };
      return { provider: new HttpSearchProvider(adapter, { baseUrl, apiKey }, this.http, timeoutMs) };
    }
    // The schema requires searxng.baseUrl when searxng is chosen.
    const baseUrl = name === 'searxng' ? config.searxng.baseUrl! : config['duckduckgo-html'].baseUrl;
    return { provider: new HttpSearchProvider(adapter, { baseUrl }, this.http, timeoutMs) };
  }
}
