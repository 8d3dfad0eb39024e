/**
 * An operation whose every field is cached answers at once whatever the budget: data that
 * has expired but may still be served stale comes back stale as soon as the budget would
 * make its refresh wait (the refresh stays queued at priority `stale`), instead of after
 * the operation's patience. A live query's first result runs this same read path.
 * Timers are faked and never advanced here: an answer that waited for patience (1.5 s)
 * would never arrive.
 */
import { FIXTURE_IDS } from '../../src/simulator';
import { EconomyCounterDocument } from '../generated/graphql';
import { advanceClock, staleOf, startStack, until, useFakeTimersWithRealIo } from '../support';
import type { Stack } from '../support';

describe('cached data on a spent budget', () => {
  let stack: Stack | undefined;

  afterEach(async () => {
    jest.useRealTimers();
    await stack?.close();
    stack = undefined;
  });

  it('answers stale at once, and the refresh waits for the budget', async () => {
    const limit = { requests: 2, windowSeconds: 60 };
    stack = await startStack({
      simulator: { rateLimit: limit },
      config: {
        upstreamRateLimit: limit,
        upstreamPatienceMs: 1500,
        cacheTtlSeconds: { lists: 600, details: 300, options: 300, bankAccounts: 120, stock: 10, activity: 60 },
      },
    });
    const current = stack;
    useFakeTimersWithRealIo();
    let first: Awaited<ReturnType<Stack['execute']>> | undefined;
    void current.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }).then((value) => (first = value));
    await until(() => first !== undefined, 'the first view');
    expect(first?.errors).toBeUndefined();
    expect(current.simulator.requests).toHaveLength(2);

    // The counter (10 s) has expired; the budget's window is spent for 40 more seconds.
    advanceClock(20_000);
    let second: Awaited<ReturnType<Stack['execute']>> | undefined;
    void current.execute(EconomyCounterDocument, { id: FIXTURE_IDS.shop }).then((value) => (second = value));
    await until(() => second !== undefined, 'the second view, without waiting for patience');
    expect(second?.errors).toBeUndefined();
    expect(second?.data).toEqual(first?.data);
    expect(staleOf(second as NonNullable<typeof second>)).toEqual([
      expect.objectContaining({ path: ['factory', 'counter'], reason: 'RATE_LIMITED' }),
    ]);
    expect(current.simulator.requests).toHaveLength(2);
    expect(current.runtime.economy.stats().queued.stale).toBe(1);
  });
});
