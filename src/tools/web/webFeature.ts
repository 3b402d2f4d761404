import { Feature } from '../../di/feature';
import { IDnsResolver, IHttpClient, INetworkPolicy } from './contract';
import { SystemDnsResolver } from './http/dnsResolver';
import { NetworkPolicy } from './http/networkPolicy';
import { UndiciHttpClient } from './http/undiciHttpClient';
import { networkConfig } from './webConfig';

/** The web tools and their ports: the guarded HTTP client, the network policy and the DNS resolver. */
export function createWebToolsFeature() {
  return new Feature('web')
    .contributeConfig(networkConfig)
    .bindApp(
      ({ bind }) => {
        bind(IDnsResolver).to(SystemDnsResolver).inSingletonScope();
        bind(INetworkPolicy).to(NetworkPolicy).inSingletonScope();
        bind(IHttpClient).to(UndiciHttpClient).inSingletonScope();
      },
      [IDnsResolver, INetworkPolicy, IHttpClient],
    );
}
