/**
 * Rate-limit awareness: after an upstream 429 the gateway sends nothing more for that
 * key until `Retry-After` has passed (both header forms, and the default backoff when
 * the header is missing); meanwhile fields answer RATE_LIMITED with a counting-down
 * `retryAfterSeconds`, or stale data when a cached value exists; other keys go on.
 *
 * The clock is a faked `Date` shared by the gateway and the simulator (test/support), so
 * the simulator's rate-limit window and the gateway's cooldown run on the same time.
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { EconomyCounterDocument, EconomyFactoryIdsDocument, EconomyInventoryDocument } from '../generated/graphql';
import { errorAt, setClock, staleOf, startStack, T0, upstreamError, upstreamOf, useFakeDate } from '../support';
import type { Stack } from '../support';

const SECOND = 1000;
const COUNTER = 'GET /factory/counter/{id}';
const COUNTER_PATH = `/req/factory/counter/${FIXTURE_IDS.shop}`;
const premium = { key: DEMO_KEYS.premium.key };
const other = { key: DEMO_KEYS.other.key };

describe('upstream 429 from the simulator (Retry-After in seconds)', () => {
  let stack: Stack;

  beforeEach(async () => {
    useFakeDate(T0);
    stack = await startStack();
  });

  afterEach(async () => {
    jest.useRealTimers();
    await stack.close();
  });

  it('sends nothing more for the key until Retry-After has passed, answering RATE_LIMITED counting down', async () => {
    stack.simulator.setRateLimit({ requests: 1, windowSeconds: 30 });

    const list = await stack.execute(EconomyFactoryIdsDocument, {}, premium);
    expect(list.errors).toBeUndefined();

    const limited = await stack.execute(EconomyInventoryDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(limited.data?.factory?.id).toBe(FIXTURE_IDS.shop); // the list came from the cache
    expect(limited.data?.factory?.inventory).toBeNull();
    expect(errorAt(limited, ['factory', 'inventory'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 30 },
    });
    expect(upstreamOf(limited)).toEqual({ requests: 1, cacheHits: 1, coalesced: 0, stale: 0 });
    expect(stack.simulator.requests.map((request) => request.status)).toEqual([200, 429]);

    // During the cooldown: not a single request for the key, whatever is asked.
    setClock(T0 + 10 * SECOND);
    const during = await stack.execute(EconomyInventoryDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(during, ['factory', 'inventory'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 20 },
    });
    expect(upstreamOf(during)).toEqual({ requests: 0, cacheHits: 1, coalesced: 0, stale: 0 });
    const counter = await stack.execute(
      EconomyCounterDocument,
      { id: FIXTURE_IDS.shop },
      { ...premium, headers: { 'cache-control': 'no-cache' } },
    );
    expect(errorAt(counter, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 20 },
    });
    expect(stack.simulator.countRequests({ keyLabel: 'premium' })).toBe(2);

    // Another key is not affected.
    const otherKey = await stack.execute(EconomyFactoryIdsDocument, {}, other);
    expect(otherKey.errors).toBeUndefined();
    expect(otherKey.data?.factories?.map((factory) => factory.id)).toContain(FIXTURE_IDS.otherFactory);
    expect(stack.simulator.countRequests({ keyLabel: 'other' })).toBe(1);

    setClock(T0 + 30 * SECOND - 1);
    const last = await stack.execute(EconomyInventoryDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(last, ['factory', 'inventory'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 1 },
    });
    expect(stack.simulator.countRequests({ keyLabel: 'premium' })).toBe(2);

    // Retry-After has passed: requests flow again (and the simulator's window is over too).
    setClock(T0 + 30 * SECOND);
    const after = await stack.execute(EconomyInventoryDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(after.errors).toBeUndefined();
    expect(after.data?.factory?.inventory?.items.length).toBeGreaterThan(0);
    expect(upstreamOf(after)).toEqual({ requests: 1, cacheHits: 1, coalesced: 0, stale: 0 });
    expect(stack.simulator.countRequests({ keyLabel: 'premium' })).toBe(3);
    expect(stack.simulator.requests.at(-1)).toMatchObject({
      keyLabel: 'premium',
      route: 'GET /factory/inventory/{id}',
      status: 200,
    });
  });

  it('serves a cached value as stale (reason RATE_LIMITED) on a 429 and during the cooldown', async () => {
    const first = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(first.errors).toBeUndefined();

    // 61 s later the counter (60 s) is no longer fresh; a no-cache list read spends the window.
    setClock(T0 + 61 * SECOND);
    stack.simulator.setRateLimit({ requests: 1, windowSeconds: 30 });
    const spend = await stack.execute(
      EconomyFactoryIdsDocument,
      {},
      { ...premium, headers: { 'cache-control': 'no-cache' } },
    );
    expect(upstreamOf(spend).requests).toBe(1);

    const limited = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(stack.simulator.requests.at(-1)).toMatchObject({ route: COUNTER, status: 429 });
    expect(limited.errors).toBeUndefined();
    expect(limited.data).toEqual(first.data);
    expect(staleOf(limited)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 61, reason: 'RATE_LIMITED' },
    ]);
    expect(upstreamOf(limited)).toEqual({ requests: 1, cacheHits: 1, coalesced: 0, stale: 1 });

    setClock(T0 + 75 * SECOND);
    const requestsBefore = stack.simulator.requests.length;
    const during = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(stack.simulator.requests).toHaveLength(requestsBefore);
    expect(during.errors).toBeUndefined();
    expect(during.data).toEqual(first.data);
    expect(staleOf(during)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 75, reason: 'RATE_LIMITED' },
    ]);
    expect(upstreamOf(during)).toEqual({ requests: 0, cacheHits: 1, coalesced: 0, stale: 1 });
  });
});

describe('upstream 429 scripted with MockAgent', () => {
  let stack: Stack;

  afterEach(async () => {
    jest.useRealTimers();
    try {
      stack.mockAgent?.assertNoPendingInterceptors();
    } finally {
      await stack.close();
    }
  });

  it('honours Retry-After as an HTTP date', async () => {
    useFakeDate(T0);
    stack = await startStack({ mock: true });
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(
        upstreamError(429, 'ThrottlerException: Too Many Requests', 'Too Many Requests', {
          'retry-after': new Date(T0 + 45 * SECOND).toUTCString(),
        }),
      );

    const limited = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(limited, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 45 },
    });
    expect(stack.attemptsOf(COUNTER).map((attempt) => attempt.status)).toEqual([429]);

    setClock(T0 + 10 * SECOND);
    const during = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(during, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 35 },
    });
    expect(stack.attempts).toHaveLength(2); // the list and the 429, nothing more

    setClock(T0 + 45 * SECOND - 1);
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(stack.attempts).toHaveLength(2);

    setClock(T0 + 45 * SECOND);
    const after = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(after.errors).toBeUndefined();
    expect(stack.attemptsOf(COUNTER).map((attempt) => attempt.status)).toEqual([429, 200]);
    expect(stack.simulator.countRequests({ route: COUNTER })).toBe(1);
  });

  it('cools down for rateLimitBackoffSeconds (default 60) when Retry-After is missing', async () => {
    useFakeDate(T0);
    stack = await startStack({ mock: true });
    expect(stack.config.rateLimitBackoffSeconds).toBe(60);
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(429, 'Too Many Requests', 'Too Many Requests'));

    const limited = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(limited, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 60 },
    });

    setClock(T0 + 60 * SECOND - 1);
    const during = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(during, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 1 },
    });
    expect(stack.attemptsOf(COUNTER)).toHaveLength(1);

    // Other keys are not cooled down.
    const otherKey = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.otherFactory }, other);
    expect(otherKey.errors).toBeUndefined();
    expect(otherKey.data?.factory?.counter).not.toBeNull();

    setClock(T0 + 60 * SECOND);
    const after = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(after.errors).toBeUndefined();
    expect(stack.attemptsOf(COUNTER).filter((attempt) => attempt.status === 200)).toHaveLength(2); // other key's and this one
  });

  it('doubles its own backoff while header-less 429s follow each other, and starts again after a clear window', async () => {
    useFakeDate(T0);
    stack = await startStack({ mock: true, config: { rateLimitBackoffSeconds: 10, retryAfterMaxSeconds: 30 } });
    const refuse = (): void => {
      stack
        ?.upstream()
        .intercept({ path: COUNTER_PATH, method: 'GET' })
        .reply(upstreamError(429, 'Too Many Requests', 'Too Many Requests'));
    };
    const backoff = async (): Promise<unknown> => {
      const result = await stack!.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
      return errorAt(result, ['factory', 'counter'])?.extensions?.['retryAfterSeconds'];
    };

    refuse();
    expect(await backoff()).toBe(10);
    setClock(T0 + 10 * SECOND);
    refuse();
    expect(await backoff()).toBe(20); // the upstream still says no: twice as long
    setClock(T0 + 30 * SECOND);
    refuse();
    expect(await backoff()).toBe(30); // 40, capped by retryAfterMaxSeconds
    expect(stack.attemptsOf(COUNTER).map((attempt) => attempt.status)).toEqual([429, 429, 429]);

    // A whole window (60 s) after the last backoff ended without a 429: the next starts at 10 s again.
    setClock(T0 + 60 * SECOND + 60 * SECOND);
    refuse();
    expect(await backoff()).toBe(10);
  });

  it('uses a configured rateLimitBackoffSeconds', async () => {
    useFakeDate(T0);
    stack = await startStack({ mock: true, config: { rateLimitBackoffSeconds: 7 } });
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(429, 'Too Many Requests', 'Too Many Requests'));

    const limited = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(errorAt(limited, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 7 },
    });
    setClock(T0 + 7 * SECOND);
    const after = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, premium);
    expect(after.errors).toBeUndefined();
  });
});
