/**
 * The README company page (docs/example.md's worked example, 20 upstream requests) on a
 * fresh key, through a gateway on its default budget (10 per 60 s) in front of the
 * simulator limited the same way, viewed every 2 s until it is complete: what the bench's
 * `rate-limited` scenario measures, on a faked clock.
 *
 * The first upstream request is slow on its way there (it opens a connection): it reaches
 * the simulator 400 ms after the gateway sent it, so the simulator's window starts later
 * than the gateway's own record of the send. A gateway that counts send times sends the
 * 11th request at the window's edge and draws a 429; and a view that joins a request of
 * background fill still queued for budget must not wait past its patience.
 *
 * Fake timers drive both windows (the simulator and the gateway read the same faked
 * `Date`); sockets stay real. Between steps of the clock the test waits until no upstream
 * request is on its way (counted around `UpstreamClient.send`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_IDS } from '../../src/simulator';
import { advanceClock, T0, trackUpstreamSends, useFakeTimersWithRealIo, useStacks } from '../support';
import type { Stack } from '../support';

/** The first GraphQL block of docs/example.md: the page the README points to. */
function readmePage(): string {
  const text = readFileSync(join(__dirname, '..', '..', 'docs', 'example.md'), 'utf8');
  const block = /```graphql\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error('docs/example.md has no ```graphql block');
  return block;
}

describe('the README company page at 10 requests per 60 s', () => {
  const stacks = useStacks();

  it('is complete within 1.15 x the floor, with no upstream 429, at most 10 requests in any 60 s, and every view answering within its patience', async () => {
    const page = readmePage();
    const limit = { requests: 10, windowSeconds: 60 };
    const current = await stacks.start({
      simulator: { rateLimit: limit },
      config: { upstreamRateLimit: limit, upstreamPatienceMs: 1500 },
    });
    useFakeTimersWithRealIo();

    // The first request opens a connection: it reaches the upstream 400 ms after it was sent.
    const { settled } = trackUpstreamSends((started) => {
      if (started === 1) advanceClock(400);
    });

    const STEP_MS = 100;
    const VIEW_EVERY_MS = 2000;
    let completeAt: number | null = null;
    let views = 0;
    while (completeAt === null && Date.now() - T0 < 3 * 60_000) {
      views += 1;
      const sentAt = Date.now();
      let result: Awaited<ReturnType<Stack['executeText']>> | undefined;
      const view = current.executeText(page, { id: FIXTURE_IDS.shop }).then((value) => (result = value));
      // The view answers within its patience (1.5 s) plus a step, whatever it waits for.
      while (result === undefined) {
        await settled();
        if (result !== undefined) break;
        expect(Date.now() - sentAt).toBeLessThanOrEqual(1500 + STEP_MS);
        jest.advanceTimersByTime(STEP_MS);
      }
      await view;
      const errors = result.errors ?? [];
      for (const error of errors) expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      if (errors.length === 0) {
        completeAt = Date.now();
        break;
      }
      // Till the next view, the clock moves in steps; background fill works meanwhile.
      while (Date.now() - sentAt < VIEW_EVERY_MS) {
        await settled();
        jest.advanceTimersByTime(STEP_MS);
      }
    }

    expect(completeAt).not.toBeNull();
    const sent = current.simulator.requests;
    expect(sent).toHaveLength(20);
    expect(sent.filter((request) => request.status === 429)).toEqual([]);
    for (const request of sent) {
      expect(
        sent.filter((other) => other.at > request.at - 60_000 && other.at <= request.at).length,
      ).toBeLessThanOrEqual(10);
    }
    // The floor: 10 requests at once, the other 10 when the window has passed.
    const floorMs = 60_000;
    expect((completeAt ?? Infinity) - T0).toBeLessThanOrEqual(1.15 * floorMs);
    expect(views).toBeGreaterThan(1);
  });
});
