import { injectable } from 'inversify';
import type { IDnsResolver, ResolvedAddress } from '../contract';
import { nodeBuiltins } from '../../../base/nodeBuiltins';

/** node:dns lookup with all: true: the system resolver, so /etc/hosts and search domains apply. */
@injectable()
export class SystemDnsResolver implements IDnsResolver {
  async lookup(host: string): Promise<readonly ResolvedAddress[]> {
    const found = await nodeBuiltins.dns().promises.lookup(host, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
}
