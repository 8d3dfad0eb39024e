/**
 * The schema-driven fuzz test (test/support/fuzz.ts): 2,000 generated operations with a
 * fixed seed, over real HTTP against the simulator (no rate limits). No answer may be a
 * 5xx, carry INTERNAL_SERVER_ERROR, fail to be JSON, or take longer than a generous bound;
 * the gateway must still answer afterwards. `npm run fuzz` runs more, with any seed.
 */
import { buildGatewaySchema } from '../../src/graph/schema';
import { runFuzz } from '../support/fuzz';
import { startStack } from '../support';
import type { HttpStack } from '../support';

/** A bound no healthy answer comes near, even on a loaded 2-core machine. */
const ANSWER_BOUND_MS = 10_000;

describe('fuzzing with operations built from the schema', () => {
  let stack: HttpStack;

  beforeAll(async () => {
    // A lower cost limit than the default keeps each accepted operation cheap (the run short);
    // the paths taken are the same.
    stack = await startStack({
      http: true,
      config: { responseCacheEnabled: true, maxUpstreamRequests: 100, upstreamConcurrencyPerKey: 64 },
    });
  });

  afterAll(async () => {
    await stack.close();
  });

  it('2,000 operations (seed 14): no 5xx, no INTERNAL_SERVER_ERROR, none slower than the bound, and the gateway is alive after', async () => {
    const report = await runFuzz({
      schema: await buildGatewaySchema(),
      endpoint: stack.endpoint,
      seed: 14,
      count: 2000,
      concurrency: 8,
      boundMs: ANSWER_BOUND_MS,
    });
    expect(report.failures.slice(0, 5)).toEqual([]);
    expect(report.sent).toBe(2000);
    // The mix reaches both successes and client errors.
    expect(report.byStatus['200']).toBeGreaterThan(500);
    expect(report.byStatus['400']).toBeGreaterThan(50);
    const health = await fetch(`${stack.gateway.url}/healthz`);
    expect(health.status).toBe(200);
  }, 240_000);
});
