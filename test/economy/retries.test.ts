/**
 * Retries: a GET is retried at most once, and only after a connection error or a
 * 502/503/504; never after another status, and a POST never. Failures are scripted with
 * a MockAgent in front of the simulator (unmatched requests pass through to it);
 * `stack.attempts` counts every request the client sent, mocked or real. Strict: every
 * interceptor must be used.
 */
import { KeyBudget as KeyLimiter } from '../../src/economy/budget/key-budget';
import { FIXTURE_IDS } from '../../src/simulator';
import { EconomyCounterDocument, UpdateFactoryOptionMessageOnlyDocument } from '../generated/graphql';
import { errorAt, upstreamError, upstreamOf, useStack } from '../support';

const COUNTER = 'GET /factory/counter/{id}';
const COUNTER_PATH = `/req/factory/counter/${FIXTURE_IDS.shop}`;
const OPTION_WRITE = 'POST /factory/options';

let keyNumber = 200;
function freshKey(): string {
  keyNumber += 1;
  return `sim-key-${keyNumber}`;
}

describe('retries', () => {
  const stack = useStack({ mock: true });

  afterEach(() => {
    stack.mockAgent?.assertNoPendingInterceptors();
    stack.attempts.length = 0;
    stack.simulator.reset();
  });

  function counterStatuses(): Array<number | null> {
    return stack.attemptsOf(COUNTER).map((attempt) => attempt.status);
  }

  it.each([502, 503, 504])('retries a GET once after %i and succeeds: 2 requests', async (status) => {
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(status, 'Bad Gateway', 'Bad Gateway'));
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: freshKey() });
    expect(result.errors).toBeUndefined();
    expect(result.data?.factory?.counter?.items.length).toBeGreaterThan(0);
    expect(counterStatuses()).toEqual([status, 200]);
    expect(upstreamOf(result)).toEqual({ requests: 3, cacheHits: 0, coalesced: 0, stale: 0 }); // list + 2 counter attempts
  });

  it('gives up after exactly 2 requests when the retry fails too (503 twice)', async () => {
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: freshKey() });
    expect(result.data?.factory?.counter).toBeNull();
    expect(errorAt(result, ['factory', 'counter'])).toMatchObject({
      code: 'UPSTREAM_ERROR',
      extensions: { upstream: { status: 503, endpoint: COUNTER } },
    });
    expect(counterStatuses()).toEqual([503, 503]);
    expect(stack.simulator.countRequests({ route: COUNTER })).toBe(0);
    expect(upstreamOf(result)).toEqual({ requests: 3, cacheHits: 0, coalesced: 0, stale: 0 });
  });

  it('does not cache a 5xx: the next operation asks again', async () => {
    const key = freshKey();
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'))
      .times(2);
    await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    const again = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key });
    expect(again.errors).toBeUndefined();
    expect(counterStatuses()).toEqual([503, 503, 200]);
  });

  it('retries a GET once after a connection error', async () => {
    stack.upstream().intercept({ path: COUNTER_PATH, method: 'GET' }).replyWithError(new Error('socket hang up'));
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: freshKey() });
    expect(result.errors).toBeUndefined();
    expect(counterStatuses()).toEqual([null, 200]);
  });

  it('gives up after exactly 2 requests on two connection errors (UPSTREAM_ERROR, status null)', async () => {
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .replyWithError(new Error('socket hang up'))
      .times(2);
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: freshKey() });
    expect(errorAt(result, ['factory', 'counter'])).toMatchObject({
      code: 'UPSTREAM_ERROR',
      extensions: { upstream: { status: null } },
    });
    expect(counterStatuses()).toEqual([null, null]);
  });

  it.each([
    [400, 'UPSTREAM_BAD_REQUEST'],
    [401, 'FORBIDDEN'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [429, 'RATE_LIMITED'],
    [500, 'UPSTREAM_ERROR'],
  ])('never retries a GET after %i (%s): exactly 1 request', async (status, code) => {
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(status, 'no', 'Error'));
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: freshKey() });
    expect(errorAt(result, ['factory', 'counter'])?.code).toBe(code);
    expect(counterStatuses()).toEqual([status]);
    expect(upstreamOf(result).requests).toBe(2);
  });

  it.each([
    ['a 503', 503],
    ['a 502', 502],
  ])('never retries the POST: the mutation with %s makes one request', async (_name, status) => {
    const key = freshKey();
    stack
      .upstream()
      .intercept({ path: '/req/factory/options', method: 'POST' })
      .reply(upstreamError(status, 'down', 'Service Unavailable'));
    const result = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 't', data: 'd', apiSecret: `${key}-secret` } },
      { key },
    );
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_ERROR']);
    expect(stack.attemptsOf(OPTION_WRITE).map((attempt) => attempt.status)).toEqual([status]);
    expect(stack.simulator.countRequests({ route: OPTION_WRITE })).toBe(0);
    expect(upstreamOf(result)).toEqual({ requests: 1, cacheHits: 0, coalesced: 0, stale: 0 });
  });

  it('never retries the POST after a connection error either', async () => {
    const key = freshKey();
    stack
      .upstream()
      .intercept({ path: '/req/factory/options', method: 'POST' })
      .replyWithError(new Error('socket hang up'));
    const result = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 't', data: 'd', apiSecret: `${key}-secret` } },
      { key },
    );
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_ERROR']);
    expect(stack.attemptsOf(OPTION_WRITE).map((attempt) => attempt.status)).toEqual([null]);
  });
});

describe('retry and the rate limit', () => {
  const stack = useStack({ mock: true });

  afterEach(() => {
    jest.restoreAllMocks();
    stack.mockAgent?.assertNoPendingInterceptors();
  });

  it('each attempt takes its own slot and gives it back exactly once (the retry never relies on a second release being harmless)', async () => {
    const acquire = KeyLimiter.prototype.acquire;
    const releases: number[] = [];
    jest.spyOn(KeyLimiter.prototype, 'acquire').mockImplementation(async function (this: KeyLimiter, id: string) {
      const release = await acquire.call(this, id);
      const index = releases.push(0) - 1;
      return () => {
        releases[index] = (releases[index] ?? 0) + 1;
        release();
      };
    });
    stack
      .upstream()
      .intercept({ path: COUNTER_PATH, method: 'GET' })
      .reply(upstreamError(503, 'down', 'Service Unavailable'));
    const result = await stack.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }, { key: freshKey() });
    expect(result.errors).toBeUndefined();
    // list, counter (503), counter retry: three slots, each released once.
    expect(releases).toEqual([1, 1, 1]);
  });
});
