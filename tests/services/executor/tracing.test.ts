import { SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { packageVersion } from '../../../src/base/packageInfo';
import { activeTracer } from '../../../src/services/executor/tracing';
import { type Harness, openHarness } from '../../helpers/agentHarness';
import { useTempDir } from '../../helpers/tempDir';
import { testTool } from '../../helpers/testTools';

/** The executor's OpenTelemetry spans, through the real trace SDK with an in-memory exporter. */

const dir = useTempDir();
let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

function open(): Harness {
  h = openHarness({
    cwd: dir.path,
    tools: [
      testTool('Echo', { execute: () => ({ output: 'echoed' }) }),
      testTool('Forbidden'),
      testTool('Boom', {
        execute: () => {
          throw new TypeError('the disk is on fire');
        },
      }),
    ],
    config: { approval: { allow: ['Echo', 'Boom'], deny: ['Forbidden'] } },
  });
  return h;
}

const BATCH = [
  { id: 'call_echo', name: 'Echo', arguments: '{}' },
  { id: 'call_forbidden', name: 'Forbidden', arguments: '{}' },
  { id: 'call_boom', name: 'Boom', arguments: '{}' },
];

describe('without a registered tracer provider', () => {
  test('the executor gets no tracer and makes no spans', async () => {
    expect(activeTracer()).toBeUndefined();
    const results = await open().agent.executor.execute(BATCH);
    expect(results.map((r) => r.outcome)).toEqual(['executed', 'denied', 'executed']);
  });
});

describe('with a tracer provider registered (BasicTracerProvider + InMemorySpanExporter)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  });
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const children = (spans: readonly ReadableSpan[], parent: ReadableSpan) => spans.filter((s) => parentOf(s) === parent.spanContext().spanId);

  test('one batch: a span per call with its attributes, approval and execute as children, the failure recorded', async () => {
    const results = await open().agent.executor.execute(BATCH);
    expect(results.map((r) => r.outcome)).toEqual(['executed', 'denied', 'executed']);
    const spans = exporter.getFinishedSpans();
    const calls = spans.filter((s) => s.name.startsWith('tool '));
    expect(calls.map((s) => s.name).sort()).toEqual(['tool Boom', 'tool Echo', 'tool Forbidden']);
    expect(spans).toHaveLength(3 + 3 + 2); // three calls, three approvals, two executions
    for (const span of spans) {
      expect(span.instrumentationScope).toEqual({ name: 'toolhost', version: packageVersion(), schemaUrl: undefined });
      expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    }
    const byName = (name: string) => calls.find((s) => s.name === `tool ${name}`)!;

    const echo = byName('Echo');
    expect(parentOf(echo)).toBeUndefined();
    expect(echo.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Echo',
      'gen_ai.tool.call.id': 'call_echo',
      'toolhost.tool.outcome': 'executed',
      'toolhost.tool.is_error': false,
      'toolhost.tool.duration_ms': results[0]!.durationMs,
      'toolhost.tool.truncated': false,
    });
    expect(echo.status.code).toBe(SpanStatusCode.UNSET);
    const echoChildren = children(spans, echo);
    expect(echoChildren.map((s) => s.name)).toEqual(['approval', 'execute']);
    expect(echoChildren[0]!.attributes).toEqual({ 'toolhost.approval.approved': true, 'toolhost.approval.decision': 'allow', 'toolhost.approval.reason': 'allow-rule' });
    // Ended (so exported) in order: approval, then execute, then the call. (Timestamps of different
    // spans are not compared: the SDK anchors each span's clock, so they may differ by a fraction of a ms.)
    expect(spans.indexOf(echoChildren[0]!)).toBeLessThan(spans.indexOf(echoChildren[1]!));
    expect(spans.indexOf(echoChildren[1]!)).toBeLessThan(spans.indexOf(echo));

    const forbidden = byName('Forbidden');
    expect(forbidden.attributes['toolhost.tool.outcome']).toBe('denied');
    expect(forbidden.attributes['toolhost.tool.is_error']).toBe(true);
    expect(forbidden.status.code).toBe(SpanStatusCode.ERROR);
    expect(forbidden.status.message).toMatch(/^denied: /);
    const forbiddenChildren = children(spans, forbidden);
    expect(forbiddenChildren.map((s) => [s.name, s.attributes])).toEqual([['approval', { 'toolhost.approval.approved': false }]]);

    const boom = byName('Boom');
    expect(boom.attributes['toolhost.tool.outcome']).toBe('executed');
    expect(boom.attributes['toolhost.tool.is_error']).toBe(true);
    expect(boom.status).toEqual({ code: SpanStatusCode.ERROR, message: 'executed: Tool "Boom" failed: the disk is on fire' });
    const execute = children(spans, boom).find((s) => s.name === 'execute')!;
    expect(execute.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the disk is on fire' });
    expect(execute.events.map((e) => [e.name, e.attributes?.['exception.type'], e.attributes?.['exception.message']])).toEqual([['exception', 'TypeError', 'the disk is on fire']]);

    // Every span of the batch is in one trace per call, none left open.
    for (const call of calls) for (const child of children(spans, call)) expect(child.spanContext().traceId).toBe(call.spanContext().traceId);
  });

  test('a call refused before approval (unknown tool) still gets its span, with no children', async () => {
    await open().agent.executor.execute([{ id: 'call_missing', name: 'Nope', arguments: '{}' }]);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['tool Nope']);
    expect(spans[0]!.attributes['toolhost.tool.outcome']).toBe('rejected');
    expect(spans[0]!.status.code).toBe(SpanStatusCode.ERROR);
  });
});
