/**
 * Subscription polls and queries of one key on one budget: polls go through
 * `economy.fetchInBackground`, so a query waiting for the key's budget is sent before a
 * poll that waits too, together they never take the key past `UPSTREAM_RATE_LIMIT`, and
 * the polling share follows the key's allowance (halved by an upstream 429).
 *
 * A real {@link UpstreamEconomy} (cache, coalescing, sliding-window budget with its
 * priorities) in front of an upstream stub that logs when each request was sent; jest's
 * fake timers drive the clock, the budget's waits and the pollers' timers together, so
 * minutes pass without waiting.
 */
import { OperationAccounting, UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller } from '../../src/economy';
import { DEFAULT_CONFIG } from '../../src/config';
import { WINDOW_EDGE_MARGIN_MS } from '../../src/economy/budget/key-budget';
import { pollBudgetPerMinute } from '../../src/subscriptions';
import { PollHub } from '../../src/subscriptions/poll-hub';
import type { PollClock } from '../../src/subscriptions/poll-hub';
import type { Feed } from '../../src/domains/feeds/feed';
import { UpstreamError } from '../../src/errors/gateway-error';
import { UpstreamClient } from '../../src/upstream/client';
import type { UpstreamCall, UpstreamResponse } from '../../src/upstream/client';
import { buildPath, ENDPOINTS } from '../../src/upstream/endpoints';

const KEY = { keyId: 'key-id-a', apiKey: 'secret-a' };
const MINUTE = 60_000;

/** The upstream: answers at once and logs what was sent when. */
class LoggingUpstream extends UpstreamClient {
  readonly sent: Array<{ at: number; path: string }> = [];
  /** Answer the next request with a 429 (`Retry-After: 1`). */
  tooManyNext = false;

  constructor() {
    super({ baseUrl: 'http://upstream.invalid/req', timeoutMs: 1000 });
  }

  override send(call: UpstreamCall): Promise<UpstreamResponse> {
    const path = call.path ?? buildPath(call.endpoint, call.params);
    this.sent.push({ at: Date.now(), path });
    if (this.tooManyNext) {
      this.tooManyNext = false;
      const upstream = { status: 429, endpoint: call.endpoint.route, message: 'Too Many Requests' };
      return Promise.reject(new UpstreamError('RATE_LIMITED', call.endpoint, upstream, { retryAfterSeconds: 1 }));
    }
    return Promise.resolve({ status: 200, body: { path, at: Date.now() }, bytes: 64 });
  }

  /** The most requests sent in any window of `windowMs` (a sliding window over the log). */
  busiestWindow(windowMs: number): number {
    let most = 0;
    for (let i = 0; i < this.sent.length; i += 1) {
      const start = this.sent[i]?.at ?? 0;
      most = Math.max(most, this.sent.filter((each) => each.at >= start && each.at < start + windowMs).length);
    }
    return most;
  }
}

/** A feed over one counter: its state is the raw body, an event per changed body. */
function counterFeed(id: string): Feed<unknown, unknown> {
  return {
    kind: 'counter',
    resource: `counter/${id}`,
    endpoint: ENDPOINTS.factoryCounter,
    async poll(session) {
      const reply = await session.get(ENDPOINTS.factoryCounter, { id });
      return reply.body;
    },
    diff: (previous, next) => (JSON.stringify(previous) === JSON.stringify(next) ? [] : [next]),
  };
}

/** The pollers' clock on jest's fake timers. */
const FAKE_CLOCK: PollClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * An economy with `rateLimit` per key, and pollers at `intervalMs` stretched to 50 % of
 * the key's budget (or never, with `stretch: false`).
 */
function setup(rateLimit: { requests: number; windowSeconds: number }, intervalMs: number, stretch = true) {
  const upstream = new LoggingUpstream();
  const economy = new UpstreamEconomy(upstream, {
    cacheEnabled: true,
    cacheMaxBytes: 1024 * 1024,
    ttlSeconds: { ...DEFAULT_CONFIG.cacheTtlSeconds, stock: intervalMs / 1000 },
    staleMaxAgeSeconds: 3600,
    defaultBackoffSeconds: 60,
    retryDelayMs: 100,
    rateLimit,
    concurrencyPerKey: 6,
    patienceMs: 10 * MINUTE,
    now: () => Date.now(),
  });
  const hub = new PollHub({
    economy,
    intervalMs: () => intervalMs,
    errorEventsAfter: 3,
    retryBaseMs: 5000,
    pollBudgetPerMinute: (keyId) =>
      stretch
        ? pollBudgetPerMinute(
            { upstreamRateLimit: rateLimit, subscriptionBudgetPercent: 50 },
            economy.budgetOf(keyId).allowance,
          )
        : Number.POSITIVE_INFINITY,
    clock: FAKE_CLOCK,
  });
  return { upstream, economy, hub };
}

/** A query's GET, at operation priority (what a resolver does through its session). */
function query(economy: UpstreamEconomy, id: string): Promise<unknown> {
  const caller: EconomyCaller = { ...KEY, noCache: false, accounting: new OperationAccounting() };
  return economy.get(caller, ENDPOINTS.factoryInventory, { id });
}

