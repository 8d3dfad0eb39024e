/**
 * The cross-request cache, per key, seen from GraphQL: hits, TTL per endpoint kind (with
 * the defaults and an override), the memory bound, `Cache-Control: no-cache`, the
 * invalidation by `updateFactoryOption`, and definitive 4xx answers cached as errors.
 *
 * The clock is a faked `Date` shared by the gateway and the simulator (see test/support):
 * "just before expiry" is TTL − 1 ms, "just after" is exactly the TTL. Each test uses
 * its own generated simulator key (`sim-key-<n>`, premium, character 1), so the tests
 * do not see each other's cache entries.
 */
import { DEFAULT_CONFIG, loadConfig } from '../../src/config';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import {
  AuctionsDocument,
  BuildingEverythingDocument,
  EconomyCounterDocument,
  EconomyStockDocument,
  EconomyTwoOptionsDocument,
  FactoryEverythingDocument,
  FactoryOptionsDocument,
  UpdateFactoryOptionMessageOnlyDocument,
} from '../generated/graphql';
import { errorAt, setClock, startStack, T0, upstreamOf, useFakeDate, useStack } from '../support';
import type { Stack } from '../support';

const SECOND = 1000;
let keyNumber = 100;
/** A fresh premium key of character 1 with an empty cache. */
function freshKey(): string {
  keyNumber += 1;
  return `sim-key-${keyNumber}`;
}

/** The documented TTLs (docs/configuration.md), by route: the test's own statement, not read from src. */
const EXPECTED_TTL_SECONDS: Readonly<Record<string, number>> = {
  'GET /factory/list/': 600,
  'GET /building/list': 600,
  'GET /building/details/{id}': 300,
  'GET /building/rooms/{id}': 300,
  'GET /building/tenants/{id}': 300,
  'GET /factory/productions/{id}': 300,
  'GET /factory/vehicles/{id}': 300,
  'GET /factory/options/{id}/{slot}': 300,
  'GET /factory/bankaccounts/{id}': 120,
  'GET /building/bankaccounts/{id}': 120,
  'GET /factory/inventory/{id}': 60,
  'GET /factory/machine/{id}': 60,
  'GET /factory/counter/{id}': 60,
  'GET /factory/marketoffers/sell/{id}': 60,
  'GET /factory/marketoffers/buy/{id}': 60,
  'GET /market/my/auctions/import': 60,
  'GET /market/my/auctions/export': 60,
  'GET /market/import': 60,
  'GET /market/export': 60,
  'GET /factory/buyLog/{id}/{limit}/{skip}': 60,
  'GET /factory/transactions/{bankId}/{limit}/{skip}': 60,
  'GET /building/transactions/{bankId}/{limit}/{skip}': 60,
};

