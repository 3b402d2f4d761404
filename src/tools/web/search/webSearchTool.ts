import { inject, injectable } from 'inversify';
import { z } from 'zod';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule } from '../../../tool/ruleMatch';
import { UNTRUSTED_METADATA, wrapUntrusted } from '../../../tool/untrustedContent';
import { filterByDomain, normalizeDomain } from './domainFilter';
import { type IWebSearchProvider, WebSearchError, type WebSearchResult } from './searchContract';
import { IWebSearchService } from './webSearchService';

export const WEB_SEARCH_NAME = 'WebSearch';
export const DEFAULT_SEARCH_COUNT = 8;
const MAX_DOMAINS = 20;

const DomainList = z.array(z.string().min(1).max(253)).max(MAX_DOMAINS);

export const WebSearchInputSchema = z.strictObject({
  query: z.string().min(2).max(400).describe('What to search for, as typed into a search box (2–400 characters).'),
  count: z.number().int().min(1).max(20).optional().describe(`How many results, 1–20 (default ${DEFAULT_SEARCH_COUNT}).`),
  allowed_domains: DomainList.optional().describe('Only results from these sites (subdomains included), e.g. ["docs.python.org"]; at most 20. Not with blocked_domains.'),
  blocked_domains: DomainList.optional().describe('No results from these sites (subdomains included); at most 20. Not with allowed_domains.'),
  recency: z.enum(['day', 'week', 'month', 'year']).optional().describe('Only results from the last day, week, month or year.'),
});
export type WebSearchInput = z.infer<typeof WebSearchInputSchema>;

export const WEB_SEARCH_SAMPLES: readonly unknown[] = [
  { query: 'node.js AbortSignal.any' },
  { query: 'undici Agent connect lookup', count: 5, allowed_domains: ['github.com', 'undici.nodejs.org'], recency: 'year' },
  { query: 'zod 4 strictObject', blocked_domains: ['*.pinterest.com'] },
];

const PARAMETERS = toInputJsonSchema(WebSearchInputSchema);

/** The structured form of a search result (and the fields the text shows). */
export interface WebSearchOutput {
  readonly provider: string;
  readonly query: string;
  readonly results: readonly WebSearchResult[];
  /** What the provider could not do and the tool did instead, or what it could not do at all. */
  readonly notes: readonly string[];
}

function domainsOf(entries: readonly string[] | undefined, field: string): readonly string[] | string {
  const domains: string[] = [];
  for (const entry of entries ?? []) {
    const domain = normalizeDomain(entry);
    if (domain === undefined) return `Invalid ${field}: "${entry}" is not a host name. Give bare host names like "example.com" (no scheme, path or port).`;
    if (!domains.includes(domain)) domains.push(domain);
  }
  return domains;
}

/** The numbered blocks of the results, as the model reads them. */
function resultLines(results: readonly WebSearchResult[]): string {
  return results
    .map((r, i) => [`${i + 1}. ${r.title}`, `   url: ${r.url}`, ...(r.date ? [`   date: ${r.date}`] : []), ...(r.site ? [`   site: ${r.site}`] : []), ...(r.snippet ? [`   snippet: ${r.snippet}`] : [])].join('\n'))
    .join('\n\n');
}

export const CITE_LINE = 'Cite sources as [title](url); fetch a page with FetchURL for details.';

export function formatSearchOutput(output: WebSearchOutput): string {
  const header = [`provider: ${output.provider}`, `query: ${output.query}`, `results: ${output.results.length}`, ...output.notes.map((n) => `note: ${n}`)].join('\n');
  if (output.results.length === 0) return `${header}\n\nNo results for ${JSON.stringify(output.query)}.`;
  return `${header}\n\n${wrapUntrusted(resultLines(output.results), `search:${output.provider}`)}\n\n${CITE_LINE}`;
}

interface ResolvedSearch {
  readonly query: string;
  readonly count: number;
  readonly allowedDomains: readonly string[];
  readonly blockedDomains: readonly string[];
  readonly recency?: WebSearchInput['recency'];
}

