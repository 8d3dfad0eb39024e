/**
 * A live query's first result comes from what is cached: when every field the query
 * selects is in the key's cache, the first result arrives without waiting for the key's
 * budget, even when that budget is spent and some of those fields have gone stale. Only
 * what is not cached waits or answers `RATE_LIMITED`.
 *
 * The README company page (20 upstream requests) on a budget of 20 per 10 minutes: one
 * plain view fills the cache and spends the window. Fake timers drive the clock; it stands
 * still while the live query opens, so a first result that waited for the budget or for
 * the upstream patience (1.5 s) would never come, and the test would fail.
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { stepClockUntil, trackUpstreamSends, until, useFakeTimersWithRealIo, useStacks } from '../support';
import type { HttpStack } from '../support';
import { readmePage } from '../support/readme-page';
import { collect, wsClient } from './clients';
import type { Received } from './clients';

const LIMIT = { requests: 20, windowSeconds: 600 };
const STEP_MS = 100;
/** Real socket round trips while the clock stands still: enough event-loop turns for them. */
const IO_TURNS = 200_000;

describe('a live query on a cached page while the budget is spent', () => {
  const stacks = useStacks();

  async function filledStack(): Promise<{ current: HttpStack; settled: () => Promise<void> }> {
    const current = await stacks.start({
      http: true,
      simulator: { rateLimit: LIMIT },
      config: { upstreamRateLimit: LIMIT, upstreamPatienceMs: 1500 },
    });
    useFakeTimersWithRealIo();
    const { settled } = trackUpstreamSends();
    // The plain page, viewed until it is complete: every field cached, the window spent.
    for (let view = 0; view < 10; view += 1) {
      const answer = await stepClockUntil(
        settled,
        current.executeText(readmePage(), { id: FIXTURE_IDS.shop }),
        STEP_MS,
      );
      if (answer.errors === undefined) break;
      await stepClockUntil(settled, new Promise<void>((resolve) => setTimeout(resolve, 2000)), STEP_MS);
    }
    await settled();
    expect(current.simulator.requests).toHaveLength(LIMIT.requests);
    return { current, settled };
  }

  async function firstLiveResult(current: HttpStack): Promise<{ first: Received; stop: () => Promise<void> }> {
    const ws = wsClient(current.endpoint, DEMO_KEYS.premium.key);
    const results: Received[] = [];
    const live = collect((sink) =>
      ws.subscribe(
        {
          query: readmePage().replace('query CompanyPage($id: ID!)', 'query CompanyPage($id: ID!) @live'),
          variables: { id: FIXTURE_IDS.shop },
        },
        { next: (result) => results.push(result as Received), error: sink.error, complete: sink.complete },
      ),
    );
    const at = Date.now();
    await until(() => results.length > 0, 'the first live result with the clock standing still', IO_TURNS);
    expect(Date.now()).toBe(at);
    return {
      first: results[0] as Received,
      stop: async () => {
        live.stop();
        await ws.dispose();
      },
    };
  }

  it('answers the first result at once, complete, with no upstream request, while every field is fresh', async () => {
    const { current } = await filledStack();
    const before = current.simulator.requests.length;
    const { first, stop } = await firstLiveResult(current);
    expect(first.errors).toBeUndefined();
    expect(first.data).toMatchObject({ factory: { name: expect.any(String) }, buildings: expect.any(Array) });
    expect(current.simulator.requests).toHaveLength(before);
    await stop();
  });

  it('answers the first result at once, complete, from stale fields, when their refresh must wait for the budget', async () => {
    const { current, settled } = await filledStack();
    // Past the stock freshness (60 s): counter, inventory and offers are stale; the window
    // (10 minutes) is still spent, so none of them can be refreshed now.
    await stepClockUntil(settled, new Promise<void>((resolve) => setTimeout(resolve, 61_000)), 1000);
    const before = current.simulator.requests.length;
    const { first, stop } = await firstLiveResult(current);
    expect(first.errors).toBeUndefined();
    expect(first.data).toMatchObject({ factory: { name: expect.any(String) }, buildings: expect.any(Array) });
    expect(current.simulator.requests).toHaveLength(before);
    expect(current.simulator.requests.filter((request) => request.status === 429)).toEqual([]);
    await stop();
  });
});