describe('cross-request cache (default settings)', () => {
  let stack: Stack;

  beforeAll(async () => {
    useFakeDate(T0);
    stack = await startStack();
  });

  afterAll(async () => {
    jest.useRealTimers();
    await stack.close();
  });

  beforeEach(() => {
    setClock(T0);
    stack.simulator.reset();
  });

  /** Upstream requests (in the simulator's log) per route pattern. */
  function requestsByRoute(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const request of stack.simulator.requests) counts.set(request.route, (counts.get(request.route) ?? 0) + 1);
    return counts;
  }

  /** Every GET endpoint once: one company, one building and the auctions. */
  async function readEverything(key: string): Promise<void> {
    const results = await Promise.all([
      stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key }),
      stack.execute(BuildingEverythingDocument, { id: FIXTURE_IDS.hafen }, { key }),
      stack.execute(AuctionsDocument, {}, { key }),
    ]);
    for (const result of results) expect(result.errors).toBeUndefined();
  }

  it('answers a second identical operation of the same key without any upstream request', async () => {
    const key = freshKey();
    const first = await stack.execute(EconomyStockDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(first.errors).toBeUndefined();
    expect(upstreamOf(first)).toEqual({ requests: 3, cacheHits: 0, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(3);

    const second = await stack.execute(EconomyStockDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(second.errors).toBeUndefined();
    expect(second.data).toEqual(first.data);
    expect(upstreamOf(second)).toEqual({ requests: 0, cacheHits: 3, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(3);
  });

  it('states a TTL for every GET endpoint, and the defaults are the documented ones', () => {
    const gets = Object.values(ENDPOINTS).filter((endpoint) => endpoint.method === 'GET');
    expect(gets.map((endpoint) => endpoint.route).sort()).toEqual(Object.keys(EXPECTED_TTL_SECONDS).sort());
    for (const endpoint of gets) {
      expect({ route: endpoint.route, ttl: DEFAULT_CONFIG.cacheTtlSeconds[endpoint.cacheKind] }).toEqual({
        route: endpoint.route,
        ttl: EXPECTED_TTL_SECONDS[endpoint.route],
      });
    }
  });

  describe.each([600, 300, 120, 60])('entries with a TTL of %i s', (ttlSeconds) => {
    const routes = Object.entries(EXPECTED_TTL_SECONDS)
      .filter(([, ttl]) => ttl === ttlSeconds)
      .map(([route]) => route);

    it('are served from the cache 1 ms before expiry and fetched again (once per path) at expiry', async () => {
      const key = freshKey();
      await readEverything(key);
      const initial = requestsByRoute();
      for (const route of routes)
        expect({ route, requested: (initial.get(route) ?? 0) > 0 }).toEqual({ route, requested: true });

      stack.simulator.resetRequests();
      setClock(T0 + ttlSeconds * SECOND - 1);
      await readEverything(key);
      const before = requestsByRoute();
      for (const route of routes) expect({ route, requests: before.get(route) ?? 0 }).toEqual({ route, requests: 0 });

      stack.simulator.resetRequests();
      setClock(T0 + ttlSeconds * SECOND);
      await readEverything(key);
      const after = requestsByRoute();
      for (const route of routes)
        expect({ route, requests: after.get(route) ?? 0 }).toEqual({ route, requests: initial.get(route) });
      // Longer-lived entries are still fresh.
      for (const [route, ttl] of Object.entries(EXPECTED_TTL_SECONDS)) {
        if (ttl > ttlSeconds) expect({ route, requests: after.get(route) ?? 0 }).toEqual({ route, requests: 0 });
      }
    });
  });

  it('Cache-Control: no-cache fetches fresh data and refreshes the cache for the following normal requests', async () => {
    const key = freshKey();
    const variables = { a: FIXTURE_IDS.shop, b: FIXTURE_IDS.carDealer };
    const first = await stack.execute(EconomyTwoOptionsDocument, variables, { key });
    expect(upstreamOf(first).requests).toBe(3);
    const oldTitle = first.data?.a?.option?.title;
    expect(oldTitle).toBeTruthy();

    // Someone changes the slot upstream, behind the gateway's back.
    const write = await fetch(`${stack.simulator.baseUrl}/factory/options`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        apiSecret: `${key}-secret`,
        factoryId: FIXTURE_IDS.shop,
        option: 1,
        title: 'Neuer Titel',
        data: 'neu',
      }),
    });
    expect(write.status).toBe(200);

    setClock(T0 + 10 * SECOND);
    const cached = await stack.execute(EconomyTwoOptionsDocument, variables, { key });
    expect(cached.data?.a?.option?.title).toBe(oldTitle);
    expect(upstreamOf(cached)).toMatchObject({ requests: 0, cacheHits: 3 });

    setClock(T0 + 20 * SECOND);
    stack.simulator.resetRequests();
    const fresh = await stack.execute(EconomyTwoOptionsDocument, variables, {
      key,
      headers: { 'cache-control': 'no-cache' },
    });
    expect(fresh.errors).toBeUndefined();
    expect(fresh.data?.a?.option?.title).toBe('Neuer Titel');
    expect(upstreamOf(fresh)).toEqual({ requests: 3, cacheHits: 0, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(3);

    // 319 s after the first read the original option entries (300 s) would be expired;
    // the no-cache read at 20 s stored new ones, fresh until 320 s.
    setClock(T0 + 319 * SECOND);
    stack.simulator.resetRequests();
    const after = await stack.execute(EconomyTwoOptionsDocument, variables, { key });
    expect(after.data?.a?.option?.title).toBe('Neuer Titel');
    expect(upstreamOf(after)).toEqual({ requests: 0, cacheHits: 3, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('Pragma: no-cache works like Cache-Control: no-cache', async () => {
    const key = freshKey();
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    const again = await stack.execute(
      EconomyCounterDocument,
      { id: FIXTURE_IDS.shop },
      { key, headers: { pragma: 'no-cache' } },
    );
    expect(upstreamOf(again)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0 });
  });

  it("a successful updateFactoryOption invalidates the written slot's cached read, not the other slots or companies", async () => {
    const key = freshKey();
    const shop = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    const dealer = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.carDealer, slot: 1 }, { key });
    expect(shop.errors).toBeUndefined();
    expect(dealer.errors).toBeUndefined();
    expect(upstreamOf(dealer)).toMatchObject({ requests: 10, cacheHits: 1 }); // list from the cache

    const update = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      {
        input: {
          factoryId: FIXTURE_IDS.shop,
          slot: 1,
          title: 'Sonderangebot',
          data: 'Kaffee 1 $',
          apiSecret: `${key}-secret`,
        },
      },
      { key },
    );
    expect(update.errors).toBeUndefined();
    expect(upstreamOf(update)).toEqual({ requests: 1, cacheHits: 0, coalesced: 0, stale: 0 });

    stack.simulator.resetRequests();
    const shopAfter = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    expect(shopAfter.data?.factory?.option).toMatchObject({ slot: 1, title: 'Sonderangebot', data: 'Kaffee 1 $' });
    // Only the written slot of the shop goes upstream again; its other nine slots and the list come from the cache.
    expect(upstreamOf(shopAfter)).toEqual({ requests: 1, cacheHits: 10, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests.map((request) => request.path)).toEqual([`/factory/options/${FIXTURE_IDS.shop}/1`]);

    stack.simulator.resetRequests();
    const dealerAfter = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.carDealer, slot: 1 }, { key });
    expect(dealerAfter.data).toEqual(dealer.data);
    expect(upstreamOf(dealerAfter)).toEqual({ requests: 0, cacheHits: 11, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(0);
  });

  it('a failed updateFactoryOption (wrong secret) invalidates nothing', async () => {
    const key = freshKey();
    await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    const update = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'x', data: 'y', apiSecret: 'wrong-secret' } },
      { key },
    );
    expect(update.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const after = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    expect(upstreamOf(after)).toEqual({ requests: 0, cacheHits: 11, coalesced: 0, stale: 0 });
  });

  it('caches a definitive 4xx (400 missing scope) as an error: the same error again, without a request', async () => {
    const key = DEMO_KEYS.basic.key; // no factory.counter scope
    const first = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(errorAt(first, ['factory', 'counter'])?.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(upstreamOf(first)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0 });

    setClock(T0 + 59 * SECOND);
    const second = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(errorAt(second, ['factory', 'counter'])).toEqual(errorAt(first, ['factory', 'counter']));
    expect(second.errors?.[0]?.message).toBe(first.errors?.[0]?.message);
    expect(upstreamOf(second)).toEqual({ requests: 0, cacheHits: 2, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests).toHaveLength(2);
  });

  it('caches the "store is empty" 404 of a company as an answer too', async () => {
    const key = freshKey();
    const query = '{ factory(id: "' + FIXTURE_IDS.shop + '") { machineInventory { totalWeight items { item } } } }';
    const first = await stack.executeText(query, undefined, { key });
    expect(first.errors).toBeUndefined();
    expect(first.data).toEqual({ factory: { machineInventory: { totalWeight: 0, items: [] } } });
    expect(stack.simulator.requests.find((request) => request.route === 'GET /factory/machine/{id}')?.status).toBe(404);
    const second = await stack.executeText(query, undefined, { key });
    expect(second.data).toEqual(first.data);
    expect(upstreamOf(second)).toEqual({ requests: 0, cacheHits: 2, coalesced: 0, stale: 0 });
  });
});

describe('cross-request cache with a TTL override (cacheTtlSeconds.stock = 5)', () => {
  let stack: Stack;

  beforeAll(async () => {
    useFakeDate(T0);
    stack = await startStack({ config: { cacheTtlSeconds: { ...DEFAULT_CONFIG.cacheTtlSeconds, stock: 5 } } });
  });

  afterAll(async () => {
    jest.useRealTimers();
    await stack.close();
  });

  it('reads CACHE_TTL_STOCK_SECONDS from the environment into cacheTtlSeconds.stock', () => {
    expect(loadConfig({ CACHE_TTL_STOCK_SECONDS: '5' }).cacheTtlSeconds).toEqual({
      ...DEFAULT_CONFIG.cacheTtlSeconds,
      stock: 5,
    });
  });

  it('keeps store and counter 5 s instead of 60 s, and the list still 600 s', async () => {
    const key = freshKey();
    await stack.execute(EconomyStockDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(stack.simulator.requests).toHaveLength(3);

    setClock(T0 + 5 * SECOND - 1);
    const before = await stack.execute(EconomyStockDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(upstreamOf(before)).toEqual({ requests: 0, cacheHits: 3, coalesced: 0, stale: 0 });

    stack.simulator.resetRequests();
    setClock(T0 + 5 * SECOND);
    const after = await stack.execute(EconomyStockDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(upstreamOf(after)).toEqual({ requests: 2, cacheHits: 1, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests.map((request) => request.route).sort()).toEqual([
      'GET /factory/counter/{id}',
      'GET /factory/inventory/{id}',
    ]);
  });
});

describe('cross-request cache memory bound (cacheMaxBytes = 4096)', () => {
  const MAX_BYTES = 4096;
  const stack = useStack({ config: { cacheMaxBytes: MAX_BYTES } });

  it('never holds more than the bound: entries are evicted and fetched again', async () => {
    const key = freshKey();
    const first = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    expect(first.errors).toBeUndefined();
    const distinctPaths = new Set(stack.simulator.requests.map((request) => request.path));
    expect(distinctPaths.size).toBeGreaterThan(10);

    expect(stack.runtime.economy.stats().cacheBytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(stack.runtime.economy.stats().cacheBytes).toBeGreaterThan(0);
    expect(stack.runtime.economy.stats().cacheEntries).toBeLessThan(distinctPaths.size);

    stack.simulator.resetRequests();
    const second = await stack.execute(FactoryEverythingDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    expect(second.data).toEqual(first.data);
    expect(upstreamOf(second).requests).toBeGreaterThan(0);
    expect(upstreamOf(second).requests + upstreamOf(second).cacheHits).toBe(distinctPaths.size);
    expect(stack.runtime.economy.stats().cacheBytes).toBeLessThanOrEqual(MAX_BYTES);
  });
});
