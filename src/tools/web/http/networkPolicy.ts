import { inject, injectable } from 'inversify';
import * as net from 'node:net';
import { IConfigService } from '../../../services/config/config';
import type { INetworkPolicy, NetworkVerdict, ResolvedAddress } from '../contract';
import { networkConfig, parseAllowPrivateEntry } from '../webConfig';

type Family = 'ipv4' | 'ipv6';

/** The ranges refused by default, each with what it is called in the refusal. */
const BLOCKED_RANGES: readonly (readonly [string, number, Family, string])[] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (CGNAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved (IETF protocol) address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a reserved (benchmarking) address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

/** One BlockList per category, so a refusal can say what the address is (BlockList treats IPv4-mapped IPv6 under the IPv4 rules). */
const BLOCKED: readonly { readonly list: net.BlockList; readonly category: string }[] = (() => {
  const byCategory = new Map<string, net.BlockList>();
  for (const [address, prefix, family, category] of BLOCKED_RANGES) {
    let list = byCategory.get(category);
    if (!list) byCategory.set(category, (list = new net.BlockList()));
    list.addSubnet(address, prefix, family);
  }
  return [...byCategory].map(([category, list]) => ({ list, category }));
})();

function familyOf(address: string): Family | undefined {
  const family = net.isIP(address);
  return family === 4 ? 'ipv4' : family === 6 ? 'ipv6' : undefined;
}

/** Allowed hosts and ranges, built once per allowPrivate value. */
interface AllowList {
  readonly hosts: ReadonlySet<string>;
  readonly ranges: net.BlockList;
}

function buildAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges = new net.BlockList();
  for (const text of entries) {
    const entry = parseAllowPrivateEntry(text);
    if (entry?.kind === 'host') hosts.add(entry.host);
    else if (entry?.kind === 'range') ranges.addSubnet(entry.address, entry.prefix, entry.family);
  }
  return { hosts, ranges };
}

/** What kind of non-public address this is, or undefined for a public one. */
export function blockedCategory(address: string): string | undefined {
  const family = familyOf(address);
  if (!family) return 'not an IP address';
  return BLOCKED.find((b) => b.list.check(address, family))?.category;
}

/** The default policy: BLOCKED_RANGES refused, config network.allowPrivate allowed. */
@injectable()
export class NetworkPolicy implements INetworkPolicy {
  private allow: { readonly source: readonly string[]; readonly list: AllowList } | undefined;

  constructor(@inject(IConfigService) private readonly config: IConfigService) {}

  check(host: string, addresses: readonly ResolvedAddress[]): NetworkVerdict {
    const allow = this.allowList();
    if (allow.hosts.has(host.toLowerCase().replace(/\.$/, ''))) return { allowed: true };
    for (const { address } of addresses) {
      const category = blockedCategory(address);
      if (category === undefined) continue;
      const family = familyOf(address);
      if (family && allow.ranges.check(address, family)) continue;
      return { allowed: false, address, category };
    }
    return { allowed: true };
  }

  private allowList(): AllowList {
    const source = this.config.section(networkConfig).allowPrivate;
    // The config may be reloaded: rebuild when the array changes.
    if (this.allow?.source !== source) this.allow = { source, list: buildAllowList(source) };
    return this.allow.list;
  }
}
