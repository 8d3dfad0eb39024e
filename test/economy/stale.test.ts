/**
 * Stale data: when fresh data fails (5xx, timeout, connection error; 429 is covered in
 * rate-limit.test.ts) and a cached value no older than `staleMaxAgeSeconds` exists, it
 * is served, and `extensions.stale` names the field path, the endpoint pattern, the age
 * in whole seconds and the reason. Older than the window: the error instead.
 *
 * Failures are scripted with a MockAgent in front of the simulator; the clock is a
 * faked `Date` (test/support), and for the upstream timeout every timer is faked. Each
 * test uses its own key, so its cache starts empty.
 */
import { FIXTURE_IDS } from '../../src/simulator';
import { EconomyCounterDocument, EconomyFactoryIdsDocument } from '../generated/graphql';
import type { EconomyCounterQuery } from '../generated/graphql';
import {
  errorAt,
  setClock,
  staleOf,
  startStack,
  T0,
  until,
  upstreamError,
  upstreamOf,
  useFakeDate,
  useFakeTimersWithRealIo,
} from '../support';
import type { Result, Stack } from '../support';

const SECOND = 1000;
const COUNTER = 'GET /factory/counter/{id}';
const LIST = 'GET /factory/list/';
const counterPath = (id: string): string => `/req/factory/counter/${id}`;

let keyNumber = 300;
function freshKey(): string {
  keyNumber += 1;
  return `sim-key-${keyNumber}`;
}

describe('stale fallback', () => {
  let stack: Stack;

  beforeAll(async () => {
    useFakeDate(T0);
    stack = await startStack({ mock: true });
  });

  afterEach(() => {
    stack.mockAgent?.assertNoPendingInterceptors();
    stack.attempts.length = 0;
    setClock(T0);
  });

  afterAll(async () => {
    jest.useRealTimers();
    await stack.close();
  });

  /** Reads the shop's counter at T0 so the key has it cached; returns the result. */
  async function primeCounter(key: string, id: string = FIXTURE_IDS.shop): Promise<Result<EconomyCounterQuery>> {
    setClock(T0);
    const first = await stack.execute(EconomyCounterDocument, { id }, { key });
    expect(first.errors).toBeUndefined();
    return first;
  }

  it.each([
    ['a 503 (twice)', 'UPSTREAM_ERROR', 503],
    ['a 502 (twice)', 'UPSTREAM_ERROR', 502],
    ['a 500', 'UPSTREAM_ERROR', 500],
    ['a 504 (twice)', 'UPSTREAM_TIMEOUT', 504],
  ])('serves the cached counter after %s, with reason %s', async (_name, reason, status) => {
    const key = freshKey();
    const first = await primeCounter(key);
    setClock(T0 + 61 * SECOND); // the counter (60 s) is no longer fresh, the list (600 s) is
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.shop), method: 'GET' })
      .reply(upstreamError(status, 'failure', 'Error'))
      .times(status === 500 ? 1 : 2);

    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(first.data);
    expect(staleOf(result)).toEqual([{ path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 61, reason }]);
    expect(upstreamOf(result)).toEqual({ requests: status === 500 ? 1 : 2, cacheHits: 1, coalesced: 0, stale: 1 });
  });

  it('serves the cached counter after two connection errors (UPSTREAM_ERROR)', async () => {
    const key = freshKey();
    const first = await primeCounter(key);
    setClock(T0 + 90 * SECOND + 999);
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.shop), method: 'GET' })
      .replyWithError(new Error('ECONNRESET'))
      .times(2);

    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(first.data);
    expect(staleOf(result)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 90, reason: 'UPSTREAM_ERROR' },
    ]);
  });

  it('names the list field when the company list is served stale', async () => {
    const key = freshKey();
    setClock(T0);
    const first = await stack.execute(EconomyFactoryIdsDocument, {}, { key });
    setClock(T0 + 601 * SECOND);
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);

    const result = await stack.execute(EconomyFactoryIdsDocument, {}, { key });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(first.data);
    expect(staleOf(result)).toEqual([
      { path: ['factories'], endpoint: LIST, ageSeconds: 601, reason: 'UPSTREAM_ERROR' },
    ]);
  });

  it('serves stale up to staleMaxAgeSeconds (default 3600) and the error after it', async () => {
    const key = freshKey();
    expect(stack.config.staleMaxAgeSeconds).toBe(3600);
    const first = await primeCounter(key);

    setClock(T0 + 3600 * SECOND);
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.shop), method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);
    const atLimit = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(atLimit.errors).toBeUndefined();
    expect(atLimit.data).toEqual(first.data);
    expect(staleOf(atLimit)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 3600, reason: 'UPSTREAM_ERROR' },
    ]);

    setClock(T0 + 3600 * SECOND + 1);
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.shop), method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);
    const tooOld = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(tooOld.data?.factory?.counter).toBeNull();
    expect(errorAt(tooOld, ['factory', 'counter'])).toMatchObject({
      code: 'UPSTREAM_ERROR',
      extensions: { upstream: { status: 503 } },
    });
    expect(staleOf(tooOld)).toEqual([]);
    expect(tooOld.extensions?.stale).toBeUndefined();
    expect(upstreamOf(tooOld)).toMatchObject({ stale: 0 });
  });

  it('when a no-cache fetch fails, serves the cached value as stale and keeps it', async () => {
    const key = freshKey();
    const first = await primeCounter(key);
    setClock(T0 + 10 * SECOND);
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.shop), method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);

    const result = await stack.execute(
      EconomyCounterDocument,
      { id: FIXTURE_IDS.shop },
      { key, headers: { 'cache-control': 'no-cache' } },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(first.data);
    expect(staleOf(result)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 10, reason: 'UPSTREAM_ERROR' },
    ]);
    // no-cache fetched the list fresh (1) and tried the counter twice.
    expect(upstreamOf(result)).toEqual({ requests: 3, cacheHits: 0, coalesced: 0, stale: 1 });

    setClock(T0 + 20 * SECOND);
    const normal = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(normal.data).toEqual(first.data);
    expect(upstreamOf(normal)).toEqual({ requests: 0, cacheHits: 2, coalesced: 0, stale: 0 });
    expect(normal.extensions?.stale).toBeUndefined();
  });

  it('without any cached value, the failure is the error (nothing stale)', async () => {
    const key = freshKey();
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.shop), method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(errorAt(result, ['factory', 'counter'])?.code).toBe('UPSTREAM_ERROR');
    expect(upstreamOf(result)).toEqual({ requests: 3, cacheHits: 0, coalesced: 0, stale: 0 });
  });

  // A cached definitive 4xx served stale comes back as a failure record with its stale
  // info, so the empty counter recovered from it is named in extensions.stale.
  it('names the field in extensions.stale also when the stale value is a cached "Counter is empty" answer', async () => {
    // The car dealership's counter is empty: the upstream's 404 "Counter is empty" is cached
    // (a definitive 4xx) and answered as an empty counter.
    const key = freshKey();
    const first = await primeCounter(key, FIXTURE_IDS.carDealer);
    expect(first.data?.factory?.counter).toEqual({ totalWeight: 0, items: [] });

    setClock(T0 + 61 * SECOND);
    stack
      .upstream()
      .intercept({ path: counterPath(FIXTURE_IDS.carDealer), method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.carDealer }, { key });
    expect(result.data).toEqual(first.data);
    // The response counts one stale answer…
    expect(upstreamOf(result)).toEqual({ requests: 2, cacheHits: 1, coalesced: 0, stale: 1 });
    // …so extensions.stale must say which field it was.
    expect(staleOf(result)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 61, reason: 'UPSTREAM_ERROR' },
    ]);
  });
});

