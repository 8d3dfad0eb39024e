/**
 * `FetchLoader.loadNow`: a fresh cached answer is the value itself (no promise), a miss is
 * DataLoader's promise and one upstream read however often it is asked, each key has one
 * answer for the whole operation, a cached failure rejects, and the look at the cache
 * sends nothing.
 */
import type { UpstreamEconomy } from '../../src/economy';
import { UpstreamSession } from '../../src/economy';
import type { UpstreamReply } from '../../src/economy/upstream-economy';
import { fetchMapped } from '../../src/domains/shared/fetch-mapped';
import { createFetchLoader } from '../../src/domains/shared/loader';
import type { MaybePromise } from '../../src/domains/shared/maybe-promise';
import type { Endpoint, PathParams } from '../../src/upstream/endpoints';
import { buildPath, ENDPOINTS } from '../../src/upstream/endpoints';

/** An economy over a map of answers by path: `freshHit` answers what it holds, `get` sends (counted) and holds the answer. */
function economyOver(upstream: (path: string) => UpstreamReply): {
  economy: UpstreamEconomy;
  cache: Map<string, UpstreamReply>;
  sent: string[];
} {
  const cache = new Map<string, UpstreamReply>();
  const sent: string[] = [];
  const economy = {
    freshHit: (_caller: unknown, endpoint: Endpoint, params?: PathParams) => cache.get(buildPath(endpoint, params)),
    get: async (_caller: unknown, endpoint: Endpoint, params?: PathParams) => {
      const path = buildPath(endpoint, params);
      sent.push(path);
      await Promise.resolve();
      const reply = upstream(path);
      cache.set(path, reply);
      return reply;
    },
  };
  return { economy: economy as unknown as UpstreamEconomy, cache, sent };
}

const counter = (session: UpstreamSession, id: string): MaybePromise<{ id: string; n: number }> =>
  fetchMapped(session, ENDPOINTS.factoryCounter, { id }, (body) => ({ id, n: (body as { n: number }).n }));

describe('FetchLoader.loadNow', () => {
  it('answers a fresh cached answer at once, and a miss with one upstream read', async () => {
    let n = 0;
    const { economy, sent } = economyOver(() => ({ body: { n: (n += 1) }, stale: null }));
    const session = new UpstreamSession(economy, 'key', 'key-id');
    const loader = createFetchLoader(session, counter, { cache: true });

    const first = loader.loadNow('a');
    expect(first).toBeInstanceOf(Promise);
    expect(loader.loadNow('a')).toBe(first);
    expect(await first).toEqual({ id: 'a', n: 1 });
    expect(sent).toEqual(['/factory/counter/a']);

    // Another operation: the cache holds it fresh, so the value comes at once.
    const next = createFetchLoader(new UpstreamSession(economy, 'key', 'key-id'), counter, { cache: true });
    expect(next.loadNow('a')).toEqual({ id: 'a', n: 1 });
    expect(sent).toEqual(['/factory/counter/a']);
  });

  it('keeps one answer per key for the operation, and load agrees with it', async () => {
    const { economy, cache } = economyOver(() => ({ body: { n: 0 }, stale: null }));
    cache.set('/factory/counter/a', { body: { n: 1 }, stale: null });
    const loader = createFetchLoader(new UpstreamSession(economy, 'key', 'key-id'), counter, { cache: true });

    const first = loader.loadNow('a');
    cache.set('/factory/counter/a', { body: { n: 2 }, stale: null });
    expect(loader.loadNow('a')).toBe(first);
    await expect(loader.load('a')).resolves.toBe(first);
    loader.clear('a');
    expect(loader.loadNow('a')).toEqual({ id: 'a', n: 2 });
  });

  it('rejects with a cached failure, and looks at the cache without sending', async () => {
    const { economy, cache, sent } = economyOver(() => ({ body: { n: 3 }, stale: null }));
    cache.set('/factory/counter/gone', {
      failure: {
        code: 'NOT_FOUND',
        upstream: { status: 404, endpoint: ENDPOINTS.factoryCounter.route, message: 'Factory not found' },
        extra: {},
      },
      stale: null,
    });
    const loader = createFetchLoader(new UpstreamSession(economy, 'key', 'key-id'), counter, { cache: true });

    const failed = loader.loadNow('gone');
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(sent).toEqual([]);

    const many = loader.loadManyNow(['gone', 'b']);
    expect(many).toBeInstanceOf(Promise);
    const values = await many;
    expect(values[0]).toMatchObject({ code: 'NOT_FOUND' });
    expect(values[1]).toEqual({ id: 'b', n: 3 });
    expect(sent).toEqual(['/factory/counter/b']);
    // This operation keeps its promise for b; the next one has every value at once.
    expect(loader.loadManyNow(['b'])).toBeInstanceOf(Promise);
    const next = createFetchLoader(new UpstreamSession(economy, 'key', 'key-id'), counter, { cache: true });
    expect(next.loadManyNow(['b', 'b'])).toEqual([
      { id: 'b', n: 3 },
      { id: 'b', n: 3 },
    ]);
  });

  it('without its memo (the naive baseline) still answers fresh hits at once', () => {
    const { economy, cache } = economyOver(() => ({ body: { n: 0 }, stale: null }));
    cache.set('/factory/counter/a', { body: { n: 1 }, stale: null });
    const loader = createFetchLoader(new UpstreamSession(economy, 'key', 'key-id'), counter, { cache: false });
    expect(loader.loadNow('a')).toEqual({ id: 'a', n: 1 });
  });

  it('does not look at the cache for a no-cache operation', async () => {
    const { economy } = economyOver(() => ({ body: { n: 0 }, stale: null }));
    const noCache = new UpstreamSession(economy, 'key', 'key-id', true);
    const peek = jest.spyOn(noCache, 'peek');
    const read = createFetchLoader(noCache, counter, { cache: true }).loadNow('a');
    expect(read).toBeInstanceOf(Promise);
    await read;
    expect(peek).not.toHaveBeenCalled();
    const plain = new UpstreamSession(economy, 'key', 'key-id');
    const plainPeek = jest.spyOn(plain, 'peek');
    await createFetchLoader(plain, counter, { cache: true }).loadNow('a');
    expect(plainPeek).toHaveBeenCalledTimes(1);
  });

  it("answers a cache-only operation (a live query's re-run) at once from what is cached", () => {
    const { economy, cache } = economyOver(() => ({ body: { n: 0 }, stale: null }));
    cache.set('/factory/counter/a', { body: { n: 4 }, stale: null });
    const liveRun = new UpstreamSession(economy, 'key', 'key-id');
    liveRun.cacheOnly = true;
    expect(createFetchLoader(liveRun, counter, { cache: true }).loadNow('a')).toEqual({ id: 'a', n: 4 });
  });
});