@injectable()
export class WebSearchTool implements ExecutableTool<WebSearchInput> {
  readonly name = WEB_SEARCH_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };

  constructor(@inject(IWebSearchService) private readonly service: IWebSearchService) {}

  get description(): string {
    return renderPrompt(loadDescriptionTemplate(__dirname, 'webSearch.md'), {});
  }

  resolveExecution(input: WebSearchInput): ToolExecution {
    const query = input.query.replace(/\s+/g, ' ').trim();
    if (query.length < 2) return toolError('The query is blank: give the words to search for.');
    if (input.allowed_domains?.length && input.blocked_domains?.length) {
      return toolError('Give allowed_domains or blocked_domains, not both: allowed_domains already leaves every other site out.');
    }
    const allowedDomains = domainsOf(input.allowed_domains, 'allowed_domains');
    if (typeof allowedDomains === 'string') return toolError(allowedDomains);
    const blockedDomains = domainsOf(input.blocked_domains, 'blocked_domains');
    if (typeof blockedDomains === 'string') return toolError(blockedDomains);
    const search: ResolvedSearch = { query, count: input.count ?? DEFAULT_SEARCH_COUNT, allowedDomains, blockedDomains, ...(input.recency ? { recency: input.recency } : {}) };
    return {
      accesses: [ToolAccesses.network()],
      approvalRule: literalRule(WEB_SEARCH_NAME, query),
      description: `Searching the web for "${query}"`,
      display: { kind: 'generic', summary: `Searching the web for "${query}"` },
      execute: (ctx) => this.search(search, ctx.signal),
    };
  }

  private async search(search: ResolvedSearch, signal: AbortSignal): Promise<ToolResult> {
    const selection = this.service.current();
    if (!selection.provider) return toolError(`WebSearch cannot run: ${selection.inactiveReason}.`);
    const provider: IWebSearchProvider = selection.provider;
    const { capabilities } = provider;
    const filtered = search.allowedDomains.length > 0 || search.blockedDomains.length > 0;
    const localDomains = filtered && !capabilities.domainFilters;
    try {
      // Filtering locally keeps fewer results than asked for: ask for as many as the provider gives.
      const asked = localDomains ? capabilities.maxCount : Math.min(search.count, capabilities.maxCount);
      const response = await provider.search({ ...search, count: asked, signal });
      // Applied to every answer: a provider that says it filters is checked too.
      const kept = filterByDomain(response.results, search.allowedDomains, search.blockedDomains);
      const notes: string[] = [];
      if (localDomains) notes.push(`provider ${response.provider} ignores domain filters; applied to the result URLs (${response.results.length - kept.length} of ${response.results.length} dropped)`);
      else if (kept.length < response.results.length) notes.push(`${response.results.length - kept.length} results outside the domain filters were dropped`);
      if (search.recency && !capabilities.recency) notes.push(`provider ${response.provider} ignores recency; results may be older than a ${search.recency}`);
      const output: WebSearchOutput = { provider: response.provider, query: search.query, results: kept.slice(0, search.count), notes };
      return { output: formatSearchOutput(output), structuredContent: output, metadata: UNTRUSTED_METADATA };
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof WebSearchError) {
        return toolError(error.message, { structuredContent: { provider: error.provider, error: error.code, ...(error.status !== undefined ? { status: error.status } : {}), ...(error.retryAfterS !== undefined ? { retry_after_s: error.retryAfterS } : {}) } });
      }
      throw error;
    }
  }
}

export const IWebSearchTool = createServiceId<WebSearchTool>('tool.WebSearch');
export const webSearchTool = registerAgentToolService(IWebSearchTool, WebSearchTool, {
  name: WEB_SEARCH_NAME,
  domain: 'web',
  requiredRuntimeCapabilities: [],
  // The user chose and configured the provider; approval.ask: ["WebSearch"] makes it ask.
  approval: 'auto',
  samples: WEB_SEARCH_SAMPLES,
  // Inactive until a provider is configured (or a host binds one): a scraper is never the silent default.
  when: (accessor) => accessor.get(IWebSearchService).current().provider !== undefined,
  inactiveReason: (accessor) => {
    const selection = accessor.get(IWebSearchService).current();
    return selection.provider ? 'active' : selection.inactiveReason;
  },
});
