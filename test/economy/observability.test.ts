/**
 * Observability over real HTTP: `GET /metrics` in Prometheus text with the upstream,
 * cache, coalescing, rate-limit and operation series; one JSON log line per operation
 * with its name, duration, upstream accounting and error codes; and secrecy: neither a
 * key nor a secret appears in any log line, in the metrics or in any response body —
 * with premium-key reads, a 400 from the upstream, and mutations whose secret comes in
 * the input and in an `X-Api-Secret` header, right and wrong. With tracing on, no exported
 * span carries them either, in clear or encoded.
 */
import { print } from 'graphql';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import {
  CompanyPageDocument,
  EconomyCounterDocument,
  EconomyInventoryDocument,
  UpdateFactoryOptionMessageOnlyDocument,
} from '../generated/graphql';
import { LineCollector, metricValue, startStack, upstreamError, upstreamOf } from '../support';
import type { CallOptions, HttpAnswer, Stack } from '../support';
import { collect, wsClient } from '../subscriptions/clients';

const SECRETS = [
  DEMO_KEYS.premium.key,
  DEMO_KEYS.premium.secret,
  DEMO_KEYS.basic.key,
  DEMO_KEYS.basic.secret,
  'wrong-secret-in-input-4711',
  'wrong-secret-in-header-0815',
];

