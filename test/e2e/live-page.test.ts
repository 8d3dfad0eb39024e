/**
 * The README company page (docs/example.md) as one live query (`query @live`) on a fresh
 * key, through a gateway on its default budget (10 per 60 s) in front of the simulator
 * limited the same way: the first result answers what the budget affords now (the rest
 * `RATE_LIMITED`), then the page completes by itself as background fill stores the rest,
 * without the client asking again, and with the same upstream requests as the plain
 * query's page (20) and no upstream 429.
 *
 * Fake timers drive both windows and the live query's throttle (the simulator and the
 * gateway read the same faked `Date`); sockets stay real.
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { UpstreamClient } from '../../src/upstream/client';
import { T0, turn, until, useFakeTimersWithRealIo, useStacks } from '../support';
import { readmePage } from '../support/readme-page';
import { collect, wsClient } from '../subscriptions/clients';
import type { Received } from '../subscriptions/clients';

describe('the README company page as a live query at 10 requests per 60 s', () => {
  const stacks = useStacks();

  it("completes by itself within 1.15 x the floor, with the plain page's 20 upstream requests and no 429", async () => {
    const limit = { requests: 10, windowSeconds: 60 };
    const current = await stacks.start({
      http: true,
      simulator: { rateLimit: limit },
      config: { upstreamRateLimit: limit, upstreamPatienceMs: 1500 },
    });
    useFakeTimersWithRealIo();
    let started = 0;
    let finished = 0;
    const send = UpstreamClient.prototype.send;
    jest.spyOn(UpstreamClient.prototype, 'send').mockImplementation(async function (
      this: UpstreamClient,
      ...args: Parameters<UpstreamClient['send']>
    ) {
      started += 1;
      try {
        return await send.apply(this, args);
      } finally {
        finished += 1;
      }
    });

    const ws = wsClient(current.endpoint, DEMO_KEYS.premium.key);
    const results: Array<{ at: number; result: Received }> = [];
    const live = collect((sink) =>
      ws.subscribe(
        {
          query: readmePage().replace('query CompanyPage($id: ID!)', 'query CompanyPage($id: ID!) @live'),
          variables: { id: FIXTURE_IDS.shop },
        },
        {
          next: (result) => results.push({ at: Date.now(), result: result as Received }),
          error: sink.error,
          complete: sink.complete,
        },
      ),
    );
    const STEP_MS = 100;
    const complete = (): boolean => results.some(({ result }) => result.data && !result.errors);
    while (!complete() && Date.now() - T0 < 3 * 60_000) {
      await until(() => started === finished, 'the upstream requests on their way');
      for (let i = 0; i < 10; i += 1) await turn();
      if (complete()) break;
      jest.advanceTimersByTime(STEP_MS);
    }

    const first = results[0]?.result;
    const firstErrors = first?.errors ?? [];
    expect(firstErrors.length).toBeGreaterThan(0);
    for (const error of firstErrors) expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    // Measured: 0.1 s (6 fields RATE_LIMITED), 60.3 s (6 nested fields still to fetch), 61.3 s complete.
    expect(results.length).toBeLessThanOrEqual(4);
    const last = results[results.length - 1];
    expect(last?.result.errors).toBeUndefined();
    const completeAt = last?.at ?? Infinity;
    // The floor: 10 requests at once, the other 10 when the window has passed.
    expect(completeAt - T0).toBeLessThanOrEqual(1.15 * 60_000);
    const sent = current.simulator.requests;
    expect(sent).toHaveLength(20);
    expect(sent.filter((request) => request.status === 429)).toEqual([]);
    // Every result differs from the one before (identical results are not sent).
    const texts = results.map(({ result }) => JSON.stringify(result));
    expect(new Set(texts).size).toBe(texts.length);
    live.stop();
    await ws.dispose();
  });
});
