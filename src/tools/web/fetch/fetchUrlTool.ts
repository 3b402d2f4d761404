import { UNTRUSTED_METADATA, wrapUntrusted } from '../../../tool/untrustedContent';
import { inject, injectable } from 'inversify';
import { formatBytes, formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IAgentToolApprovalService } from '../../../services/approval/toolApproval';
import { IConfigService } from '../../../services/config/config';
import { ToolAccesses } from '../../../tool/accesses';
import { type ExecutableTool, type JsonSchema, type RunnableToolExecution, type ToolAnnotations, type ToolExecution, type ToolResult, toolError, isToolErrorResult } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { renderPrompt } from '../../../tool/renderPrompt';
import { ContentExtractorError, HttpError, type HttpResponse, IContentExtractor, IHttpClient } from '../contract';
import { fetchConfig, type FetchConfig } from '../webConfig';
import { DocumentCache, type FetchedDocument } from './documentCache';
import {
  DOMAIN_RULE_PREFIX,
  ERROR_BODY_CHARS,
  FETCH_URL_NAME,
  FETCH_URL_SAMPLES,
  type FetchUrlInput,
  FetchUrlInputSchema,
  MAX_REDIRECTS,
  SCRIPT_PAGE_TEXT_CHARS,
  allowedDomain,
  contentKind,
  decodeText,
  fetchRuleCovers,
  pageOf,
  parseFetchUrl,
  prettyJson,
  scriptPageWarning,
  stripHtml,
} from './fetchUrl';

const PARAMETERS = toInputJsonSchema(FetchUrlInputSchema);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5';

/** How a redirect hop ended: followed, stopped for approval, or refused by a rule. */
type HopDecision = { readonly kind: 'follow' } | { readonly kind: 'stop' } | { readonly kind: 'deny'; readonly rule: string };

/** A fetch that ended before there was a document: the result to return as it is. */
class FetchStop {
  constructor(readonly result: ToolResult) {}
}