describe('metrics, logs and secrecy', () => {
  let stack: Stack;
  const logs = new LineCollector();
  const bodies: string[] = [];
  const streamBodies: string[] = [];
  const spans = new InMemorySpanExporter();
  let metrics = '';

  async function post(body: unknown, options: CallOptions = {}): Promise<HttpAnswer> {
    const answer = await stack.post(body, options);
    bodies.push(answer.text);
    return answer;
  }

  const premium = { key: DEMO_KEYS.premium.key };
  const noCache = { 'cache-control': 'no-cache' };
  const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };
  const counter = { query: print(EconomyCounterDocument), variables: { id: FIXTURE_IDS.shop } };
  const inventory = { query: print(EconomyInventoryDocument), variables: { id: FIXTURE_IDS.shop } };
  const update = (apiSecret?: string): { query: string; variables: Record<string, unknown> } => ({
    query: print(UpdateFactoryOptionMessageOnlyDocument),
    variables: {
      input: {
        factoryId: FIXTURE_IDS.shop,
        slot: 3,
        title: 'Test',
        data: 'Daten',
        ...(apiSecret ? { apiSecret } : {}),
      },
    },
  });

  beforeAll(async () => {
    stack = await startStack({
      http: true,
      logDestination: logs,
      config: { logLevel: 'info' },
      gateway: { traceExporter: spans },
    });

    // 1. reads with the premium key: a miss, then a hit
    expect((await post(page, premium)).body.errors).toBeUndefined();
    expect(upstreamOf((await post(page, premium)).body).cacheHits).toBe(6);
    // 2. two concurrent no-cache reads: the second shares the first one's requests
    stack.simulator.setLatency(30);
    await Promise.all([
      post(counter, { ...premium, headers: noCache }),
      post(counter, { ...premium, headers: noCache }),
    ]);
    stack.simulator.setLatency(0);
    // 3. a 400 from the upstream (the basic key has no factory.counter scope)
    expect((await post(counter, { key: DEMO_KEYS.basic.key })).body.errors?.[0]?.extensions?.code).toBe(
      'UPSTREAM_BAD_REQUEST',
    );
    // 4. the mutation: secret in the input (a wrong header is ignored), wrong secret in the
    //    input, secret only in the header, wrong secret only in the header
    expect(
      (
        await post(update(DEMO_KEYS.premium.secret), {
          ...premium,
          headers: { 'x-api-secret': 'wrong-secret-in-header-0815' },
        })
      ).body.errors,
    ).toBeUndefined();
    expect(
      (
        await post(update('wrong-secret-in-input-4711'), {
          ...premium,
          headers: { 'x-api-secret': DEMO_KEYS.premium.secret },
        })
      ).body.errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
    expect(
      (await post(update(), { ...premium, headers: { 'x-api-secret': DEMO_KEYS.premium.secret } })).body.errors,
    ).toBeUndefined();
    expect(
      (await post(update(), { ...premium, headers: { 'x-api-secret': 'wrong-secret-in-header-0815' } })).body
        .errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
    // 5. an upstream 429: the list spends the window, the counter is answered 429 and
    //    served stale; then the cooldown refuses list and store, both served stale
    stack.simulator.setRateLimit({ requests: 1, windowSeconds: 60 });
    const limited = await post(counter, { ...premium, headers: noCache });
    expect(upstreamOf(limited.body)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 1 });
    const cooled = await post(inventory, { ...premium, headers: noCache });
    expect(cooled.body.errors).toBeUndefined();
    expect(upstreamOf(cooled.body)).toEqual({ requests: 0, cacheHits: 0, coalesced: 0, stale: 2 });
    // 6. a rejection before execution
    expect(
      (
        await post(
          { query: `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: factories { options { title } }`).join(' ')} }` },
          premium,
        )
      ).status,
    ).toBe(400);
    const scrape = await stack.get('/metrics');
    expect(scrape.status).toBe(200);
    metrics = scrape.text;
    // 7. after the scrape (which counts the operations above) and under step 5's upstream
    // limit: over graphql-ws (the key in the connection parameters) a read and a mutation
    // with the secret in the input, over graphql-sse (the key in the header) a no-cache read
    const endpoint = stack.endpoint ?? '';
    const ws = wsClient(endpoint, DEMO_KEYS.premium.key);
    const sse = createSseClient({
      url: `${endpoint}/stream`,
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}`, ...noCache },
      retryAttempts: 0,
    });
    try {
      for (const [client, body] of [
        [ws, page],
        [ws, update(DEMO_KEYS.premium.secret)],
        [sse, counter],
      ] as const) {
        const answer = await collect((sink) => client.subscribe(body, sink)).next();
        streamBodies.push(JSON.stringify(answer));
        // The upstream limits this key to 1 per 60 s since step 5: answers, some of it rate-limited.
        expect(answer.data).toBeDefined();
        for (const error of answer.errors ?? []) expect(error.extensions?.code).toBe('RATE_LIMITED');
      }
    } finally {
      await ws.dispose();
      sse.dispose();
    }
  });

  afterAll(async () => {
    await stack.close();
  });

  describe('GET /metrics', () => {
    it('counts upstream requests by endpoint pattern and status', () => {
      expect(
        metricValue(metrics, 'statev_upstream_requests_total', { endpoint: 'GET /factory/list/', status: '200' }),
      ).toBeGreaterThanOrEqual(2);
      expect(
        metricValue(metrics, 'statev_upstream_requests_total', {
          endpoint: 'GET /factory/counter/{id}',
          status: '400',
        }),
      ).toBe(1);
      expect(
        metricValue(metrics, 'statev_upstream_requests_total', {
          endpoint: 'GET /factory/counter/{id}',
          status: '429',
        }),
      ).toBe(1);
      expect(
        metricValue(metrics, 'statev_upstream_requests_total', { endpoint: 'POST /factory/options', status: '401' }),
      ).toBe(2);
      expect(
        metricValue(metrics, 'statev_upstream_requests_total', { endpoint: 'POST /factory/options', status: '200' }),
      ).toBe(2);
      // All of them together: exactly what the simulator saw.
      expect(metricValue(metrics, 'statev_upstream_requests_total')).toBe(stack.simulator.requests.length);
    });

    it('has the upstream latency histogram by endpoint pattern', () => {
      expect(metrics).toMatch(/^# TYPE statev_upstream_request_duration_seconds histogram$/m);
      expect(
        metricValue(metrics, 'statev_upstream_request_duration_seconds_bucket', {
          endpoint: 'GET /factory/list/',
          le: '+Inf',
        }),
      ).toBeGreaterThanOrEqual(2);
      expect(metricValue(metrics, 'statev_upstream_request_duration_seconds_count')).toBe(
        stack.simulator.requests.length,
      );
      expect(
        metricValue(metrics, 'statev_upstream_request_duration_seconds_sum', { endpoint: 'GET /factory/list/' }),
      ).not.toBeNull();
    });

    it('counts cache hits, misses and stale answers, coalesced answers and rate limiting', () => {
      expect(metricValue(metrics, 'statev_cache_events_total', { outcome: 'hit' })).toBeGreaterThanOrEqual(6);
      expect(metricValue(metrics, 'statev_cache_events_total', { outcome: 'miss' })).toBeGreaterThanOrEqual(6);
      expect(metricValue(metrics, 'statev_cache_events_total', { outcome: 'stale' })).toBe(3);
      expect(metricValue(metrics, 'statev_upstream_coalesced_total')).toBeGreaterThanOrEqual(1);
      expect(metricValue(metrics, 'statev_rate_limited_total', { source: 'upstream' })).toBe(1);
      expect(metricValue(metrics, 'statev_rate_limited_total', { source: 'cooldown' })).toBe(2);
      expect(metricValue(metrics, 'statev_cache_entries')).toBeGreaterThan(0);
      expect(metricValue(metrics, 'statev_cache_bytes')).toBeGreaterThan(0);
    });

    it('counts GraphQL operations by outcome, with their latency', () => {
      expect(metricValue(metrics, 'statev_graphql_operations_total', { outcome: 'success' })).toBeGreaterThanOrEqual(6);
      expect(metricValue(metrics, 'statev_graphql_operations_total', { outcome: 'partial' })).toBeGreaterThanOrEqual(1);
      expect(metricValue(metrics, 'statev_graphql_operations_total', { outcome: 'error' })).toBeGreaterThanOrEqual(2);
      expect(metricValue(metrics, 'statev_graphql_operations_total', { outcome: 'rejected' })).toBe(1);
      expect(metricValue(metrics, 'statev_graphql_operations_total')).toBe(bodies.length);
      expect(metricValue(metrics, 'statev_graphql_operation_duration_seconds_count')).toBe(bodies.length);
      expect(
        metricValue(metrics, 'statev_graphql_operation_duration_seconds_bucket', { outcome: 'rejected', le: '+Inf' }),
      ).toBe(1);
    });

    it('labels with patterns, never with concrete ids', () => {
      expect(metrics).not.toContain(FIXTURE_IDS.shop);
    });
  });

  describe('logs', () => {
    function operationLines(): Array<Record<string, unknown>> {
      return logs.records().filter((record) => record.msg === 'graphql operation');
    }

    it('writes one JSON line per operation, over HTTP and over both subscription transports', () => {
      expect(operationLines()).toHaveLength(bodies.length + streamBodies.length);
      expect(operationLines().map((line) => line.transport)).toEqual([
        ...bodies.map(() => undefined),
        'graphql-ws',
        'graphql-ws',
        'graphql-sse',
      ]);
    });

    it('names the operation, its duration, its upstream accounting and error codes', () => {
      const lines = operationLines();
      for (const line of lines) {
        expect(typeof line.durationMs).toBe('number');
        expect(Array.isArray(line.errorCodes)).toBe(true);
        expect(line.upstream).toEqual({
          requests: expect.any(Number),
          cacheHits: expect.any(Number),
          coalesced: expect.any(Number),
          stale: expect.any(Number),
          maxAgeSeconds: expect.any(Number),
        });
      }
      expect(lines[0]).toMatchObject({
        operationName: 'CompanyPage',
        outcome: 'success',
        errorCodes: [],
        upstream: { requests: 6, cacheHits: 0, coalesced: 0, stale: 0 },
      });
      expect(lines[1]).toMatchObject({
        operationName: 'CompanyPage',
        errorCodes: [],
        upstream: { requests: 0, cacheHits: 6 },
      });
      const coalesced = lines.slice(2, 4).map((line) => (line.upstream as { coalesced: number }).coalesced);
      expect(Math.max(...coalesced)).toBeGreaterThan(0);
      expect(lines[4]).toMatchObject({
        operationName: 'EconomyCounter',
        outcome: 'partial',
        errorCodes: ['UPSTREAM_BAD_REQUEST'],
      });
      expect(lines[5]).toMatchObject({
        operationName: 'UpdateFactoryOptionMessageOnly',
        outcome: 'success',
        upstream: { requests: 1 },
      });
      expect(lines[6]).toMatchObject({
        operationName: 'UpdateFactoryOptionMessageOnly',
        outcome: 'error',
        errorCodes: ['FORBIDDEN'],
      });
      expect(lines[9]).toMatchObject({ operationName: 'EconomyCounter', upstream: { stale: 1 } });
      expect(lines[bodies.length - 1]).toMatchObject({
        outcome: 'rejected',
        errorCodes: ['QUERY_TOO_EXPENSIVE'],
        upstream: { requests: 0 },
      });
      const [page, update, counter] = lines.slice(bodies.length);
      expect(page).toMatchObject({ operationName: 'CompanyPage', key: lines[0]?.key });
      expect(update).toMatchObject({ operationName: 'UpdateFactoryOptionMessageOnly' });
      // A no-cache read under step 5's upstream limit: served stale.
      expect(counter).toMatchObject({ operationName: 'EconomyCounter', upstream: { requests: 0 } });
    });

    it('never contains a key or a secret', () => {
      expect(logs.lines.length).toBeGreaterThan(0);
      for (const line of logs.lines) for (const secret of SECRETS) expect(line).not.toContain(secret);
    });
  });

  it('keeps every key and secret out of every exported span: names, attributes, events, links, status and resource', () => {
    const exported = spans.getFinishedSpans();
    expect(exported.length).toBeGreaterThan(20);
    const text = JSON.stringify(
      exported.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        links: span.links,
        status: span.status,
        resource: span.resource.attributes,
      })),
    );
    expect(text).toContain('POST /factory/options'); // the mutations were traced too
    expect(text).toContain('graphql-ws'); // and the operations over both subscription transports
    expect(text).toContain('graphql-sse');
    for (const secret of SECRETS) {
      for (const form of [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('hex'),
        encodeURIComponent(secret),
        secret.toUpperCase(),
      ]) {
        expect(text).not.toContain(form);
      }
    }
  });

  it('keeps every key and secret out of the metrics and out of every response body', () => {
    for (const secret of SECRETS) expect(metrics).not.toContain(secret);
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of [...bodies, ...streamBodies]) for (const secret of SECRETS) expect(body).not.toContain(secret);
  });
});

describe('secrecy when the upstream echoes the key', () => {
  it('redacts the key from an upstream error message before it reaches the response or the logs', async () => {
    const logs = new LineCollector();
    const stack = await startStack({ http: true, mock: true, logDestination: logs, config: { logLevel: 'info' } });
    try {
      stack
        .upstream()
        .intercept({ path: `/req/factory/counter/${FIXTURE_IDS.shop}`, method: 'GET' })
        .reply(upstreamError(400, `Invalid token Bearer ${DEMO_KEYS.premium.key}`, 'Bad Request'));
      const answer = await stack.post(
        { query: print(EconomyCounterDocument), variables: { id: FIXTURE_IDS.shop } },
        { key: DEMO_KEYS.premium.key },
      );
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_BAD_REQUEST');
      expect(answer.text).toContain('[redacted]');
      expect(answer.text).not.toContain(DEMO_KEYS.premium.key);
      expect(logs.lines.length).toBeGreaterThan(0);
      for (const line of logs.lines) expect(line).not.toContain(DEMO_KEYS.premium.key);
      stack.mockAgent?.assertNoPendingInterceptors();
    } finally {
      await stack.close();
    }
  });
});
