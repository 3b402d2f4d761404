import { Feature } from '../../di/feature';
import { IContentExtractor, IDnsResolver, IHttpClient, INetworkPolicy } from './contract';
import { WorkerContentExtractor } from './extract/contentExtractor';
import { SystemDnsResolver } from './http/dnsResolver';
import { NetworkPolicy } from './http/networkPolicy';
import { UndiciHttpClient } from './http/undiciHttpClient';
import { fetchUrlTool } from './fetch/fetchUrlTool';
import { fetchConfig, networkConfig } from './webConfig';

/** The web tools (FetchURL) and their ports: the guarded HTTP client, the network policy, the DNS resolver and the content extractor. */
export function createWebToolsFeature() {
  return new Feature('web')
    .contributeConfig(networkConfig)
    .contributeConfig(fetchConfig)
    .bindApp(
      ({ bind }) => {
        bind(IDnsResolver).to(SystemDnsResolver).inSingletonScope();
        bind(INetworkPolicy).to(NetworkPolicy).inSingletonScope();
        bind(IHttpClient).to(UndiciHttpClient).inSingletonScope();
        bind(IContentExtractor).to(WorkerContentExtractor).inSingletonScope();
      },
      [IDnsResolver, INetworkPolicy, IHttpClient, IContentExtractor],
    )
    .contributeTool(fetchUrlTool);
}
