import { type Context, context, ProxyTracerProvider, type Span, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { packageVersion } from '../../base/packageInfo';
import type { ApprovalReview } from '../approval/toolApproval';
import { describeError } from './callEnd';
import type { ToolCall, ToolCallResult } from './toolExecutor';

/**
 * OpenTelemetry spans of tool calls, through `@opentelemetry/api` alone: a host that registers an
 * SDK (a global tracer provider) gets them, one that does not pays one check per batch.
 *
 *   tool <name>          one per call, from after preflight to its result
 *   ├─ approval          when approval reviews the call
 *   └─ execute           when the tool runs
 */

export const TRACER_NAME = 'toolhost';

/** Span attribute keys: OpenTelemetry's GenAI conventions where they have one, `toolhost.*` otherwise. */
export const TOOL_SPAN_ATTRIBUTES = {
  operation: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  callId: 'gen_ai.tool.call.id',
  outcome: 'toolhost.tool.outcome',
  isError: 'toolhost.tool.is_error',
  durationMs: 'toolhost.tool.duration_ms',
  truncated: 'toolhost.tool.truncated',
  approved: 'toolhost.approval.approved',
  decision: 'toolhost.approval.decision',
  reason: 'toolhost.approval.reason',
} as const;

/** How much of an error output a span's status carries. */
const MAX_STATUS_CHARS = 500;

/**
 * The tracer when a host registered a tracer provider, else undefined. With none, the API's proxy
 * has no delegate and every span would be a no-op: the executor then makes none at all.
 */
export function activeTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  // A proxy of another copy of the API is not ours to look into: trace through it.
  if (provider instanceof ProxyTracerProvider) return provider.getDelegateTracer(TRACER_NAME, packageVersion());
  return provider.getTracer(TRACER_NAME, packageVersion());
}

/** The span of one tool call and its child spans. */
export class ToolCallSpan {
  private readonly span: Span;
  private readonly context: Context;

  constructor(
    private readonly tracer: Tracer,
    call: ToolCall,
    parent: Context,
  ) {
    this.span = tracer.startSpan(`tool ${call.name}`, {
      attributes: { [TOOL_SPAN_ATTRIBUTES.operation]: 'execute_tool', [TOOL_SPAN_ATTRIBUTES.toolName]: call.name, [TOOL_SPAN_ATTRIBUTES.callId]: call.id },
    }, parent);
    this.context = trace.setSpan(parent, this.span);
  }

  /** A child span around approval's review. */
  startApproval(): ApprovalSpan {
    return new ApprovalSpan(this.tracer.startSpan('approval', {}, this.context));
  }

  /** Runs the tool in a child span, made the active one so spans the tool makes are its children (with a context manager). */
  execute<T>(run: (span: Span) => Promise<T>): Promise<T> {
    const span = this.tracer.startSpan('execute', {}, this.context);
    return context.with(trace.setSpan(this.context, span), () => run(span)).finally(() => span.end());
  }

  end(result: ToolCallResult): void {
    this.span.setAttributes({
      [TOOL_SPAN_ATTRIBUTES.outcome]: result.outcome,
      [TOOL_SPAN_ATTRIBUTES.isError]: result.isError,
      [TOOL_SPAN_ATTRIBUTES.durationMs]: result.durationMs,
      [TOOL_SPAN_ATTRIBUTES.truncated]: result.truncated,
    });
    if (result.isError) this.span.setStatus({ code: SpanStatusCode.ERROR, message: `${result.outcome}: ${statusText(result.output)}` });
    this.span.end();
  }
}

export class ApprovalSpan {
  constructor(private readonly span: Span) {}

  end(review: ApprovalReview | undefined, error?: unknown): void {
    if (review !== undefined) {
      this.span.setAttribute(TOOL_SPAN_ATTRIBUTES.approved, review.approved);
      if (review.approved) {
        const decision = review.decision;
        this.span.setAttribute(TOOL_SPAN_ATTRIBUTES.decision, decision.kind);
        if (decision.kind === 'asked') this.span.setAttribute(TOOL_SPAN_ATTRIBUTES.reason, decision.answer);
        else if (decision.kind === 'allow') this.span.setAttribute(TOOL_SPAN_ATTRIBUTES.reason, decision.reason);
      }
    }
    if (error !== undefined) recordError(this.span, error);
    this.span.end();
  }
}

/** An exception event and an error status on `span`. */
export function recordError(span: Span, error: unknown): void {
  const message = describeError(error);
  span.recordException(error instanceof Error ? error : { message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, MAX_STATUS_CHARS) });
}

function statusText(output: ToolCallResult['output']): string {
  const text = typeof output === 'string' ? output : output.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
  return text.length > MAX_STATUS_CHARS ? `${text.slice(0, MAX_STATUS_CHARS)}…` : text;
}
