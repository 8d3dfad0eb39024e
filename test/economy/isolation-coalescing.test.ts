/**
 * Per-key isolation, in-flight coalescing and the per-key concurrency limit, seen from
 * GraphQL with the simulator as the upstream. Overlap comes from the simulator's latency
 * (`setLatency`), never from sleeping in the test.
 */
import { keyId } from '../../src/economy';
import { UpstreamCache } from '../../src/economy/cache/upstream-cache';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import type { UpstreamCall, UpstreamResponse } from '../../src/upstream/client';
import { CompanyDashboardDocument, EconomyCounterDocument, EconomyStoresDocument } from '../generated/graphql';
import { startStack, upstreamOf } from '../support';
import type { Stack } from '../support';

/** `keyLabel path` of every request in the simulator's log, with how often it was made. */
function requestCounts(stack: Stack): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of stack.simulator.requests) {
    const id = `${request.keyLabel} ${request.method} ${request.path}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

// Spies on prototypes (the economy's parts are private) must not outlive their test.
afterEach(() => jest.restoreAllMocks());

describe('cross-key isolation', () => {
  let stack: Stack;

  beforeEach(async () => {
    stack = await startStack();
  });

  afterEach(async () => {
    await stack.close();
  });

  it("never gives key B key A's cached data, also for the same company id", async () => {
    const premium = await stack.execute(
      EconomyCounterDocument,
      { id: FIXTURE_IDS.shop },
      { key: DEMO_KEYS.premium.key },
    );
    expect(premium.data?.factory?.id).toBe(FIXTURE_IDS.shop);
    expect(premium.data?.factory?.counter?.items.length).toBeGreaterThan(0);

    // The other key's character does not own the shop: null, from its own list request.
    const other = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: DEMO_KEYS.other.key });
    expect(other.errors).toBeUndefined();
    expect(other.data).toEqual({ factory: null });
    expect(upstreamOf(other)).toEqual({ requests: 1, cacheHits: 0, coalesced: 0, stale: 0 });

    expect(stack.simulator.requests.map((request) => `${request.keyLabel} ${request.route}`)).toEqual([
      'premium GET /factory/list/',
      'premium GET /factory/counter/{id}',
      'other GET /factory/list/',
    ]);

    // And the premium key still gets its own cached answer.
    const again = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: DEMO_KEYS.premium.key });
    expect(again.data).toEqual(premium.data);
    expect(upstreamOf(again)).toEqual({ requests: 0, cacheHits: 2, coalesced: 0, stale: 0 });
  });

  it('two keys of the same character do not share entries either', async () => {
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: DEMO_KEYS.premium.key });
    const generated = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: 'sim-key-1' });
    expect(generated.data?.factory?.id).toBe(FIXTURE_IDS.shop);
    expect(upstreamOf(generated)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0 });
    expect(stack.simulator.countRequests({ keyLabel: 'generated' })).toBe(2);
  });

  it('keys cache entries by the hashed key, never by the key in clear', async () => {
    const set = jest.spyOn(UpstreamCache.prototype, 'set');
    const get = jest.spyOn(UpstreamCache.prototype, 'get');
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: DEMO_KEYS.premium.key });
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: DEMO_KEYS.other.key });

    const premiumId = keyId(DEMO_KEYS.premium.key, stack.config.keyHashSecret);
    const otherId = keyId(DEMO_KEYS.other.key, stack.config.keyHashSecret);
    const stored = set.mock.calls.map(([key]) => key);
    expect(stored.sort()).toEqual(
      [
        `${premiumId}|/factory/list/`,
        `${premiumId}|/factory/counter/${FIXTURE_IDS.shop}`,
        `${otherId}|/factory/list/`,
      ].sort(),
    );
    const looked = get.mock.calls.map(([key]) => key);
    expect(looked.length).toBeGreaterThan(0);
    for (const key of [...stored, ...looked]) {
      for (const secret of [DEMO_KEYS.premium.key, DEMO_KEYS.other.key]) expect(key).not.toContain(secret);
    }
  });
});

describe('in-flight coalescing', () => {
  let stack: Stack;

  beforeEach(async () => {
    stack = await startStack({ simulator: { latencyMs: 50 } });
  });

  afterEach(async () => {
    await stack.close();
  });

  it('50 concurrent identical operations on a cold cache make each distinct upstream request once', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => stack.execute(EconomyStoresDocument, {}, { key: DEMO_KEYS.premium.key })),
    );
    for (const result of results) {
      expect(result.errors).toBeUndefined();
      expect(result.data).toEqual(results[0]?.data);
    }
    const companies = results[0]?.data?.factories?.length ?? 0;
    expect(companies).toBeGreaterThan(1);
    const distinct = 1 + 2 * companies; // list + store and counter of each company

    const counts = requestCounts(stack);
    expect(counts.size).toBe(distinct);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);

    const accounting = results.map(upstreamOf);
    const sum = (field: 'requests' | 'cacheHits' | 'coalesced' | 'stale'): number =>
      accounting.reduce((total, a) => total + a[field], 0);
    expect(sum('requests')).toBe(distinct);
    expect(sum('coalesced')).toBeGreaterThan(0);
    expect(sum('stale')).toBe(0);
    // Every operation got each of its answers once: sent, shared or cached.
    for (const a of accounting) expect(a.requests + a.cacheHits + a.coalesced).toBe(distinct);
  });

  it('never coalesces across keys: two keys at once, each request made once per key', async () => {
    const keys = [DEMO_KEYS.premium.key, DEMO_KEYS.other.key];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stack.execute(EconomyStoresDocument, {}, { key: keys[i % 2] ?? null })),
    );
    for (const result of results) expect(result.errors).toBeUndefined();

    const counts = requestCounts(stack);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    const labels = new Set(stack.simulator.requests.map((request) => request.keyLabel));
    expect(labels).toEqual(new Set(['premium', 'other']));
    // The list was requested once for each key, with that key.
    expect(stack.simulator.countRequests({ route: 'GET /factory/list/', keyLabel: 'premium' })).toBe(1);
    expect(stack.simulator.countRequests({ route: 'GET /factory/list/', keyLabel: 'other' })).toBe(1);
    // Each key's operations see their own character's companies.
    const premiumIds = results[0]?.data?.factories?.map((f) => f.id);
    const otherIds = results[1]?.data?.factories?.map((f) => f.id);
    expect(premiumIds).toContain(FIXTURE_IDS.shop);
    expect(otherIds).toContain(FIXTURE_IDS.otherFactory);
    expect(otherIds).not.toContain(FIXTURE_IDS.shop);
  });
});

describe('concurrency limit per key', () => {
  /** Wraps the client's `send` to record the most requests in flight, per key and in total. */
  function trackInFlight(stack: Stack): { perKey: Map<string, number>; total: () => number } {
    const upstream = stack.runtime.upstream;
    const original = upstream.send.bind(upstream);
    const active = new Map<string, number>();
    const perKey = new Map<string, number>();
    let current = 0;
    let most = 0;
    jest.spyOn(upstream, 'send').mockImplementation(async (call: UpstreamCall): Promise<UpstreamResponse> => {
      const now = (active.get(call.apiKey) ?? 0) + 1;
      active.set(call.apiKey, now);
      perKey.set(call.apiKey, Math.max(perKey.get(call.apiKey) ?? 0, now));
      current += 1;
      most = Math.max(most, current);
      try {
        return await original(call);
      } finally {
        active.set(call.apiKey, (active.get(call.apiKey) ?? 1) - 1);
        current -= 1;
      }
    });
    return { perKey, total: () => most };
  }

  it('keeps at most 10 requests of a key in flight by default (and uses all 10)', async () => {
    const stack = await startStack({ simulator: { latencyMs: 20 } });
    try {
      expect(stack.config.upstreamConcurrencyPerKey).toBe(10);
      const inFlight = trackInFlight(stack);
      const result = await stack.execute(CompanyDashboardDocument, {}, { key: DEMO_KEYS.premium.key });
      expect(result.errors).toBeUndefined();
      expect(stack.simulator.requests.length).toBeGreaterThan(30);
      expect(inFlight.perKey.get(DEMO_KEYS.premium.key)).toBe(10);
    } finally {
      await stack.close();
    }
  });

  it('applies the limit per key: two keys together have up to twice as many in flight', async () => {
    const stack = await startStack({ simulator: { latencyMs: 10 }, config: { upstreamConcurrencyPerKey: 2 } });
    try {
      const inFlight = trackInFlight(stack);
      const results = await Promise.all([
        stack.execute(CompanyDashboardDocument, {}, { key: DEMO_KEYS.premium.key }),
        stack.execute(CompanyDashboardDocument, {}, { key: DEMO_KEYS.other.key }),
      ]);
      for (const result of results) expect(result.errors).toBeUndefined();
      expect(inFlight.perKey.get(DEMO_KEYS.premium.key)).toBe(2);
      expect(inFlight.perKey.get(DEMO_KEYS.other.key)).toBe(2);
      expect(inFlight.total()).toBe(4);
    } finally {
      await stack.close();
    }
  });
});
