/**
 * Everything in the economy that waits, driven by jest's fake timers (no test sleeps):
 * the per-key budget (`upstreamRateLimit`, a sliding-window log) with its queue
 * timeout, seen from GraphQL, and the jittered delay before the one GET retry.
 *
 * Sockets keep working: `setImmediate`, `nextTick` and microtasks stay real, so the
 * tests turn the event loop (harness `until`) while every timer waits for
 * `jest.advanceTimersByTime`.
 */
import { MockAgent } from 'undici';
import { OperationAccounting, UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller } from '../../src/economy';
import { KeyBudget as KeyLimiter, WINDOW_EDGE_MARGIN_MS } from '../../src/economy/budget/key-budget';
import { DEFAULT_CONFIG } from '../../src/config';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { UpstreamClient } from '../../src/upstream/client';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { EconomyCounterDocument, EconomyFactoryIdsDocument } from '../generated/graphql';
import { errorAt, staleOf, startStack, T0, turn, until, upstreamError, upstreamOf } from '../support';
import type { Stack } from '../support';

const LIST = 'GET /factory/list/';
const COUNTER = 'GET /factory/counter/{id}';

/** Fakes every timer and `Date`; I/O callbacks, `setImmediate` and `nextTick` stay real. */
function useFakeTimers(): void {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'performance', 'hrtime'],
    now: T0,
  });
}

