/**
 * Operations over graphql-ws and graphql-sse are logged and counted like those over HTTP:
 * one `graphql operation` line each (with `transport`), at the first answer, and
 * `statev_graphql_operations_total` by outcome; a refusal is `rejected`.
 */
import { createClient as createSseClient } from 'graphql-sse';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { LineCollector, metricValue, useStack } from '../support';
import { collect, wsClient } from '../subscriptions/clients';

describe('operations over the subscription transports in logs and metrics', () => {
  const logs = new LineCollector();

  const stack = useStack({ http: true, logDestination: logs, config: { logLevel: 'info' } });
  const lines = (): Array<Record<string, unknown>> =>
    logs.records().filter((record) => record.msg === 'graphql operation');

  it('logs a query over graphql-ws, a live query over graphql-sse once at its first result, and refusals as rejected', async () => {
    const ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
    const sse = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      retryAttempts: 0,
    });
    try {
      const query = await collect((sink) =>
        ws.subscribe({ query: 'query Buildings { buildings { id } }' }, sink),
      ).next();
      expect(query.errors).toBeUndefined();
      const live = collect((sink) =>
        sse.subscribe(
          { query: `query Counter @live { factory(id: "${FIXTURE_IDS.shop}") { counter { totalWeight } } }` },
          sink,
        ),
      );
      expect((await live.next()).errors).toBeUndefined();
      const refused = await collect((sink) => ws.subscribe({ query: '{ nope }' }, sink)).ended;
      expect(refused).not.toBe('complete'); // an error message
      live.stop();
    } finally {
      await ws.dispose();
      sse.dispose();
    }
    expect(lines()).toEqual([
      expect.objectContaining({
        transport: 'graphql-ws',
        operationName: 'Buildings',
        outcome: 'success',
        errorCodes: [],
        upstream: expect.objectContaining({ requests: 1 }),
        key: expect.any(String),
      }),
      expect.objectContaining({
        transport: 'graphql-sse',
        operationName: 'Counter',
        outcome: 'success',
        upstream: expect.objectContaining({ requests: 2 }),
      }),
      expect.objectContaining({
        transport: 'graphql-ws',
        operationName: null,
        outcome: 'rejected',
        errorCodes: ['GRAPHQL_VALIDATION_FAILED'],
        upstream: expect.objectContaining({ requests: 0 }),
      }),
    ]);
    const metrics = (await stack.get('/metrics')).text;
    expect(metricValue(metrics, 'statev_graphql_operations_total', { outcome: 'success' })).toBe(2);
    expect(metricValue(metrics, 'statev_graphql_operations_total', { outcome: 'rejected' })).toBe(1);
  });
});
