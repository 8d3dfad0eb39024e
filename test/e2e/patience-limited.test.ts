/**
 * The company page (docs/example.md's worked example) on the limited simulator: the
 * gateway's budget matches the upstream's limit, an operation answers with what it can
 * afford, background fill fetches the rest, and a view after `retryAfterSeconds` is
 * complete; never an upstream 429. Fake timers drive both windows (the simulator's and
 * the gateway's read the same faked `Date`); sockets stay real.
 */
import { FIXTURE_IDS } from '../../src/simulator';
import { CompanyPageDocument } from '../generated/graphql';
import { startStack, T0, until, useFakeTimersWithRealIo } from '../support';
import type { Stack } from '../support';

describe('the company page on the limited simulator', () => {
  let stack: Stack | undefined;

  afterEach(async () => {
    jest.useRealTimers();
    await stack?.close();
    stack = undefined;
  });

  it('is complete after the retryAfterSeconds it was told, within the floor, without an upstream 429', async () => {
    const limit = { requests: 3, windowSeconds: 60 };
    stack = await startStack({ simulator: { rateLimit: limit }, config: { upstreamRateLimit: limit } });
    const current = stack;
    useFakeTimersWithRealIo();

    let views = 0;
    let complete = false;
    while (!complete && views < 10) {
      views += 1;
      const result = await current.execute(CompanyPageDocument, { id: FIXTURE_IDS.shop });
      const errors = result.errors ?? [];
      complete = errors.length === 0;
      if (complete) break;
      for (const error of errors) expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      const waits = errors.map((error) => Number(error.extensions?.['retryAfterSeconds']));
      expect(waits.every((seconds) => Number.isInteger(seconds) && seconds >= 1)).toBe(true);
      // The client waits as long as it was told; meanwhile the fill fetches what the view missed.
      const sentBefore = current.simulator.requests.length;
      jest.advanceTimersByTime(Math.max(...waits) * 1000);
      await until(
        () => current.simulator.requests.length > sentBefore && current.runtime.economy.stats().inFlight === 0,
        'the fill to fetch the missed requests',
      );
    }

    expect(complete).toBe(true);
    const sent = current.simulator.requests;
    expect(sent.filter((request) => request.status === 429)).toEqual([]);
    // The floor: `requests` at once, the next `requests` when the window has passed, and so on.
    const windows = Math.ceil(sent.length / limit.requests) - 1;
    expect(Date.now() - T0).toBeLessThanOrEqual(windows * limit.windowSeconds * 1000 + 1000);
    expect(views).toBe(windows + 1);
    expect(sent.length).toBeGreaterThan(limit.requests);
  });
});
