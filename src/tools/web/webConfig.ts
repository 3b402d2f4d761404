import * as net from 'node:net';
import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

/** The web family's sections of toolhost.json: `network` (the guarded HTTP client) and `fetch` (FetchURL). */

/** An entry of network.allowPrivate: a CIDR range, one address, or a host name. */
export type AllowPrivateEntry =
  | { readonly kind: 'range'; readonly address: string; readonly prefix: number; readonly family: 'ipv4' | 'ipv6' }
  | { readonly kind: 'host'; readonly host: string };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Parses an allowPrivate entry; undefined when it is none of the three forms. */
export function parseAllowPrivateEntry(text: string): AllowPrivateEntry | undefined {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const address = slash >= 0 ? entry.slice(0, slash) : entry;
  const family = net.isIP(address);
  if (family !== 0) {
    const max = family === 4 ? 32 : 128;
    const prefixText = slash >= 0 ? entry.slice(slash + 1) : String(max);
    if (!/^\d{1,3}$/.test(prefixText)) return undefined;
    const prefix = Number(prefixText);
    if (prefix > max) return undefined;
    return { kind: 'range', address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
  }
  if (slash >= 0 || !HOST_NAME.test(entry)) return undefined;
  return { kind: 'host', host: entry.toLowerCase().replace(/\.$/, '') };
}

export const DEFAULT_CONNECT_TIMEOUT_S = 10;
export const DEFAULT_IDLE_TIMEOUT_S = 15;

export const NetworkConfigSchema = z.strictObject({
  allowPrivate: z
    .array(
      z.string().refine((entry) => parseAllowPrivateEntry(entry) !== undefined, {
        error: (issue) => `"${String(issue.input)}" is not a CIDR range (10.0.0.0/8, fd00::/8), an address (127.0.0.1) or a host name (intranet.local).`,
      }),
    )
    .default([])
    .describe(
      'Loopback, private, link-local, CGNAT and other non-public addresses are refused; these CIDR ranges, addresses or host names are allowed anyway (e.g. ["127.0.0.1/32", "intranet.local"]).',
    ),
  connectTimeoutS: z.number().int().min(1).max(120).default(DEFAULT_CONNECT_TIMEOUT_S).describe('Seconds to open a connection (TCP and TLS).'),
  idleTimeoutS: z.number().int().min(1).max(300).default(DEFAULT_IDLE_TIMEOUT_S).describe('A response that sends no bytes for this many seconds is given up.'),
  userAgent: z.string().min(1).optional().describe('The User-Agent header; default toolhost/<version>.'),
  maxConnectionsPerHost: z.number().int().min(1).max(64).default(4).describe('Concurrent connections to one origin; more requests wait.'),
  proxy: z
    .union([z.literal('direct'), z.url({ protocol: /^https?$/, error: 'give an http:// or https:// proxy URL, or "direct"' })])
    .optional()
    .describe('The HTTP proxy for every request (CONNECT tunnels), e.g. "http://proxy.example:3128"; "direct" ignores HTTPS_PROXY/HTTP_PROXY. Unset: those variables are used. Loopback targets never go through a proxy.'),
  noProxy: z
    .array(z.string().min(1))
    .optional()
    .describe('Hosts that connect directly, not through the proxy ("internal.example" covers its subdomains, "host:8080" one port, "*" every host). Unset: NO_PROXY.'),
});

export const DEFAULT_FETCH_CHARS = 30_000;

export const FetchConfigSchema = z
  .strictObject({
    maxChars: z.number().int().min(1_000).default(100_000).describe('The largest max_chars a FetchURL call may ask for.'),
    defaultChars: z.number().int().min(1_000).default(DEFAULT_FETCH_CHARS).describe('Characters returned when a call gives no max_chars.'),
    timeoutS: z.number().int().min(1).max(120).default(30).describe('Seconds to wait for the response headers, and again for the whole body, when a call gives no timeout.'),
    maxBytes: z.number().int().min(1_024).default(10 * 1024 * 1024).describe('A response body larger than this (after decompression) is refused while it streams.'),
    maxHtmlBytes: z.number().int().min(1_024).default(3 * 1024 * 1024).describe('HTML is cut to this size after scripts, styles and comments are removed, before conversion.'),
    convertTimeoutS: z.number().int().min(1).max(300).default(20).describe('Converting a page to Markdown is stopped after this many seconds.'),
    allowDomains: z
      .array(z.string().min(1))
      .default([])
      .describe('Hosts FetchURL may fetch without asking (a leading "*." covers subdomains). Redirects to them are followed.'),
    upgradeHttp: z.boolean().default(false).describe('Fetch http:// URLs as https://.'),
  })
  .refine((fetch) => fetch.defaultChars <= fetch.maxChars, { message: 'defaultChars must not be larger than maxChars', path: ['defaultChars'] });

export const networkConfig = defineConfigSection('network', NetworkConfigSchema.prefault({}));
export const fetchConfig = defineConfigSection('fetch', FetchConfigSchema.prefault({}));

export type NetworkConfig = z.output<typeof NetworkConfigSchema>;
export type FetchConfig = z.output<typeof FetchConfigSchema>;
