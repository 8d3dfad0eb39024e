/**
 * OpenTelemetry traces of operations over graphql-ws and graphql-sse, with an in-memory
 * exporter: each operation is one SERVER span named by its type and name, carrying its
 * transport, continuing the `traceparent` of the connection parameters (graphql-ws) or of
 * the request (graphql-sse), with one CLIENT span per upstream request under it; a live
 * query's span ends with its first result, a subscription's at its start, a refused
 * operation's at once with its error code.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { DEFAULT_CONFIG } from '../../src/config';
import { keyId } from '../../src/economy';
import { TRACE_ATTRIBUTES } from '../../src/observability/tracing';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { useStack } from '../support';
import { readmePage } from '../support/readme-page';
import { collect } from '../subscriptions/clients';
import type { Collected } from '../subscriptions/clients';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;

describe('traces of operations over graphql-ws and graphql-sse', () => {
  const exporter = new InMemorySpanExporter();
  const premiumKeyId = keyId(DEMO_KEYS.premium.key, DEFAULT_CONFIG.keyHashSecret);
  const auth = { authorization: `Bearer ${DEMO_KEYS.premium.key}` };
  const clients: Array<{ dispose(): unknown }> = [];

  /** Subscribes over graphql-ws, with these connection parameters added to the key. */
  function overWs(
    request: { query: string; variables?: Record<string, unknown> },
    params: Record<string, unknown> = {},
  ): Collected {
    const client = createClient({
      url: stack.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { ...auth, ...params },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return collect((sink) => client.subscribe(request, sink));
  }

  /** Subscribes over graphql-sse, with these request headers added to the key. */
  function overSse(
    request: { query: string; variables?: Record<string, unknown> },
    headers: Record<string, string> = {},
  ): Collected {
    const client = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { ...auth, ...headers },
      retryAttempts: 0,
    });
    clients.push(client);
    return collect((sink) => client.subscribe(request, sink));
  }

  /** The finished SERVER spans (each ends before its operation's answer is sent). */
  function servers(): ReadableSpan[] {
    return exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
  }

  /** The CLIENT spans whose parent is `operation`. */
  function childrenOf(operation: ReadableSpan): ReadableSpan[] {
    return exporter
      .getFinishedSpans()
      .filter((span) => span.parentSpanContext?.spanId === operation.spanContext().spanId);
  }

  const stack = useStack({ http: true, gateway: { traceExporter: exporter } });
  // Resolves with the next SERVER span the exporter receives (each test's first).
  let serverSpanEnded: Promise<ReadableSpan>;
  const exported = exporter.export.bind(exporter);
  beforeEach(() => {
    exporter.reset();
    serverSpanEnded = new Promise((resolve) => {
      exporter.export = (spans, done) => {
        exported(spans, done);
        const server = spans.find((span) => span.kind === SpanKind.SERVER);
        if (server) resolve(server);
      };
    });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.dispose();
  });

  it("graphql-ws, cold: the README page is one span named by the operation, continuing the connection parameters' traceparent, with a miss span per upstream request", async () => {
    const page = overWs({ query: readmePage(), variables: { id: FIXTURE_IDS.shop } }, { traceparent: TRACEPARENT });
    expect((await page.next()).errors).toBeUndefined();
    await page.ended;
    const [operation, ...others] = servers();
    expect(others).toHaveLength(0);
    expect(operation?.name).toBe('query CompanyPage');
    expect(operation?.spanContext().traceId).toBe(TRACE_ID);
    expect(operation?.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(operation?.attributes).toMatchObject({
      [TRACE_ATTRIBUTES.transport]: 'graphql-ws',
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'CompanyPage',
      [TRACE_ATTRIBUTES.keyId]: premiumKeyId,
    });
    const children = childrenOf(operation as ReadableSpan);
    const sent = stack.attempts.map((attempt) => `${attempt.route} ${attempt.status}`).sort();
    expect(
      children.map((span) => `${span.name} ${String(span.attributes['http.response.status_code'])}`).sort(),
    ).toEqual(sent);
    expect(children).toHaveLength(20);
    for (const child of children) {
      expect(child.kind).toBe(SpanKind.CLIENT);
      expect(child.attributes).toMatchObject({
        [TRACE_ATTRIBUTES.cache]: 'miss',
        [TRACE_ATTRIBUTES.priority]: 'operation',
        [TRACE_ATTRIBUTES.keyId]: premiumKeyId,
      });
    }
  });

  it("graphql-sse, warm: a live query's span continues the request's traceparent and ends with its first result, every request a hit", async () => {
    const before = stack.simulator.requests.length;
    const live = overSse(
      {
        query: readmePage().replace('query CompanyPage($id: ID!)', 'query CompanyPage($id: ID!) @live'),
        variables: { id: FIXTURE_IDS.shop },
      },
      { traceparent: TRACEPARENT },
    );
    expect((await live.next()).errors).toBeUndefined();
    expect(stack.simulator.requests.length).toBe(before);
    // The span ends in onNext, before the result is written: it is finished by now.
    const [operation, ...others] = servers();
    expect(others).toHaveLength(0);
    expect(operation?.name).toBe('query CompanyPage');
    expect(operation?.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(operation?.attributes).toMatchObject({
      [TRACE_ATTRIBUTES.transport]: 'graphql-sse',
      [TRACE_ATTRIBUTES.keyId]: premiumKeyId,
    });
    const children = childrenOf(operation as ReadableSpan);
    expect(children).toHaveLength(20);
    for (const child of children) expect(child.attributes[TRACE_ATTRIBUTES.cache]).toBe('hit');
    live.stop();
  });

  it("a subscription's span ends at its start; its events come from polls, which have spans of their own", async () => {
    const feed = overWs({ query: `subscription Rooms { roomChanged(buildingId: "${FIXTURE_IDS.hafen}") { kind } }` });
    // The span ends when the subscription has started, before any event.
    const started = await serverSpanEnded;
    expect(started.name).toBe('subscription Rooms');
    expect(started.parentSpanContext).toBeUndefined(); // no traceparent: a new trace
    expect(started.attributes).toMatchObject({
      [TRACE_ATTRIBUTES.transport]: 'graphql-ws',
      'graphql.operation.type': 'subscription',
    });
    expect(started.attributes[TRACE_ATTRIBUTES.errorCodes]).toBeUndefined();
    feed.stop();
  });

  it('a refused operation\'s span stays "graphql" and carries its error code, on both transports', async () => {
    const ws = overWs({ query: '{ nope }' });
    const sse = overSse({ query: '{ nope }' });
    await Promise.all([ws.ended, sse.next()]);
    const refused = servers();
    expect(refused.map((span) => span.name)).toEqual(['graphql', 'graphql']);
    expect(refused.map((span) => span.attributes[TRACE_ATTRIBUTES.transport]).sort()).toEqual([
      'graphql-sse',
      'graphql-ws',
    ]);
    for (const span of refused) expect(span.attributes[TRACE_ATTRIBUTES.errorCodes]).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
