import { TextDecoder } from 'node:util';
import { z } from 'zod';
import { formatBytes } from '../../../base/strings';
import { matchTextRule } from '../../../tool/ruleMatch';

export const FETCH_URL_NAME = 'FetchURL';

export const FETCH_FORMATS = ['markdown', 'full', 'raw'] as const;
export type FetchFormat = (typeof FETCH_FORMATS)[number];

export const MAX_REDIRECTS = 10;
/** The most of an error response's body shown with the error. */
export const ERROR_BODY_CHARS = 2_000;
/** JSON up to this size is pretty-printed. */
export const PRETTY_JSON_MAX_CHARS = 1_000_000;
/** Fewer characters of text than this in a page with scripts: it probably renders with JavaScript. */
export const SCRIPT_PAGE_TEXT_CHARS = 500;

export const FetchUrlInputSchema = z.object({
  url: z.string().min(1).describe('The http(s) URL to fetch, e.g. "https://nodejs.org/api/fs.html".'),
  format: z
    .enum(FETCH_FORMATS)
    .optional()
    .describe('markdown (default): the main content of an HTML page as Markdown (navigation, ads and footers left out); full: the whole page as Markdown; raw: the body as received (text types only). Text, Markdown and JSON are returned as they are in every format.'),
  offset: z.number().int().min(0).optional().describe('Characters into the converted document to start at; use the next_offset of the previous call to read on. Paging reuses the fetched document.'),
  max_chars: z.number().int().min(1_000).optional().describe('Characters to return (default from config fetch.defaultChars; at most fetch.maxChars).'),
  timeout: z.number().int().min(1).max(120).optional().describe('Seconds to wait for the response headers, and again for the body (default fetch.timeoutS).'),
});
export type FetchUrlInput = z.infer<typeof FetchUrlInputSchema>;

export const FETCH_URL_SAMPLES: readonly unknown[] = [
  { url: 'https://nodejs.org/api/fs.html' },
  { url: 'https://example.com/data.json', format: 'raw', offset: 30_000, max_chars: 10_000, timeout: 10 },
];

/** `FetchURL(domain:<host>)` rules name hosts; a `*` in the pattern matches any text (`*.example.com`). */
export const DOMAIN_RULE_PREFIX = 'domain:';

/**
 * Whether a rule's argument part covers a URL: `domain:<host glob>` compares the host (case
 * insensitive), anything else is a glob over the whole URL.
 */
export function fetchRuleCovers(ruleArgs: string, url: URL): boolean {
  const trimmed = ruleArgs.trim();
  const negated = trimmed.startsWith('!');
  const body = negated ? trimmed.slice(1).trim() : trimmed;
  if (body.toLowerCase().startsWith(DOMAIN_RULE_PREFIX)) {
    const pattern = body.slice(DOMAIN_RULE_PREFIX.length).trim().toLowerCase();
    const matched = matchTextRule(pattern, url.hostname.toLowerCase());
    return negated ? !matched : matched;
  }
  return matchTextRule(trimmed, url.href);
}

/** Whether config fetch.allowDomains pre-approves a host (`example.com`, or `*.example.com` for its subdomains). */
export function allowedDomain(allowDomains: readonly string[], host: string): boolean {
  const name = host.toLowerCase();
  return allowDomains.some((entry) => {
    const pattern = entry.trim().toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/** Parses the URL of a call, or says what is wrong with it. */
export function parseFetchUrl(text: string, upgradeHttp: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch (error) {
    return `Invalid URL "${text}": ${(error as Error).message.replace(/^Invalid URL:?\s*/i, '') || 'it cannot be parsed'}. Give an absolute http(s) URL such as https://example.com/page.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Only http and https URLs can be fetched (got ${url.protocol}).`;
  if (url.username !== '' || url.password !== '') return `Refusing a URL with a user name or password in it ("${url.protocol}//…@${url.host}"): credentials in URLs leak into logs; remove them.`;
  if (upgradeHttp && url.protocol === 'http:') url.protocol = 'https:';
  url.hash = '';
  return url;
}

const STRIPPED_ELEMENTS = ['script', 'style', 'noscript', 'svg', 'template'] as const;

/**
 * Removes scripts, styles, noscript, svg, template elements and comments from HTML in one linear
 * pass (a regular expression with a lazy body would rescan after each unclosed tag). An element
 * that is never closed is cut to the end.
 */
export function stripHtml(html: string): { readonly html: string; readonly hadScripts: boolean } {
  const lower = html.toLowerCase();
  const out: string[] = [];
  let at = 0;
  let hadScripts = false;
  for (let open = lower.indexOf('<', at); open >= 0; open = lower.indexOf('<', at)) {
    if (lower.startsWith('<!--', open)) {
      const close = lower.indexOf('-->', open + 4);
      out.push(html.slice(at, open));
      at = close < 0 ? html.length : close + 3;
      continue;
    }
    const name = STRIPPED_ELEMENTS.find((tag) => lower.startsWith(tag, open + 1) && /[\s/>]/.test(lower[open + 1 + tag.length] ?? '>'));
    if (!name) {
      out.push(html.slice(at, open + 1));
      at = open + 1;
      continue;
    }
    if (name === 'script') hadScripts = true;
    const close = lower.indexOf(`</${name}`, open + 1 + name.length);
    out.push(html.slice(at, open));
    if (close < 0) {
      at = html.length;
      break;
    }
    const end = lower.indexOf('>', close);
    at = end < 0 ? html.length : end + 1;
  }
  out.push(html.slice(at));
  return { html: out.join(''), hadScripts };
}

/** What a content type is to FetchURL. */
export type ContentKind = 'html' | 'json' | 'text' | 'unsupported';

export function contentKind(contentType: string | undefined, body: Buffer): ContentKind {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'application/json' || mime.endsWith('+json')) return 'json';
  if (mime.startsWith('text/') || mime === 'application/xml' || mime.endsWith('+xml') || mime === 'application/javascript' || mime === 'application/x-ndjson' || mime === 'application/yaml' || mime === 'application/toml') {
    return 'text';
  }
  if (mime === '' || mime === 'application/octet-stream') {
    // No useful type: text if it decodes as text; HTML if it looks like it.
    const head = body.subarray(0, 4096);
    if (head.includes(0)) return 'unsupported';
    const start = head.toString('utf8').trimStart().toLowerCase();
    return start.startsWith('<!doctype html') || start.startsWith('<html') ? 'html' : 'text';
  }
  return 'unsupported';
}

/** The body as text, in the charset the content type names (UTF-8 otherwise). */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}

/** JSON pretty-printed when it parses and is not too large; otherwise as it came. */
export function prettyJson(text: string): string {
  if (text.length > PRETTY_JSON_MAX_CHARS) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function scriptPageWarning(textChars: number, htmlBytes: number): string {
  return `only ${textChars} characters of text in ${formatBytes(htmlBytes)} of HTML; the page probably renders with JavaScript. Try another source (an API, a raw file, a cached or text version).`;
}

/** A page of `text` from `offset`, not splitting a surrogate pair. */
export function pageOf(text: string, offset: number, maxChars: number): { readonly text: string; readonly end: number } {
  let end = Math.min(text.length, offset + maxChars);
  if (end < text.length && end > offset && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return { text: text.slice(offset, end), end };
}
