/**
 * Site-document writes on a busy key (10 requests per 60 s, spent by a page view): a
 * one-item change answers with `committed: false` and a `retryAfterSeconds` within 5 s of
 * when it actually commits; a second write to the same company meanwhile is refused with
 * the honest time of the running write (not a fixed patience); every answer names the
 * version it replaced. Fake timers drive the gateway and the simulator.
 */
import { prepareValue } from '../../src/domains/site-documents/site-document.codec';
import { seedWrites } from '../../src/domains/site-documents/site-document.store';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { codes, T0, stepClockUntil, trackUpstreamSends, useFakeTimersWithRealIo, useStacks } from '../support';

// The page view below takes 11 requests (the company, then its ten slots): exactly one window.
const LIMIT = { requests: 11, windowSeconds: 60 };
const STEP_MS = 100;
const farm = FIXTURE_IDS.farm;
const SECRET = { headers: { 'x-api-secret': DEMO_KEYS.premium.secret } };
const SET = `mutation Set($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { upstreamWrites replacedVersion committed retryAfterSeconds document { version } } }`;
const PAGE = `query Page($id: ID!) { factory(id: $id) { siteDocuments { name version } hours: siteDocument(name: "hours") { version value } } }`;

interface SetPayload {
  setSiteDocument: {
    upstreamWrites: number;
    replacedVersion: number;
    committed: boolean;
    retryAfterSeconds: number | null;
    document: { version: number };
  };
}

describe('site-document writes on a busy key', () => {
  const stacks = useStacks();

  it('a one-item change after a page view commits when its answer said; a second writer is told that time', async () => {
    const current = await stacks.start({
      simulator: { rateLimit: LIMIT },
      config: { upstreamRateLimit: LIMIT, upstreamPatienceMs: 1500 },
    });
    const week = { mo: '8-20', tu: '8-20', we: '8-20', th: '8-20', fr: '8-20', sa: '9-14', su: 'closed' };
    for (const write of seedWrites(
      Array.from({ length: 10 }, () => null),
      prepareValue('hours', week, 'deflate-base64url'),
      T0,
    )) {
      current.simulator.change({
        kind: 'option',
        factoryId: farm,
        slot: write.slot,
        title: write.title,
        data: write.data,
      });
    }
    useFakeTimersWithRealIo();
    const { settled } = trackUpstreamSends();
    const run = <T>(work: Promise<T>): Promise<T> => stepClockUntil(settled, work, STEP_MS);

    // The page view reads every slot: the key's whole window.
    const view = await run(current.executeText(PAGE, { id: farm }));
    expect(view.errors).toBeUndefined();
    expect(current.simulator.requests).toHaveLength(LIMIT.requests);

    // A one-item change right after it: 0 reads, 2 writes, both waiting for the next window.
    const answeredAt = Date.now();
    const change = await run(
      current.executeText(SET, { input: { factoryId: farm, name: 'hours', value: { ...week, sa: '9-16' } } }, SECRET),
    );
    expect(change.errors).toBeUndefined();
    const payload = (change.data as unknown as SetPayload).setSiteDocument;
    expect(payload).toMatchObject({ committed: false, replacedVersion: 1, document: { version: 2 } });
    const promisedAt = answeredAt + (payload.retryAfterSeconds ?? 0) * 1000;

    // Another write to the company meanwhile: refused at once with the running write's time.
    const refusedAt = Date.now();
    const second = await run(
      current.executeText(SET, { input: { factoryId: farm, name: 'notes', value: { text: 'hi' } } }, SECRET),
    );
    expect(codes(second)).toEqual(['CONFLICT']);
    const refusal = second.errors?.[0]?.extensions as { reason: string; retryAfterSeconds: number };
    expect(refusal.reason).toBe('WRITE_IN_PROGRESS');
    expect(Date.now() - refusedAt).toBeLessThanOrEqual(STEP_MS);

    const posts = (): number => current.simulator.requests.filter((request) => request.method === 'POST').length;
    while (posts() < 2 && Date.now() - T0 < 3 * 60_000) {
      await settled();
      jest.advanceTimersByTime(STEP_MS);
    }
    await settled();
    const commit = current.simulator.requests.filter((request) => request.method === 'POST').at(-1);
    expect(commit?.status).toBe(200);
    const committedAt = commit?.at ?? Infinity;
    expect(Math.abs(committedAt - promisedAt)).toBeLessThanOrEqual(5000);
    expect(Math.abs(committedAt - (refusedAt + refusal.retryAfterSeconds * 1000))).toBeLessThanOrEqual(5000);
    expect(current.simulator.requests.filter((request) => request.status === 429)).toEqual([]);

    // Once committed, the next write goes through and names the version it replaced.
    const after = await run(
      current.executeText(SET, { input: { factoryId: farm, name: 'hours', value: week } }, SECRET),
    );
    expect((after.data as unknown as SetPayload | undefined)?.setSiteDocument).toMatchObject({
      replacedVersion: 2,
      document: { version: 3 },
    });
  });
});
