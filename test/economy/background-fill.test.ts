/**
 * Background fill: what an operation could not afford is fetched as the key's budget
 * refills, without any client asking again, so that a view after `retryAfterSeconds` is
 * complete. Fake timers drive the budget's window; sockets stay real (see waits.test.ts).
 */
import { BackgroundFill } from '../../src/economy/background-fill/background-fill';
import type { MissedRequest } from '../../src/economy/background-fill/background-fill';
import { FIXTURE_IDS } from '../../src/simulator';
import { EconomyCounterDocument } from '../generated/graphql';
import { errorAt, startStack, T0, until, upstreamOf, useFakeTimersWithRealIo } from '../support';
import type { Stack } from '../support';
import { WINDOW_EDGE_MARGIN_MS } from '../../src/economy/budget/key-budget';

const LIST = 'GET /factory/list/';
const COUNTER = 'GET /factory/counter/{id}';

describe('background fill over GraphQL', () => {
  let stack: Stack | undefined;

  afterEach(async () => {
    jest.useRealTimers();
    await stack?.close();
    stack = undefined;
  });

  it('fetches what a view missed when the budget refills, so the view after retryAfterSeconds is complete at no upstream cost', async () => {
    stack = await startStack({
      config: { upstreamRateLimit: { requests: 1, windowSeconds: 2 }, upstreamPatienceMs: 0 },
    });
    const current = stack;
    useFakeTimersWithRealIo();
    const first = await current.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(first.data?.factory?.counter).toBeNull();
    // The window of 2 s ends 2.25 s after the list's answer (the edge margin): 3 whole seconds.
    expect(errorAt(first, ['factory', 'counter'])).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: 3 },
    });
    expect(current.simulator.requests.map((request) => request.route)).toEqual([LIST]);
    expect(current.runtime.economy.stats().queued.missed).toBe(1);

    // Nothing is sent before the window has room.
    jest.advanceTimersByTime(1999 + WINDOW_EDGE_MARGIN_MS);
    expect(current.simulator.requests).toHaveLength(1);
    // Then the fill sends the counter by itself and stores it.
    jest.advanceTimersByTime(1);
    await until(
      () => current.runtime.economy.stats().cacheEntries === 2,
      'the missed counter to be fetched and stored',
    );
    expect(current.simulator.requests.map((request) => request.route)).toEqual([LIST, COUNTER]);
    expect(current.runtime.economy.stats().queued.missed).toBe(0);

    const second = await current.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(second.errors).toBeUndefined();
    expect(second.data?.factory?.counter?.items.length).toBeGreaterThan(0);
    expect(upstreamOf(second)).toMatchObject({ requests: 0, cacheHits: 2 });
    expect(current.simulator.requests).toHaveLength(2);
  });

  it('with the cache off, fetches nothing in the background (there is nowhere to keep it)', async () => {
    stack = await startStack({
      config: { upstreamRateLimit: { requests: 1, windowSeconds: 2 }, upstreamPatienceMs: 0, cacheEnabled: false },
    });
    const current = stack;
    useFakeTimersWithRealIo();
    const first = await current.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop });
    expect(errorAt(first, ['factory', 'counter'])).toMatchObject({ code: 'RATE_LIMITED' });
    jest.advanceTimersByTime(10_000);
    expect(current.runtime.economy.stats().queued.missed).toBe(0);
    expect(current.simulator.requests).toHaveLength(1);
  });
});

describe('BackgroundFill', () => {
  afterEach(() => jest.useRealTimers());

  /** A budget of `perWindow` requests per `windowMs` over the fetches the fill made. */
  function budget(perWindow: number, windowMs: number, sent: number[]): (keyId: string, count: number) => number[] {
    return (_keyId, count) => {
      const now = Date.now();
      const times = sent.filter((at) => at > now - windowMs);
      const planned: number[] = [];
      for (let i = 0; i < count; i += 1) {
        const at = times.length < perWindow ? now : Math.max(now, (times[times.length - perWindow] ?? now) + windowMs);
        times.push(at);
        planned.push(at);
      }
      return planned;
    };
  }

  function request(key: string, fetched: string[], sent: number[], keyId = 'k1'): MissedRequest {
    return {
      keyId,
      apiKey: 'secret',
      key,
      isFresh: () => false,
      fetch: async () => {
        fetched.push(key);
        sent.push(Date.now());
      },
    };
  }

  async function flush(): Promise<void> {
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
  }

  it('fetches as the budget refills, the most requested first, and plans each request on the budget', async () => {
    useFakeTimersWithRealIo();
    const fetched: string[] = [];
    const sent = [T0, T0]; // the window (2 per 10 s) is full until T0 + 10 s
    const fill = new BackgroundFill({ plan: budget(2, 10_000, sent), maxPerKey: 10, maxTotal: 100, now: Date.now });
    expect(fill.note(request('a', fetched, sent))).toBe(T0 + 10_000);
    expect(fill.note(request('b', fetched, sent))).toBe(T0 + 10_000);
    fill.note(request('c', fetched, sent));
    // c is missed twice more: it goes first, and a, b follow.
    expect(fill.note(request('c', fetched, sent))).toBe(T0 + 10_000);
    fill.note(request('c', fetched, sent));
    expect(fill.size).toBe(3);

    jest.advanceTimersByTime(9_999);
    await flush();
    expect(fetched).toEqual([]);
    jest.advanceTimersByTime(1);
    await flush();
    expect(fetched).toEqual(['c', 'a']);
    jest.advanceTimersByTime(10_000);
    await flush();
    expect(fetched).toEqual(['c', 'a', 'b']);
    expect(fill.size).toBe(0);
    fill.close();
  });

  it('skips what someone fetched meanwhile', async () => {
    useFakeTimersWithRealIo();
    const fetched: string[] = [];
    const sent: number[] = [T0];
    const fill = new BackgroundFill({ plan: budget(1, 1000, sent), maxPerKey: 10, maxTotal: 100, now: Date.now });
    fill.note({ ...request('a', fetched, sent), isFresh: () => true });
    fill.note(request('b', fetched, sent));
    jest.advanceTimersByTime(1000);
    await flush();
    expect(fetched).toEqual(['b']);
    fill.close();
  });

  it('bounds the queue per key and overall, and counts what it drops', () => {
    useFakeTimersWithRealIo();
    const dropped: string[] = [];
    const sent = [T0];
    const fill = new BackgroundFill({
      plan: budget(1, 60_000, sent),
      maxPerKey: 2,
      maxTotal: 3,
      now: Date.now,
      onDropped: () => dropped.push('x'),
    });
    expect(fill.note(request('a', [], sent))).not.toBeNull();
    expect(fill.note(request('b', [], sent))).not.toBeNull();
    // The key's queue is full: a new request is dropped, one already queued is only counted again.
    expect(fill.note(request('c', [], sent))).toBeNull();
    expect(fill.note(request('a', [], sent))).not.toBeNull();
    expect(dropped).toHaveLength(1);
    // Another key fits until the overall bound.
    expect(fill.note(request('d', [], sent, 'k2'))).not.toBeNull();
    expect(fill.note(request('e', [], sent, 'k3'))).toBeNull();
    expect(dropped).toHaveLength(2);
    expect(fill.size).toBe(3);
    fill.close();
    expect(fill.size).toBe(0);
  });
});
