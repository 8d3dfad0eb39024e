/**
 * A 40 KB catalogue (200 items) written and read as a site document through a gateway on
 * its default budget (10 per 60 s) in front of the simulator limited the same way, on a
 * faked clock: the write answers within its patience and goes on in the background, is
 * committed after about one window, and sends no request the upstream refuses (0 upstream
 * 429s, at most 10 requests in any 60 s). A later read is answered from what was written.
 * Then failures injected by the simulator at every write before the commit (503, 429, a dropped connection).
 *
 * Fake timers drive both windows (the simulator and the gateway read the same faked
 * `Date`); sockets stay real. Between steps of the clock the test waits until no upstream
 * request is on its way.
 */
import { canonicalJson } from '../../src/domains/site-documents/json-pieces';
import { DEMO_KEYS, FIXTURE_IDS, realisticCatalogue } from '../../src/simulator';
import { advanceClock, codes, T0, trackUpstreamSends, until, useFakeTimersWithRealIo, useStacks } from '../support';

const farm = FIXTURE_IDS.farm;
const shop = FIXTURE_IDS.shop;
const SECRET = { headers: { 'x-api-secret': DEMO_KEYS.premium.secret } };
const SET = `mutation Set($input: SetSiteDocumentInput!) {
  setSiteDocument(input: $input) { upstreamWrites committed retryAfterSeconds document { version slots bytes } }
}`;
const READ = `query Read($id: ID!) { factory(id: $id) { siteDocument(name: "catalogue") { version value } } }`;

interface SetData {
  setSiteDocument: {
    upstreamWrites: number;
    committed: boolean;
    retryAfterSeconds: number | null;
    document: { version: number; slots: number[]; bytes: number };
  };
}

/** Moves the faked clock in 250 ms steps, each once no upstream request is on its way, until `work` is done. */
async function stepUntil<T>(settled: () => Promise<void>, work: Promise<T>, what: string, maxMs: number): Promise<T> {
  let done = false;
  let value: T | undefined;
  void work.then((result) => {
    done = true;
    value = result;
  });
  const start = Date.now();
  while (!done) {
    await settled();
    if (done) break;
    if (Date.now() - start > maxMs) throw new Error(`gave up waiting for ${what}`);
    jest.advanceTimersByTime(250);
  }
  return value as T;
}

