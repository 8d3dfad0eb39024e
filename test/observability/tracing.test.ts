/**
 * OpenTelemetry traces, with an in-memory exporter: the README company page (docs/example.md)
 * cold and warm as one SERVER span named by the operation with one CLIENT span per upstream
 * request under it (route pattern, cache outcome, status, budget wait, priority, retries),
 * an incoming `traceparent` continued, background work in root spans linked to the operation
 * that queued it, and no hook at all when tracing is off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanKind, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { DEFAULT_CONFIG } from '../../src/config';
import { OperationAccounting, keyId } from '../../src/economy';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { GatewayTracing, TRACE_ATTRIBUTES } from '../../src/observability/tracing';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack, until, useStack } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';

/** The first GraphQL block of docs/example.md: the page the README points to. */
function readmePage(): string {
  const text = readFileSync(join(__dirname, '..', '..', 'docs', 'example.md'), 'utf8');
  const block = /```graphql\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error('docs/example.md has no ```graphql block');
  return block;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

/** The spans of one trace: its SERVER span and the CLIENT spans under it. */
function treeOf(spans: ReadableSpan[], traceId: string): { operation: ReadableSpan; children: ReadableSpan[] } {
  const inTrace = spans.filter((span) => span.spanContext().traceId === traceId);
  const operations = inTrace.filter((span) => span.kind === SpanKind.SERVER);
  expect(operations).toHaveLength(1);
  const operation = operations[0] as ReadableSpan;
  const children = inTrace.filter((span) => span !== operation);
  for (const child of children) {
    expect(child.kind).toBe(SpanKind.CLIENT);
    expect(child.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
  }
  return { operation, children };
}

describe('traces of the README page', () => {
  const exporter = new InMemorySpanExporter();
  const page = { query: readmePage(), variables: { id: FIXTURE_IDS.shop } };
  const premiumKeyId = keyId(DEMO_KEYS.premium.key, DEFAULT_CONFIG.keyHashSecret);

  const stack = useStack({ http: true, gateway: { traceExporter: exporter } });
  beforeEach(() => exporter.reset());

  it('cold: one span named by the operation, continuing the caller traceparent, with a miss span per upstream request', async () => {
    const answer = await stack.post(page, { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` } });
    expect(answer.body.errors).toBeUndefined();
    const { operation, children } = treeOf(exporter.getFinishedSpans(), TRACE_ID);

    expect(operation.name).toBe('query CompanyPage');
    expect(operation.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(operation.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'CompanyPage',
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      [TRACE_ATTRIBUTES.keyId]: premiumKeyId,
    });

    // One child per upstream request, named by its route pattern, with the status it got.
    const sent = stack.attempts.map((attempt) => `${attempt.route} ${attempt.status}`).sort();
    expect(
      children.map((span) => `${span.name} ${String(span.attributes['http.response.status_code'])}`).sort(),
    ).toEqual(sent);
    expect(children.length).toBe(20);
    expect(children.map((span) => span.name)).toContain('GET /factory/inventory/{id}');
    for (const child of children) {
      expect(child.attributes).toMatchObject({
        [TRACE_ATTRIBUTES.cache]: 'miss',
        'http.request.method': 'GET',
        'url.template': child.name.slice('GET '.length),
        [TRACE_ATTRIBUTES.priority]: 'operation',
        [TRACE_ATTRIBUTES.retries]: 0,
        [TRACE_ATTRIBUTES.keyId]: premiumKeyId,
      });
      expect(child.attributes[TRACE_ATTRIBUTES.budgetWaitMs]).toEqual(expect.any(Number));
    }
  });

  it('warm: the same tree, every request a cache hit with no status and no budget wait', async () => {
    const before = stack.simulator.requests.length;
    const answer = await stack.post(page);
    expect(answer.body.errors).toBeUndefined();
    expect(stack.simulator.requests.length).toBe(before);
    const spans = exporter.getFinishedSpans();
    const { operation, children } = treeOf(
      spans,
      spans.find((span) => span.kind === SpanKind.SERVER)?.spanContext().traceId ?? '',
    );
    expect(operation.name).toBe('query CompanyPage');
    expect(operation.parentSpanContext).toBeUndefined(); // no traceparent: a new trace
    expect(children).toHaveLength(20);
    for (const child of children) {
      expect(child.attributes[TRACE_ATTRIBUTES.cache]).toBe('hit');
      expect(child.attributes['http.response.status_code']).toBeUndefined();
      expect(child.attributes[TRACE_ATTRIBUTES.budgetWaitMs]).toBeUndefined();
    }
  });

  it('names an anonymous operation by its type, and a rejected one stays "graphql" with its error code', async () => {
    await stack.post({ query: '{ buildings { label } }' });
    await stack.post({ query: '{ nope }' });
    const names = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(names.map((span) => span.name)).toEqual(['query', 'graphql']);
    expect(names[1]?.attributes[TRACE_ATTRIBUTES.errorCodes]).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('a request refused after the request phase (never seen by Apollo) has the method, key id and operation', async () => {
    await stack.post({ query: '{ nope }' });
    const aliases = Array.from({ length: 60 }, (_, i) => `a${i}: factories { options { title } }`).join(' ');
    await stack.post({ query: `query Costly { ${aliases} }` });
    await stack.get(`/graphql?query=${encodeURIComponent('{ factories { id }')}`, {
      authorization: `Bearer ${DEMO_KEYS.premium.key}`,
    });
    const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(
      spans.map((span) => [span.name, span.attributes['http.request.method'], span.attributes[TRACE_ATTRIBUTES.keyId]]),
    ).toEqual([
      ['graphql', 'POST', premiumKeyId],
      ['query Costly', 'POST', premiumKeyId],
      ['graphql', 'GET', premiumKeyId],
    ]);
    expect(spans[1]?.attributes[TRACE_ATTRIBUTES.errorCodes]).toBe('QUERY_TOO_EXPENSIVE');
  });

  it('gives background work (a subscription poll) a root span of its own, whatever context it runs in', async () => {
    const within = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId: TRACE_ID, spanId: CALLER_SPAN_ID, traceFlags: 1 }),
    );
    await context.with(within, () =>
      stack.runtime.economy.fetchInBackground(
        { keyId: premiumKeyId, apiKey: DEMO_KEYS.premium.key, endpoint: ENDPOINTS.buildingList },
        { refresh: true },
      ),
    );
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('GET /building/list');
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(span?.links).toEqual([]);
    expect(span?.attributes).toMatchObject({
      [TRACE_ATTRIBUTES.priority]: 'background',
      [TRACE_ATTRIBUTES.cache]: 'miss',
      'http.response.status_code': 200,
    });
  });
});

describe('background fill, end to end', () => {
  it('fetches what an operation could not afford in a root span linked to that operation', async () => {
    const exporter = new InMemorySpanExporter();
    const exported = exporter.export.bind(exporter);
    const fill = new Promise<ReadableSpan>((resolve) => {
      exporter.export = (spans, done) => {
        for (const span of spans) if (span.attributes[TRACE_ATTRIBUTES.priority] === 'missed') resolve(span);
        exported(spans, done);
      };
    });
    // One request per second for the key, and no patience: the second list misses at once.
    const stack = await startStack({
      http: true,
      config: { upstreamRateLimit: { requests: 1, windowSeconds: 1 }, upstreamPatienceMs: 0 },
      gateway: { traceExporter: exporter },
    });
    try {
      const answer = await stack.post({ query: 'query Lists { factories { name } buildings { label } }' });
      expect(answer.body.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
      const operation = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER);
      expect(operation?.name).toBe('query Lists');
      const missed = exporter
        .getFinishedSpans()
        .filter((span) => span.attributes[TRACE_ATTRIBUTES.errorCode] === 'RATE_LIMITED');
      expect(missed).toHaveLength(1);

      const fetched = await fill; // when the next window opens
      expect(fetched.name).toBe(missed[0]?.name);
      expect(fetched.parentSpanContext).toBeUndefined();
      expect(fetched.spanContext().traceId).not.toBe(operation?.spanContext().traceId);
      expect(fetched.links.map((link) => link.context.spanId)).toEqual([operation?.spanContext().spanId]);
      expect(fetched.attributes).toMatchObject({
        [TRACE_ATTRIBUTES.cache]: 'miss',
        'http.response.status_code': 200,
        [TRACE_ATTRIBUTES.retries]: 0,
      });
      expect(fetched.attributes[TRACE_ATTRIBUTES.budgetWaitMs]).toEqual(expect.any(Number));
    } finally {
      await stack.close();
    }
  });
});

describe('refresh-ahead', () => {
  it('refreshes in a root span of its own with no link, even when the refresh runs inside an operation', async () => {
    const exporter = new InMemorySpanExporter();
    const t0 = Date.UTC(2026, 0, 1);
    let now = t0;
    const stack = await startStack({
      config: { refreshAheadShare: 0.7 },
      gateway: { traceExporter: exporter, now: () => now },
    });
    const economy = stack.runtime.economy;
    const operation = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId: TRACE_ID, spanId: CALLER_SPAN_ID, traceFlags: 1 }),
    );
    const read = (): Promise<unknown> =>
      context.with(operation, () =>
        economy.get(
          {
            keyId: 'hashed-premium',
            apiKey: DEMO_KEYS.premium.key,
            noCache: false,
            accounting: new OperationAccounting(),
          },
          ENDPOINTS.factoryCounter,
          { id: FIXTURE_IDS.shop },
        ),
      );
    try {
      await read(); // fetched
      now = t0 + 20_000;
      await read(); // read twice: worth refreshing
      now = t0 + 50_000; // 10 s before it expires (stock: 60 s)
      exporter.reset();
      await context.with(operation, () => economy.runRefreshes());
      const spans = exporter.getFinishedSpans();
      expect(spans.map((span) => span.name)).toEqual(['GET /factory/counter/{id}']);
      expect(spans[0]?.parentSpanContext).toBeUndefined();
      expect(spans[0]?.spanContext().traceId).not.toBe(TRACE_ID);
      expect(spans[0]?.links).toEqual([]);
      expect(spans[0]?.attributes).toMatchObject({
        [TRACE_ATTRIBUTES.priority]: 'background',
        [TRACE_ATTRIBUTES.cache]: 'miss',
        'http.response.status_code': 200,
      });
    } finally {
      await stack.close();
    }
  });
});

describe('the queued hook', () => {
  it('runs queued work in a root span linked to the operation that queued it, whatever context runs it', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = GatewayTracing.fromSettings(DEFAULT_CONFIG.tracing, exporter);
    if (!tracing) throw new Error('tracing is off');
    const events = tracing.economyEvents({});
    const queuedBy = trace.wrapSpanContext({ traceId: TRACE_ID, spanId: CALLER_SPAN_ID, traceFlags: 1 });
    // Queued during the operation, run later from a timer whose context is anyone's.
    const queued = context.with(trace.setSpan(ROOT_CONTEXT, queuedBy), () =>
      events.queued?.(() =>
        events.traced?.({ route: 'GET /factory/counter/{id}', priority: 'missed', keyId: 'k' }, async () =>
          events.cache?.('miss'),
        ),
      ),
    );
    await queued?.();
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.links.map((link) => link.context.spanId)).toEqual([CALLER_SPAN_ID]);
    expect(span?.attributes).toMatchObject({ [TRACE_ATTRIBUTES.priority]: 'missed', [TRACE_ATTRIBUTES.cache]: 'miss' });
    await tracing.shutdown();
  });
});

describe('tracing off (the default)', () => {
  it('builds no tracer and installs no hook', async () => {
    expect(GatewayTracing.fromSettings(DEFAULT_CONFIG.tracing)).toBeUndefined();
    const stack = await startStack({ http: true });
    try {
      expect(stack.runtime.tracing).toBeUndefined();
    } finally {
      await stack.close();
    }
  });
});

describe('the error codes on an operation span', () => {
  it('are those of the answer as sent, over HTTP and graphql-ws alike: a failed option slot included', async () => {
    const exporter = new InMemorySpanExporter();
    const stack = await startStack({ http: true, mock: true, gateway: { traceExporter: exporter } });
    try {
      stack
        .upstream()
        .intercept({ path: `/req/factory/options/${FIXTURE_IDS.shop}/2`, method: 'GET' })
        .reply(500, { statusCode: 500, message: 'boom' }, { headers: { 'content-type': 'application/json' } })
        .persist();
      const slots = {
        query: 'query Slots($id: ID!) { factory(id: $id) { options { slot } } }',
        variables: { id: FIXTURE_IDS.shop },
      };
      const answer = await stack.post(slots, { key: 'sim-key-9201' });
      expect(answer.body.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_ERROR']);
      const ws = wsClient(stack.endpoint, 'sim-key-9202');
      try {
        const result = await subscribeWs(ws, slots.query, slots.variables).next();
        expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_ERROR']);
      } finally {
        await ws.dispose();
      }
      await until(
        () => exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER).length === 2,
        'both operation spans',
      );
      const operations = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
      expect(operations.map((span) => [span.name, span.attributes[TRACE_ATTRIBUTES.errorCodes]])).toEqual([
        ['query Slots', 'UPSTREAM_ERROR'],
        ['query Slots', 'UPSTREAM_ERROR'],
      ]);
    } finally {
      await stack.close();
    }
  });
});
