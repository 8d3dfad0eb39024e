/**
 * A user's write goes first: a fresh key views the README company page at 10 requests per
 * 60 s (10 sent, 10 left to background fill), then at once writes an option slot. The
 * write does not queue behind the fill: it goes upstream with the first request the window
 * frees (+ 2 s at most), its answer (not committed yet) says when within 5 s, and the
 * upstream never answers 429. Fake timers drive the gateway and the simulator.
 */
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { readmePage } from '../support/readme-page';
import { T0, stepClockUntil, trackUpstreamSends, useFakeTimersWithRealIo, useStacks } from '../support';

const LIMIT = { requests: 10, windowSeconds: 60 };
const STEP_MS = 100;
const WRITE = `mutation Write($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { message committed retryAfterSeconds } }`;

describe('a write after a page view on a spent budget', () => {
  const stacks = useStacks();

  it('commits with the first request the window frees, as its answer promised, ahead of background fill', async () => {
    const current = await stacks.start({
      simulator: { rateLimit: LIMIT },
      config: { upstreamRateLimit: LIMIT, upstreamPatienceMs: 1500 },
    });
    useFakeTimersWithRealIo();
    const { settled } = trackUpstreamSends();
    const run = <T>(work: Promise<T>): Promise<T> => stepClockUntil(settled, work, STEP_MS);

    const view = await run(current.executeText(readmePage(), { id: FIXTURE_IDS.shop }));
    expect((view.errors ?? []).length).toBeGreaterThan(0);
    const input = {
      factoryId: FIXTURE_IDS.shop,
      slot: 5,
      title: 'Neu',
      data: 'Geschrieben',
      apiSecret: DEMO_KEYS.premium.secret,
    };
    const answeredAt = Date.now();
    const answer = await run(current.executeText(WRITE, { input }));
    expect(answer.errors).toBeUndefined();
    const payload = (answer.data as { updateFactoryOption: { committed: boolean; retryAfterSeconds: number | null } })
      .updateFactoryOption;
    expect(payload.committed).toBe(false);
    expect(payload.retryAfterSeconds).not.toBeNull();
    const promisedAt = answeredAt + (payload.retryAfterSeconds ?? 0) * 1000;

    // The clock moves on until the write has reached the upstream.
    const posted = (): number => current.simulator.requests.filter((request) => request.method === 'POST').length;
    while (posted() === 0 && Date.now() - T0 < 3 * 60_000) {
      await settled();
      jest.advanceTimersByTime(STEP_MS);
    }
    await settled();
    const sent = current.simulator.requests;
    const write = sent.find((request) => request.method === 'POST');
    expect(write).toMatchObject({ status: 200 });
    const firstFreed =
      Math.min(...sent.slice(0, LIMIT.requests).map((request) => request.at)) + LIMIT.windowSeconds * 1000;
    expect(write?.at ?? Infinity).toBeLessThanOrEqual(firstFreed + 2000);
    expect(Math.abs((write?.at ?? Infinity) - promisedAt)).toBeLessThanOrEqual(5000);
    // Nothing of the background fill went before it.
    expect(sent.filter((request) => request.at < (write?.at ?? 0))).toHaveLength(LIMIT.requests);
    expect(sent.filter((request) => request.status === 429)).toEqual([]);
  });
});