describe('a 40 KB catalogue on the limited simulator (10 per 60 s)', () => {
  const stacks = useStacks();

  it('is committed in the background within the budget, with no upstream 429, and read back from what was written', async () => {
    const limit = { requests: 10, windowSeconds: 60 };
    const current = await stacks.start({
      simulator: { rateLimit: limit },
      config: { upstreamRateLimit: limit, upstreamPatienceMs: 1500 },
    });
    useFakeTimersWithRealIo();
    const { settled } = trackUpstreamSends();
    const runUntil = <T>(work: Promise<T>, what: string, maxMs: number): Promise<T> =>
      stepUntil(settled, work, what, maxMs);

    const catalogue = realisticCatalogue(200);
    const bytes = Buffer.byteLength(canonicalJson(catalogue));
    expect(bytes).toBeGreaterThan(40_000);
    const answer = await runUntil(
      current.executeText(SET, { input: { factoryId: farm, name: 'catalogue', value: catalogue } }, SECRET),
      'the write to answer',
      5_000,
    );
    expect(answer.errors).toBeUndefined();
    const payload = (answer.data as unknown as SetData).setSiteDocument;
    // Ten reads to find the free slots, then more writes than the window has left: it answers within its patience.
    expect(Date.now() - T0).toBeLessThanOrEqual(1500 + 250);
    expect(payload).toMatchObject({ committed: false, document: { version: 1, bytes } });
    expect(payload.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const writes = payload.document.slots.length;

    const committedAt = await runUntil(
      until(
        () => current.simulator.countRequests({ route: 'POST /factory/options' }) === writes,
        'the commit',
        1_000_000,
      ).then(() => Date.now()),
      'the background writes',
      3 * 60_000,
    );
    // The floor: 10 requests in the first window, the rest when it has passed.
    expect(committedAt - T0).toBeLessThanOrEqual(1.15 * 60_000);
    expect(Math.ceil(payload.retryAfterSeconds ?? 0) * 1000).toBeGreaterThanOrEqual(committedAt - T0 - 1500 - 5000);

    const gets = current.simulator.countRequests({ route: 'GET /factory/options/{id}/{slot}' });
    const read = await runUntil(current.executeText(READ, { id: farm }), 'the read', 5_000);
    expect(read.errors).toBeUndefined();
    expect((read.data?.factory as { siteDocument: { value: unknown } }).siteDocument.value).toEqual(catalogue);
    // Served from what was written: no GET of a slot after the write.
    expect(current.simulator.countRequests({ route: 'GET /factory/options/{id}/{slot}' })).toBe(gets);

    const sent = current.simulator.requests;
    expect(sent.filter((request) => request.status === 429)).toEqual([]);
    for (const request of sent) {
      expect(
        sent.filter((other) => other.at > request.at - 60_000 && other.at <= request.at).length,
      ).toBeLessThanOrEqual(10);
    }
  });
  it('Prefer: wait=N lets a client wait for a write the budget finishes in time; without it the write answers within its patience', async () => {
    const limit = { requests: 10, windowSeconds: 5 };
    const current = await stacks.start({
      simulator: { rateLimit: limit },
      config: { upstreamRateLimit: limit, upstreamPatienceMs: 1500 },
    });
    useFakeTimersWithRealIo();
    const { settled } = trackUpstreamSends();
    const hours = { mo: '8-20', sa: '10-16' };
    // Ten reads take the window; the two writes wait about 5 s for it.
    const quick = await stepUntil(
      settled,
      current.executeText(SET, { input: { factoryId: farm, name: 'hours', value: hours } }, SECRET),
      'the first write',
      30_000,
    );
    expect((quick.data as unknown as SetData).setSiteDocument).toMatchObject({ committed: false, upstreamWrites: 0 });
    expect(Date.now() - T0).toBeLessThanOrEqual(1500 + 250);
    await stepUntil(
      settled,
      until(
        () => current.simulator.countRequests({ route: 'POST /factory/options' }) === 2,
        'the background commit',
        1_000_000,
      ),
      'the commit',
      30_000,
    );

    const waitedFrom = Date.now();
    const waited = await stepUntil(
      settled,
      current.executeText(
        SET,
        { input: { factoryId: shop, name: 'hours', value: hours } },
        { key: 'sim-key-1', headers: { 'x-api-secret': 'sim-key-1-secret', prefer: 'wait=10' } },
      ),
      'the waiting write',
      30_000,
    );
    expect(waited.errors).toBeUndefined();
    expect((waited.data as unknown as SetData).setSiteDocument).toMatchObject({
      committed: true,
      retryAfterSeconds: null,
      upstreamWrites: 2,
    });
    expect(Date.now() - waitedFrom).toBeGreaterThan(1500);
    expect(current.simulator.requests.filter((request) => request.status === 429)).toEqual([]);
  });
});

describe('site-document writes the simulator fails', () => {
  const stacks = useStacks();

  it('a 503 or a dropped connection at any write before the commit leaves the previous version readable', async () => {
    const stack = await stacks.start();
    const v1 = realisticCatalogue(80);
    const first = await stack.executeText(SET, { input: { factoryId: farm, name: 'catalogue', value: v1 } }, SECRET);
    expect(first.errors).toBeUndefined();
    for (const status of [503, 'drop'] as const) {
      // A one-item change: the changed chunk, then the committing slot.
      for (const nth of [1, 2]) {
        const changed = structuredClone(v1);
        changed.items[50]!.price = nth * 1000 + (status === 'drop' ? 1 : 0);
        stack.simulator.failWrite({ nth, status });
        const failed = await stack.executeText(
          SET,
          { input: { factoryId: farm, name: 'catalogue', value: changed } },
          SECRET,
        );
        expect(codes(failed)).toEqual(['UPSTREAM_ERROR']);
        // A fresh read from the upstream (no cache) still finds version 1, whole.
        const fresh = await stack.executeText(READ, { id: farm }, { headers: { 'cache-control': 'no-cache' } });
        expect(fresh.errors).toBeUndefined();
        expect(fresh.data?.factory).toEqual({ siteDocument: { version: 1, value: v1 } });
      }
    }
    // The commit is the last write: a change that gets through both has nothing after it that could fail.
    const changed = structuredClone(v1);
    changed.items[50]!.price = 1;
    const postsBefore = stack.simulator.countRequests({ route: 'POST /factory/options' });
    const committed = await stack.executeText(
      SET,
      { input: { factoryId: farm, name: 'catalogue', value: changed } },
      SECRET,
    );
    expect(committed.errors).toBeUndefined();
    expect((committed.data as unknown as SetData).setSiteDocument).toMatchObject({
      committed: true,
      upstreamWrites: 2,
      document: { version: 2 },
    });
    expect(stack.simulator.countRequests({ route: 'POST /factory/options' }) - postsBefore).toBe(2);
    const fresh = await stack.executeText(READ, { id: farm }, { headers: { 'cache-control': 'no-cache' } });
    expect(fresh.data?.factory).toEqual({ siteDocument: { version: 2, value: changed } });
  });

  it('an upstream 429 at either write before the commit leaves the previous version readable once the key has cooled down', async () => {
    const stack = await stacks.start({ fakeDate: T0 });
    const v1 = realisticCatalogue(80);
    expect(
      (await stack.executeText(SET, { input: { factoryId: farm, name: 'catalogue', value: v1 } }, SECRET)).errors,
    ).toBeUndefined();
    for (const nth of [1, 2]) {
      const changed = structuredClone(v1);
      changed.items[50]!.price = nth * 1000;
      stack.simulator.failWrite({ nth, status: 429 });
      const failed = await stack.executeText(
        SET,
        { input: { factoryId: farm, name: 'catalogue', value: changed } },
        SECRET,
      );
      expect(codes(failed)).toEqual(['RATE_LIMITED']);
      // The key cools down (no Retry-After: RATE_LIMIT_BACKOFF_SECONDS, doubled for a 429 soon after); then a fresh read.
      advanceClock(10 * 60_000);
      const fresh = await stack.executeText(READ, { id: farm }, { headers: { 'cache-control': 'no-cache' } });
      expect(fresh.errors).toBeUndefined();
      expect(fresh.data?.factory).toEqual({ siteDocument: { version: 1, value: v1 } });
    }
  });
});