/** A few event-loop turns: enough for a request that could go out to reach the simulator. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i += 1) await turn();
}

// Spies on prototypes (the economy's parts are private) must not outlive their test.
afterEach(() => jest.restoreAllMocks());

describe('per-key budget over GraphQL', () => {
  let stack: Stack;

  afterEach(async () => {
    jest.useRealTimers();
    await stack.close();
  });

  it('a request over budget waits until the window has room and succeeds when that comes within upstreamPatienceMs', async () => {
    stack = await startStack({
      config: { upstreamRateLimit: { requests: 1, windowSeconds: 1 }, upstreamPatienceMs: 2000 },
    });
    useFakeTimers();
    const acquire = jest.spyOn(KeyLimiter.prototype, 'acquire');

    const pending = stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    // The list took the window's only request; the counter waits until it has left the window, one second
    // after the list's answer came back (plus the edge margin).
    await until(() => acquire.mock.calls.length === 2, 'the counter request to ask for budget');
    expect(stack.simulator.requests.map((request) => request.route)).toEqual([LIST]);

    jest.advanceTimersByTime(999 + WINDOW_EDGE_MARGIN_MS);
    await turns();
    expect(stack.simulator.requests.map((request) => request.route)).toEqual([LIST]);

    jest.advanceTimersByTime(1);
    const result = await pending;
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.counter?.items.length).toBeGreaterThan(0);
    expect(stack.simulator.requests.map((request) => request.route)).toEqual([LIST, COUNTER]);
    expect(upstreamOf(result)).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0 });
  });

  it('fails RATE_LIMITED at once, without a request, when the wait would exceed upstreamPatienceMs; other keys go on', async () => {
    stack = await startStack({
      config: { upstreamRateLimit: { requests: 1, windowSeconds: 1 }, upstreamPatienceMs: 500 },
    });
    useFakeTimers();

    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(result.data?.factory?.id).toBe(FIXTURE_IDS.shop);
    expect(result.data?.factory?.counter).toBeNull();
    // The window of 1 s ends 1.25 s after the list's answer (the edge margin): 2 whole seconds.
    expect(errorAt(result, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 2 },
    });
    expect(upstreamOf(result)).toEqual({ requests: 1, cacheHits: 0, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests.map((request) => request.route)).toEqual([LIST]);

    const other = await stack.execute(EconomyFactoryIdsDocument, {}, { key: DEMO_KEYS.other.key });
    expect(other.errors).toBeUndefined();
    expect(stack.simulator.countRequests({ keyLabel: 'other' })).toBe(1);
  });

  it('serves a cached value as stale (reason RATE_LIMITED) when the budget is spent', async () => {
    stack = await startStack({
      config: { upstreamRateLimit: { requests: 3, windowSeconds: 120 }, upstreamPatienceMs: 0 },
    });
    useFakeTimers();
    const first = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(first.errors).toBeUndefined();

    // 61 s later the window (120 s) still holds the first two requests; a no-cache list read takes the third.
    jest.advanceTimersByTime(61_000);
    const spend = await stack.execute(EconomyFactoryIdsDocument, {}, { headers: { 'cache-control': 'no-cache' } });
    expect(upstreamOf(spend).requests).toBe(1);

    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(first.data);
    expect(staleOf(result)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 61, reason: 'RATE_LIMITED' },
    ]);
    expect(upstreamOf(result)).toEqual({ requests: 0, cacheHits: 1, coalesced: 0, stale: 1 });
    expect(stack.simulator.requests).toHaveLength(3);
  });
});

describe('retry delay with jitter (UpstreamEconomy with a MockAgent client)', () => {
  const ORIGIN = 'https://statev.mock';
  let mockAgent: MockAgent;
  let client: UpstreamClient;
  let statuses: Array<number | null>;

  beforeEach(() => {
    useFakeTimers();
    mockAgent = new MockAgent();
    mockAgent.disableNetConnect();
    client = new UpstreamClient({ baseUrl: `${ORIGIN}/req`, timeoutMs: 5000, dispatcher: mockAgent });
    statuses = [];
    client.observe((observation) => statuses.push(observation.status));
  });

  afterEach(async () => {
    jest.useRealTimers();
    try {
      mockAgent.assertNoPendingInterceptors();
    } finally {
      await client.close();
      await mockAgent.close();
    }
  });

  function economy(random: () => number): UpstreamEconomy {
    return new UpstreamEconomy(client, {
      cacheEnabled: true,
      cacheMaxBytes: DEFAULT_CONFIG.cacheMaxBytes,
      ttlSeconds: DEFAULT_CONFIG.cacheTtlSeconds,
      staleMaxAgeSeconds: DEFAULT_CONFIG.staleMaxAgeSeconds,
      defaultBackoffSeconds: DEFAULT_CONFIG.rateLimitBackoffSeconds,
      retryDelayMs: 200,
      rateLimit: null,
      concurrencyPerKey: 6,
      patienceMs: 2000,
      now: () => Date.now(),
      random,
    });
  }

  function caller(): EconomyCaller {
    return {
      keyId: 'hashed-key',
      apiKey: DEMO_KEYS.premium.key,
      noCache: false,
      accounting: new OperationAccounting(),
    };
  }

  it.each([
    [0, 100],
    [0.5, 200],
    [0.75, 250],
  ])('waits retryDelayMs × (0.5 + random) before the retry (random %d → %i ms)', async (random, delayMs) => {
    const pool = mockAgent.get(ORIGIN);
    pool
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'));
    pool
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(200, '[]', { headers: { 'content-type': 'application/json' } });
    const who = caller();

    let settled = false;
    const pending = economy(() => random)
      .get(who, ENDPOINTS.factoryList)
      .finally(() => {
        settled = true;
      });
    await until(() => statuses.length === 1, 'the first attempt');
    expect(statuses).toEqual([503]);

    jest.advanceTimersByTime(delayMs - 1);
    await turns();
    expect(statuses).toEqual([503]);
    expect(settled).toBe(false);

    jest.advanceTimersByTime(1);
    const reply = await pending;
    expect(reply).toEqual({ body: [], stale: null });
    expect(statuses).toEqual([503, 200]);
    expect(who.accounting.toJSON()).toEqual({ requests: 2, cacheHits: 0, coalesced: 0, stale: 0, maxAgeSeconds: 0 });
  });
});
