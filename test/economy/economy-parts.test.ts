/**
 * The economy's parts seen from outside: the budget's statistics read every key without
 * reordering its LRU (so they end with any number of keys), the poll share subscriptions
 * take from the budget, and the `upstreamRequest` event tracing builds on (cache outcome,
 * budget wait, priority, retries). The upstream is a stub client (no network).
 */
import { OperationAccounting, UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller, UpstreamRequestEvent } from '../../src/economy';
import { KeyBudget } from '../../src/economy/budget/key-budget';
import { UpstreamCache } from '../../src/economy/cache/upstream-cache';
import { UpstreamError } from '../../src/errors/gateway-error';
import type { UpstreamClient } from '../../src/upstream/client';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { bareEconomyOptions } from '../support';

const MINUTE = 60_000;

describe('KeyBudget', () => {
  it('counts statistics over many keys without reordering them (a read inside the loop would never end)', () => {
    const budget = new KeyBudget({
      limit: { requests: 10, windowMs: MINUTE },
      concurrency: 6,
      patienceMs: 0,
      now: () => 0,
    });
    for (const id of ['a', 'b', 'c']) budget.coolDown(id, 1);
    expect(budget.budgetStats()).toEqual({
      windowRequests: 0,
      reducedKeys: 3,
      upstream429s: 3,
      queued: { write: 0, operation: 0, missed: 0, stale: 0, background: 0 },
    });
    // One key's (the console's keyBudgets), and a key nothing is known of.
    budget.coolDown('a', 1);
    expect(budget.budgetStats('a')).toEqual({
      windowRequests: 0,
      reducedKeys: 1,
      upstream429s: 2,
      queued: { write: 0, operation: 0, missed: 0, stale: 0, background: 0 },
    });
    expect(budget.budgetStats('z')).toEqual({
      windowRequests: 0,
      reducedKeys: 0,
      upstream429s: 0,
      queued: { write: 0, operation: 0, missed: 0, stale: 0, background: 0 },
    });
    expect(budget.allowance('a')).toBe(2);
    expect(budget.cooldownSeconds('b')).toBe(1);
  });

  it('gives subscription polls their share per minute of what the key may send now', () => {
    const budget = new KeyBudget({
      limit: { requests: 10, windowMs: MINUTE },
      concurrency: 6,
      patienceMs: 0,
      now: () => 0,
    });
    expect(budget.pollShare('a', 50)).toBe(5);
    budget.coolDown('a', 1); // an upstream 429 halves the allowance
    expect(budget.pollShare('a', 50)).toBe(2.5);
    const slow = new KeyBudget({ limit: { requests: 20, windowMs: 2 * MINUTE }, concurrency: 6, patienceMs: 0 });
    expect(slow.pollShare('a', 25)).toBe(2.5);
    expect(new KeyBudget({ limit: null, concurrency: 6, patienceMs: 0 }).pollShare('a', 50)).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

/** A client that answers from `answers` in order (or fails with what an answer throws); refill the array between tests. */
function scriptedClient(answers: Array<() => unknown>): UpstreamClient {
  return {
    send: async () => {
      const next = answers.shift();
      if (!next) throw new Error('unexpected upstream request');
      return { status: 200, body: next(), bytes: 10 };
    },
  } as unknown as UpstreamClient;
}

describe('UpstreamEconomy: the upstreamRequest event', () => {
  const events: UpstreamRequestEvent[] = [];
  const answers: Array<() => unknown> = [];
  const client = scriptedClient(answers);

  function economy(rateLimit: { requests: number; windowSeconds: number } | null = null): UpstreamEconomy {
    return new UpstreamEconomy(client, bareEconomyOptions({ rateLimit }), {
      upstreamRequest: (event) => events.push(event),
    });
  }

  const caller = (priority?: EconomyCaller['priority']): EconomyCaller => ({
    keyId: 'hashed-a',
    apiKey: 'key-a',
    noCache: false,
    priority,
    accounting: new OperationAccounting(),
  });

  beforeEach(() => {
    events.length = 0;
    answers.length = 0;
  });

  it('reports a miss, then a hit, then a joined flight, with the route and priority and no key', async () => {
    const upstream = economy();
    answers.push(() => []);
    await upstream.get(caller(), ENDPOINTS.factoryList);
    await upstream.get(caller(), ENDPOINTS.factoryList);
    answers.push(() => ({ items: [] }));
    await Promise.all([
      upstream.get(caller(), ENDPOINTS.factoryCounter, { id: '1' }),
      upstream.get(caller('background'), ENDPOINTS.factoryCounter, { id: '1' }),
    ]);
    expect(
      events.map(({ outcome, priority, route, retries, failed }) => ({ outcome, priority, route, retries, failed })),
    ).toEqual([
      { outcome: 'miss', priority: 'operation', route: ENDPOINTS.factoryList.route, retries: 0, failed: false },
      { outcome: 'hit', priority: 'operation', route: ENDPOINTS.factoryList.route, retries: 0, failed: false },
      { outcome: 'miss', priority: 'operation', route: ENDPOINTS.factoryCounter.route, retries: 0, failed: false },
      {
        outcome: 'coalesced',
        priority: 'background',
        route: ENDPOINTS.factoryCounter.route,
        retries: 0,
        failed: false,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain('key-a');
  });

  it('counts the retry of a 503 and reports a request the budget refused as failed', async () => {
    const upstream = economy({ requests: 2, windowSeconds: 60 });
    answers.push(() => {
      throw new UpstreamError('UPSTREAM_ERROR', ENDPOINTS.factoryList, {
        status: 503,
        endpoint: '/factory/list/',
        message: 'down',
      });
    });
    answers.push(() => []);
    await upstream.get(caller(), ENDPOINTS.factoryList);
    await expect(upstream.get(caller(), ENDPOINTS.factoryCounter, { id: '1' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(events.map(({ outcome, retries, failed }) => ({ outcome, retries, failed }))).toEqual([
      { outcome: 'miss', retries: 1, failed: false },
      { outcome: 'miss', retries: 0, failed: true },
    ]);
    expect(events.every((event) => event.budgetWaitMs >= 0)).toBe(true);
  });
});

describe('UpstreamEconomy: a no-cache read', () => {
  const answers: Array<() => unknown> = [];
  const client = scriptedClient(answers);
  const caller = (noCache: boolean): EconomyCaller => ({
    keyId: 'hashed-a',
    apiKey: 'key-a',
    noCache,
    accounting: new OperationAccounting(),
  });

  beforeEach(() => {
    answers.length = 0;
  });

  afterEach(() => jest.restoreAllMocks());

  it('does not decode what is cached before it fetches (a large answer would be parsed for nothing)', async () => {
    const upstream = new UpstreamEconomy(client, bareEconomyOptions());
    answers.push(() => [{ id: 'old' }]);
    await upstream.get(caller(false), ENDPOINTS.factoryList);
    const reads = jest.spyOn(UpstreamCache.prototype, 'get');
    answers.push(() => [{ id: 'new' }]);
    const fresh = await upstream.get(caller(true), ENDPOINTS.factoryList);
    expect(fresh).toMatchObject({ body: [{ id: 'new' }], stale: null });
    expect(reads).not.toHaveBeenCalled();
  });

  it('still falls back to what is cached when the upstream fails', async () => {
    const upstream = new UpstreamEconomy(client, bareEconomyOptions({ staleMaxAgeSeconds: 3600 }));
    answers.push(() => [{ id: 'old' }]);
    await upstream.get(caller(false), ENDPOINTS.factoryList);
    const down = (): never => {
      throw new UpstreamError('UPSTREAM_ERROR', ENDPOINTS.factoryList, {
        status: 503,
        endpoint: '/factory/list/',
        message: 'down',
      });
    };
    answers.push(down, down);
    const stale = await upstream.get(caller(true), ENDPOINTS.factoryList);
    expect(stale).toMatchObject({ body: [{ id: 'old' }] });
    expect(stale.stale).not.toBeNull();
  });
});