// The upstream timeout is the client's own timer over real sockets: every timer is faked
// (sockets stay real), so the 100 ms pass only when the test advances them, after the
// simulator has the request; a loaded machine can neither time out the priming request
// nor answer the slow one in time.
describe('stale fallback with a configured window and an upstream timeout', () => {
  let stack: Stack;

  beforeAll(async () => {
    useFakeTimersWithRealIo(T0);
    stack = await startStack({ config: { staleMaxAgeSeconds: 120, upstreamTimeoutMs: 100 } });
  });

  /** Runs the shop's counter operation while the simulator holds its answer, and lets the 100 ms upstream timeout pass once the request is there. */
  async function executeTimingOut(key: string): Promise<Result<EconomyCounterQuery>> {
    stack.simulator.setLatency(2000); // the simulator's timer, faked too: it never answers before the timeout
    const before = stack.simulator.countRequests({ route: COUNTER });
    const pending = stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    await until(
      () => stack.simulator.countRequests({ route: COUNTER }) > before,
      'the counter request at the simulator',
    );
    jest.advanceTimersByTime(100);
    return pending;
  }

  afterEach(() => {
    stack.simulator.setLatency(0);
  });

  afterAll(async () => {
    jest.useRealTimers();
    await stack.close();
  });

  it('serves stale with reason UPSTREAM_TIMEOUT when the upstream does not answer in time (not retried)', async () => {
    const key = freshKey();
    setClock(T0);
    const first = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(first.errors).toBeUndefined();

    setClock(T0 + 100 * SECOND);
    const attemptsBefore = stack.attemptsOf(COUNTER).length;
    const result = await executeTimingOut(key);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(first.data);
    expect(staleOf(result)).toEqual([
      { path: ['factory', 'counter'], endpoint: COUNTER, ageSeconds: 100, reason: 'UPSTREAM_TIMEOUT' },
    ]);
    expect(
      stack
        .attemptsOf(COUNTER)
        .slice(attemptsBefore)
        .map((attempt) => attempt.status),
    ).toEqual([null]);
  });

  it('answers the error once the cached value is older than staleMaxAgeSeconds (120)', async () => {
    const key = freshKey();
    setClock(T0);
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });

    setClock(T0 + 121 * SECOND);
    const result = await executeTimingOut(key);
    expect(result.data?.factory?.counter).toBeNull();
    expect(errorAt(result, ['factory', 'counter'])?.code).toBe('UPSTREAM_TIMEOUT');
    expect(result.extensions?.stale).toBeUndefined();
  });
});
