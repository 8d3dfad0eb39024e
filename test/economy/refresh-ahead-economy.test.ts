/**
 * Refresh-ahead inside the economy, against the simulator over real HTTP, on a manual
 * clock (the refresh timer is set far away; the test calls `runRefreshes()` itself): a
 * resource read twice is refetched before it expires, within the key's share, so the
 * next read is a fresh cache hit; a resource read once is not; every answer reports the
 * age of its oldest data (`maxAgeSeconds`) and the served-age events by cache kind.
 */
import { DEFAULT_CONFIG } from '../../src/config';
import { OperationAccounting, UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { UpstreamClient } from '../../src/upstream/client';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { UNLIMITED_SIMULATOR } from '../support/upstream-limit';

let simulator: Simulator;
let client: UpstreamClient;
let now = Date.UTC(2026, 0, 1);
const served: Array<{ kind: string; ageSeconds: number }> = [];

beforeAll(async () => {
  // The gateway's own budget is what these tests are about: the simulator does not limit.
  simulator = await startSimulator(UNLIMITED_SIMULATOR);
  client = new UpstreamClient({ baseUrl: simulator.baseUrl, timeoutMs: 5000 });
});

afterAll(async () => {
  await client.close();
  await simulator.close();
});

function economy(ratePerMinute: number): UpstreamEconomy {
  return new UpstreamEconomy(
    client,
    {
      cacheEnabled: true,
      cacheMaxBytes: DEFAULT_CONFIG.cacheMaxBytes,
      ttlSeconds: DEFAULT_CONFIG.cacheTtlSeconds, // stock: 60 s
      staleMaxAgeSeconds: DEFAULT_CONFIG.staleMaxAgeSeconds,
      defaultBackoffSeconds: 60,
      retryDelayMs: 0,
      rateLimit: ratePerMinute > 0 ? { requests: ratePerMinute, windowSeconds: 60 } : null,
      concurrencyPerKey: 6,
      patienceMs: 2000,
      now: () => now,
      refreshAhead: { share: 0.7, idleSeconds: 600, tickMs: 1e9 },
    },
    { served: (kind, ageSeconds) => served.push({ kind, ageSeconds }) },
  );
}

function caller(): EconomyCaller & { accounting: OperationAccounting } {
  return {
    keyId: 'hashed-premium',
    apiKey: DEMO_KEYS.premium.key,
    noCache: false,
    accounting: new OperationAccounting(),
  };
}

it('refetches a resource read twice before it expires, so the next read is a fresh hit; not one read once', async () => {
  const ahead = economy(0);
  simulator.resetRequests();
  served.length = 0;
  const t0 = now;
  await ahead.get(caller(), ENDPOINTS.factoryCounter, { id: FIXTURE_IDS.shop }); // fetch
  await ahead.get(caller(), ENDPOINTS.factoryInventory, { id: FIXTURE_IDS.shop }); // fetch, read once only
  now = t0 + 20_000;
  const second = caller();
  await ahead.get(second, ENDPOINTS.factoryCounter, { id: FIXTURE_IDS.shop }); // hit, 20 s old
  expect(second.accounting.maxAgeSeconds).toBe(20);
  expect(served).toEqual([
    { kind: 'stock', ageSeconds: 0 },
    { kind: 'stock', ageSeconds: 0 },
    { kind: 'stock', ageSeconds: 20 },
  ]);
  expect(simulator.requests).toHaveLength(2);

  now = t0 + 30_000; // half of the 60 s left: too early
  await ahead.runRefreshes();
  expect(simulator.requests).toHaveLength(2);

  now = t0 + 50_000; // 10 s left
  await ahead.runRefreshes();
  expect(simulator.requests.map((request) => request.route)).toEqual([
    'GET /factory/counter/{id}',
    'GET /factory/inventory/{id}',
    'GET /factory/counter/{id}',
  ]);

  now = t0 + 65_000; // the first answer would have expired by now; the refreshed one is 15 s old
  const later = caller();
  await ahead.get(later, ENDPOINTS.factoryCounter, { id: FIXTURE_IDS.shop });
  expect(later.accounting.toJSON()).toEqual({ requests: 0, cacheHits: 1, coalesced: 0, stale: 0, maxAgeSeconds: 15 });
  expect(simulator.requests).toHaveLength(3);
  ahead.close();
});

it('keeps its refreshes within the share of the key’s budget (0.7 of 10 per minute: 7)', async () => {
  const ahead = economy(10);
  simulator.resetRequests();
  const t0 = now;
  for (let slot = 1; slot <= 9; slot += 1) {
    await ahead.get(caller(), ENDPOINTS.factoryOption, { id: FIXTURE_IDS.shop, slot });
    await ahead.get(caller(), ENDPOINTS.factoryOption, { id: FIXTURE_IDS.shop, slot });
  }
  expect(simulator.requests).toHaveLength(9);
  now = t0 + 290_000; // 10 s of the 300 s freshness left for all nine
  await ahead.runRefreshes();
  expect(simulator.requests).toHaveLength(9 + 7);
  await ahead.runRefreshes(); // the share is spent for this window
  expect(simulator.requests).toHaveLength(9 + 7);
  ahead.close();
});
