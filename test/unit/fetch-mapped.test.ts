/**
 * `fetchMapped` over an answer read from the process cache: the answer is mapped once
 * while the cache keeps it decoded (its memo), every read after that gets the same mapped
 * result and the same shape drift reported again; an answer without a memo (fresh from the
 * upstream) is mapped on each read, and a new answer in the memo's place is mapped anew.
 */
import type { UpstreamSession } from '../../src/economy';
import type { AnswerMemo } from '../../src/economy/cache/cache-entry';
import type { UpstreamReply } from '../../src/economy/upstream-economy';
import { fetchMapped } from '../../src/domains/shared/fetch-mapped';
import { noteDrift } from '../../src/domains/shared/narrow';
import { onShapeDrift } from '../../src/domains/shared/shape-drift';
import { ENDPOINTS } from '../../src/upstream/endpoints';

/** A session whose every GET answers `reply()`; markStale passes results through. */
function sessionAnswering(reply: () => UpstreamReply): UpstreamSession {
  const session = {
    cached: () => undefined,
    get: async () => reply(),
    getFresh: async () => reply(),
    markStale: <T>(result: T): T => result,
  };
  return session as unknown as UpstreamSession;
}

describe('fetchMapped', () => {
  let drifts: string[];
  let unsubscribe: () => void;
  beforeEach(() => {
    drifts = [];
    unsubscribe = onShapeDrift((endpoint, field) => drifts.push(`${endpoint} ${field}`));
  });
  afterEach(() => unsubscribe());

  /** A mapper that counts its runs and notes one drifted field. */
  function countingMapper(): { map: (body: unknown) => { n: unknown }; runs: () => number } {
    let runs = 0;
    return {
      map: (body) => {
        runs += 1;
        noteDrift('name');
        return { n: (body as { n: unknown }).n };
      },
      runs: () => runs,
    };
  }

  it('maps a cached answer once per memo, shares the result and reports its drift on every read', async () => {
    const memo: AnswerMemo = {};
    const body = { n: 1 };
    const session = sessionAnswering(() => ({ body, stale: null, memo }));
    const { map, runs } = countingMapper();

    const first = await fetchMapped(session, ENDPOINTS.factoryList, undefined, map);
    const second = await fetchMapped(session, ENDPOINTS.factoryList, undefined, map);

    expect(first).toEqual({ n: 1 });
    expect(second).toBe(first);
    expect(runs()).toBe(1);
    expect(drifts).toEqual(['GET /factory/list/ name', 'GET /factory/list/ name']);
  });

  it('maps an answer without a memo on every read, and a new memo anew', async () => {
    let reply: UpstreamReply = { body: { n: 1 }, stale: null };
    const session = sessionAnswering(() => reply);
    const { map, runs } = countingMapper();

    const first = await fetchMapped(session, ENDPOINTS.factoryList, undefined, map);
    const second = await fetchMapped(session, ENDPOINTS.factoryList, undefined, map);
    expect(second).not.toBe(first);
    expect(runs()).toBe(2);

    reply = { body: { n: 2 }, stale: null, memo: {} };
    expect(await fetchMapped(session, ENDPOINTS.factoryList, undefined, map)).toEqual({ n: 2 });
    reply = { body: { n: 3 }, stale: null, memo: {} };
    expect(await fetchMapped(session, ENDPOINTS.factoryList, undefined, map)).toEqual({ n: 3 });
    expect(runs()).toBe(4);
  });

  it('does not keep a mapping that failed: the next read maps again and fails again', async () => {
    const memo: AnswerMemo = {};
    const session = sessionAnswering(() => ({ body: null, stale: null, memo }));
    let runs = 0;
    const map = (body: unknown): string => {
      runs += 1;
      if (body === null) throw new Error('no body');
      return 'x';
    };
    await expect(fetchMapped(session, ENDPOINTS.factoryList, undefined, map)).rejects.toThrow('no body');
    await expect(fetchMapped(session, ENDPOINTS.factoryList, undefined, map)).rejects.toThrow('no body');
    expect(runs).toBe(2);
    expect(memo.by).toBeUndefined();
  });

  it('maps a fresh cached answer the session has at once the same way, and rejects what that mapping throws', async () => {
    const memo: AnswerMemo = {};
    let gets = 0;
    const cachedReply: UpstreamReply = { body: { n: 5 }, stale: null, memo };
    const session = {
      cached: () => cachedReply,
      get: async () => {
        gets += 1;
        return cachedReply;
      },
      markStale: <T>(result: T): T => result,
    } as unknown as UpstreamSession;
    const { map, runs } = countingMapper();

    const first = await fetchMapped(session, ENDPOINTS.factoryList, undefined, map);
    expect(first).toEqual({ n: 5 });
    expect(await fetchMapped(session, ENDPOINTS.factoryList, undefined, map)).toBe(first);
    expect(runs()).toBe(1);
    expect(gets).toBe(0);
    const failing = {
      cached: () => ({ body: null, stale: null }),
      markStale: <T>(result: T): T => result,
    } as unknown as UpstreamSession;
    await expect(
      fetchMapped(failing, ENDPOINTS.factoryList, undefined, () => {
        throw new Error('no body');
      }),
    ).rejects.toThrow('no body');
  });
});