@injectable()
export class FetchUrlTool implements ExecutableTool<FetchUrlInput> {
  readonly name = FETCH_URL_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
  /** Per agent: another agent's approvals do not cover what this one has fetched. */
  private readonly cache = new DocumentCache();

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IHttpClient) private readonly http: IHttpClient,
    @inject(IContentExtractor) private readonly extractor: IContentExtractor,
    @inject(IAgentToolApprovalService) private readonly approval: IAgentToolApprovalService,
  ) {}

  get description(): string {
    const fetch = this.config.section(fetchConfig);
    return renderPrompt(loadDescriptionTemplate(__dirname, 'fetchUrl.md'), {
      DEFAULT_CHARS: formatCount(fetch.defaultChars),
      MAX_CHARS: formatCount(fetch.maxChars),
      TIMEOUT_S: String(fetch.timeoutS),
      MAX_BYTES: formatBytes(fetch.maxBytes),
    });
  }

  resolveExecution(input: FetchUrlInput): ToolExecution {
    const settings = this.config.section(fetchConfig);
    const url = parseFetchUrl(input.url, settings.upgradeHttp);
    if (typeof url === 'string') return toolError(url);
    if (input.max_chars !== undefined && input.max_chars > settings.maxChars) {
      return toolError(`max_chars ${input.max_chars} is more than fetch.maxChars (${settings.maxChars}); ask for at most ${settings.maxChars} and page on with offset.`);
    }
    const host = url.hostname.toLowerCase();
    return {
      accesses: [ToolAccesses.network()],
      approvalRule: `${FETCH_URL_NAME}(${DOMAIN_RULE_PREFIX}${host})`,
      // Egress can leak data through the URL itself: ask, unless config pre-approves the host.
      approval: allowedDomain(settings.allowDomains, host) ? 'auto' : 'ask',
      matchesRule: (ruleArgs) => fetchRuleCovers(ruleArgs, url),
      description: `Fetching ${url.href}`,
      display: { kind: 'url_fetch', url: url.href, method: 'GET' },
      execute: (ctx) => this.fetch(input, url, ctx.toolCallId, ctx.signal),
    };
  }

  private async fetch(input: FetchUrlInput, url: URL, toolCallId: string, signal: AbortSignal): Promise<ToolResult> {
    const settings = this.config.section(fetchConfig);
    const maxChars = input.max_chars ?? settings.defaultChars;
    const key = `${input.format ?? 'markdown'}\u0000${url.href}`;
    let document = this.cache.get(key);
    if (!document) {
      try {
        document = await this.load(input, url, settings, toolCallId, signal);
      } catch (error) {
        if (error instanceof FetchStop) return error.result;
        throw error;
      }
      this.cache.set(key, document);
    }
    return this.page(document, input.offset ?? 0, maxChars);
  }

  private page(document: FetchedDocument, offset: number, maxChars: number): ToolResult {
    const total = document.text.length;
    if (offset > 0 && offset >= total) {
      return toolError(`offset ${offset} is past the end of the document (${total} characters); use an offset below ${total}.`);
    }
    const { text, end } = pageOf(document.text, offset, maxChars);
    const header: [string, string | number][] = [
      ['url', document.url],
      ['status', document.status],
      ['content_type', document.contentType],
    ];
    if (document.title) header.push(['title', document.title]);
    header.push(['extracted', document.extracted], ['chars', `${offset}-${end} of ${total}`]);
    if (end < total) header.push(['next_offset', end]);
    for (const warning of document.warnings) header.push(['warning', warning]);
    const output = `${header.map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${wrapUntrusted(text, document.url)}`;
    return {
      output,
      spillExempt: true,
      metadata: UNTRUSTED_METADATA,
      structuredContent: {
        url: document.url,
        status: document.status,
        content_type: document.contentType,
        ...(document.title ? { title: document.title } : {}),
        extracted: document.extracted,
        offset,
        end,
        total_chars: total,
        ...(end < total ? { next_offset: end } : {}),
        warnings: document.warnings,
        content: text,
      },
    };
  }

  /** Fetches, following redirects by hand, and converts the body. */
  private async load(input: FetchUrlInput, start: URL, settings: FetchConfig, toolCallId: string, signal: AbortSignal): Promise<FetchedDocument> {
    const format = input.format ?? 'markdown';
    const timeoutS = input.timeout ?? settings.timeoutS;
    let url = start;
    let response: HttpResponse;
    for (let hops = 0; ; hops++) {
      response = await this.request(url, timeoutS, settings, signal);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.location : undefined;
      if (location === undefined) break;
      if (hops >= MAX_REDIRECTS) throw new FetchStop(toolError(`Too many redirects (${MAX_REDIRECTS}), the last from ${url.href} to ${location}.`));
      const next = parseFetchUrl(new URL(location, url).href, false);
      if (typeof next === 'string') throw new FetchStop(toolError(`${url.host} redirected to an address FetchURL cannot follow: ${next}`));
      const decision = this.hopDecision(input, url, next, toolCallId, signal);
      if (decision.kind === 'deny') {
        throw new FetchStop(toolError(`${url.host} redirected to ${next.href}, which the approval rule "${decision.rule}" (config approval.deny) refuses. Do not retry.`));
      }
      if (decision.kind === 'stop') {
        const output = `url: ${url.href}\nstatus: ${response.status}\nredirect: ${next.href} — call ${FETCH_URL_NAME} with this URL to continue.`;
        throw new FetchStop({ output, structuredContent: { url: url.href, status: response.status, redirect: next.href } });
      }
      url = next;
    }
    const host = url.host;
    const contentType = response.headers['content-type'] ?? '';
    const mime = contentType.split(';')[0]!.trim().toLowerCase() || 'unknown';
    if (response.status >= 400) {
      const statusText = response.statusText ? ` ${response.statusText}` : '';
      const body = decodeText(response.body.subarray(0, ERROR_BODY_CHARS * 4), contentType);
      const shown = contentKind(contentType, response.body) === 'html' ? stripHtml(body).html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim() : body.trim();
      const excerpt = shown.slice(0, ERROR_BODY_CHARS);
      throw new FetchStop(toolError(`${host} answered ${response.status}${statusText}.${excerpt ? `\n\n${wrapUntrusted(excerpt, url.href)}` : ''}`, { metadata: UNTRUSTED_METADATA }));
    }
    const kind = contentKind(contentType, response.body);
    const base = { url: url.href, status: response.status, contentType: mime };
    if (kind === 'unsupported') {
      throw new FetchStop(toolError(`${mime} cannot be shown; FetchURL returns web pages, text and JSON.`));
    }
    const text = decodeText(response.body, contentType);
    if (kind === 'json') return { ...base, extracted: format === 'raw' ? 'as received' : 'as received (JSON pretty-printed)', text: format === 'raw' ? text : prettyJson(text), warnings: [] };
    if (kind === 'text' || format === 'raw') return { ...base, extracted: 'as received', text, warnings: [] };
    const warnings: string[] = [];
    const stripped = stripHtml(text);
    let html = stripped.html;
    if (html.length > settings.maxHtmlBytes) {
      html = html.slice(0, settings.maxHtmlBytes);
      warnings.push(`the HTML was cut to ${formatBytes(settings.maxHtmlBytes)} (fetch.maxHtmlBytes) before conversion; the end of the page is missing.`);
    }
    let extracted;
    try {
      extracted = await this.extractor.htmlToMarkdown(html, { baseUrl: url.href, mainContent: format === 'markdown', deadlineMs: settings.convertTimeoutS * 1000, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof ContentExtractorError && error.code === 'deadline') {
        throw new FetchStop(toolError(`${error.message.replace(/\.$/, '')} (fetch.convertTimeoutS); try format "raw".`));
      }
      if (error instanceof ContentExtractorError) throw new FetchStop(toolError(`${error.message} Try format "raw".`));
      throw error;
    }
    if (extracted.textChars < SCRIPT_PAGE_TEXT_CHARS && stripped.hadScripts) warnings.unshift(scriptPageWarning(extracted.textChars, response.body.length));
    return { ...base, ...(extracted.title ? { title: extracted.title } : {}), extracted: extracted.extracted, text: extracted.markdown, warnings };
  }

  private async request(url: URL, timeoutS: number, settings: FetchConfig, signal: AbortSignal): Promise<HttpResponse> {
    try {
      return await this.http.request({ url, headers: { accept: ACCEPT }, signal, timeouts: { headersMs: timeoutS * 1000, bodyMs: timeoutS * 1000 }, maxBytes: settings.maxBytes });
    } catch (error) {
      if (signal.aborted) throw error;
      if (!(error instanceof HttpError)) throw error;
      throw new FetchStop(toolError(this.errorText(error, settings)));
    }
  }

  private errorText(error: HttpError, settings: FetchConfig): string {
    switch (error.code) {
      case 'headers_timeout':
        return `${error.message} Try again, raise timeout (max 120), or use another source.`;
      case 'body_timeout':
        return `${error.message} Raise timeout (max 120), or use another source.`;
      case 'too_large':
        return `The response is larger than ${formatBytes(settings.maxBytes)} (fetch.maxBytes).`;
      default:
        return error.message;
    }
  }

  /**
   * Whether a redirect is followed: every hop is checked against the approval rules as a call of
   * its own. A deny rule refuses it; a hop on the same host is followed; one to another host only
   * when a rule, a session grant or fetch.allowDomains already covers it (no second prompt mid-call).
   */
  private hopDecision(input: FetchUrlInput, from: URL, to: URL, toolCallId: string, signal: AbortSignal): HopDecision {
    const args = { ...input, url: to.href };
    const execution = this.resolveExecution(args);
    if (isToolErrorResult(execution)) return { kind: 'stop' };
    const runnable: RunnableToolExecution = execution;
    const decision = this.approval.evaluate({
      toolCallId,
      name: FETCH_URL_NAME,
      args,
      tool: this,
      source: 'builtin',
      execution: runnable,
      defaultApproval: 'ask',
      accesses: runnable.accesses ?? [ToolAccesses.network()],
      batch: [],
      signal,
    });
    if (decision.kind === 'deny') return { kind: 'deny', rule: decision.rule };
    if (to.hostname.toLowerCase() === from.hostname.toLowerCase()) return { kind: 'follow' };
    return decision.kind === 'allow' ? { kind: 'follow' } : { kind: 'stop' };
  }
}

export const IFetchUrlTool = createServiceId<FetchUrlTool>('tool.FetchURL');
export const fetchUrlTool = registerAgentToolService(IFetchUrlTool, FetchUrlTool, {
  name: FETCH_URL_NAME,
  domain: 'web',
  requiredRuntimeCapabilities: [],
  approval: 'ask',
  samples: FETCH_URL_SAMPLES,
});