describe('subscription polls on the key budget', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: Date.UTC(2025, 5, 1, 12, 0, 0) });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('sends a query waiting for the budget before a poll that waits longer', async () => {
    // One request per minute: the starting poll spends it; a poll and a query then wait.
    // (Intervals unstretched, so that a poll falls due while the budget is spent.)
    const { upstream, economy, hub } = setup({ requests: 1, windowSeconds: 60 }, 10_000, false);
    const t0 = Date.now();
    await hub.subscribe(KEY, counterFeed('c1'), () => undefined);
    expect(upstream.sent).toEqual([{ at: t0, path: '/factory/counter/c1' }]);

    // The poll falls due at 10 s and waits for the budget (free again at 60 s) ...
    await jest.advanceTimersByTimeAsync(10_000);
    // ... and a query arrives at 20 s and waits too.
    await jest.advanceTimersByTimeAsync(10_000);
    const answered = query(economy, 'f1');
    await jest.advanceTimersByTimeAsync(1000);
    expect(economy.stats().queued).toEqual({ write: 0, operation: 1, missed: 0, stale: 0, background: 1 });
    expect(upstream.sent).toHaveLength(1);

    await jest.advanceTimersByTimeAsync(40_000 + WINDOW_EDGE_MARGIN_MS);
    await answered;
    // When the window has passed (60 s after the first answer, plus the edge margin) the query
    // goes, though the poll waited longer; the poll gets the next window.
    expect(upstream.sent).toEqual([
      { at: t0, path: '/factory/counter/c1' },
      { at: t0 + MINUTE + WINDOW_EDGE_MARGIN_MS, path: '/factory/inventory/f1' },
    ]);
    await jest.advanceTimersByTimeAsync(MINUTE + WINDOW_EDGE_MARGIN_MS);
    expect(upstream.sent[2]).toEqual({ at: t0 + 2 * (MINUTE + WINDOW_EDGE_MARGIN_MS), path: '/factory/counter/c1' });
    hub.close();
  });

  it('keeps polls and queries of one key within the sliding-window budget together', async () => {
    const limit = { requests: 10, windowSeconds: 60 };
    const { upstream, economy, hub } = setup(limit, 10_000);
    // Three counters polled every 10 s would be 18 polls a minute; the polling share is 5.
    for (const id of ['c1', 'c2', 'c3']) await hub.subscribe(KEY, counterFeed(id), () => undefined);
    expect(hub.currentIntervalMs(KEY.keyId, 'counter/c1')).toBe(36_000);

    // A query for a new company every 4 s (every one a cache miss) for 10 minutes.
    const queries: Array<Promise<unknown>> = [];
    for (let second = 0; second < 600; second += 4) {
      queries.push(query(economy, `f${second}`).catch((error: unknown) => error));
      await jest.advanceTimersByTimeAsync(4000);
    }
    await jest.advanceTimersByTimeAsync(10 * MINUTE);
    await Promise.all(queries);
    hub.close();

    expect(upstream.busiestWindow(limit.windowSeconds * 1000)).toBeLessThanOrEqual(limit.requests);
    const polls = upstream.sent.filter((each) => each.path.startsWith('/factory/counter/')).length;
    const queried = upstream.sent.filter((each) => each.path.startsWith('/factory/inventory/')).length;
    // Queries were waiting nearly all the time, and went first: polls got what was left.
    expect(queried).toBeGreaterThan(polls);
    expect(polls).toBeGreaterThanOrEqual(3);
  });

  it("stretches the intervals further when an upstream 429 halved the key's allowance", async () => {
    const { upstream, economy, hub } = setup({ requests: 10, windowSeconds: 60 }, 10_000);
    for (const id of ['c1', 'c2', 'c3']) await hub.subscribe(KEY, counterFeed(id), () => undefined);
    // 18 polls a minute wanted, 5 allowed.
    expect(hub.currentIntervalMs(KEY.keyId, 'counter/c1')).toBe(36_000);

    upstream.tooManyNext = true;
    await expect(query(economy, 'f1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(economy.budgetOf(KEY.keyId).allowance).toBe(5);
    // 2.5 polls a minute now.
    expect(hub.currentIntervalMs(KEY.keyId, 'counter/c1')).toBe(72_000);
    hub.close();
  });
});

describe('pollBudgetPerMinute', () => {
  it("is SUBSCRIPTION_BUDGET_PERCENT of the key's allowance per minute, unlimited when the budget is off", () => {
    const config = { upstreamRateLimit: { requests: 10, windowSeconds: 60 }, subscriptionBudgetPercent: 50 };
    expect(pollBudgetPerMinute(config, 10)).toBe(5);
    // After a 429 halved the key's allowance.
    expect(pollBudgetPerMinute(config, 5)).toBe(2.5);
    expect(
      pollBudgetPerMinute(
        { upstreamRateLimit: { requests: 20, windowSeconds: 120 }, subscriptionBudgetPercent: 25 },
        20,
      ),
    ).toBe(2.5);
    expect(
      pollBudgetPerMinute({ upstreamRateLimit: null, subscriptionBudgetPercent: 50 }, Number.POSITIVE_INFINITY),
    ).toBe(Number.POSITIVE_INFINITY);
  });
});
