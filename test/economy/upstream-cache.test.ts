/**
 * Unit tests of the cross-request cache (src/economy/cache/upstream-cache.ts): memory bound by
 * the bytes it really holds, with LRU eviction; bodies kept as text (the latest decoded kept
 * beside them, bounded), failures shared;
 * entry lifetime, deletion. The clock is jest's fake `Date`,
 * advanced with `jest.advanceTimersByTime` (which also fires lru-cache's own timers).
 */
import { UpstreamCache } from '../../src/economy/cache/upstream-cache';
import type { CacheEntry } from '../../src/economy/cache/cache-entry';

function body(bytes: number, value: string = 'v'): CacheEntry {
  return { kind: 'body', body: { value }, storedAt: Date.now(), bytes };
}

describe('UpstreamCache', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: Date.UTC(2025, 0, 1) });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  /** What one entry of `cache` costs, measured by storing it alone. */
  function costOf(key: string, entry: CacheEntry): number {
    const alone = new UpstreamCache({ maxBytes: 1_000_000, now: () => Date.now() });
    alone.set(key, entry, 60_000);
    return alone.bytes;
  }

  it('holds at most maxBytes and evicts the least recently used entries first', () => {
    const one = costOf('a', body(0, 'a'.repeat(300)));
    const cache = new UpstreamCache({ maxBytes: 2 * one + 10, now: () => Date.now() });
    cache.set('a', body(0, 'a'.repeat(300)), 60_000);
    cache.set('b', body(0, 'b'.repeat(300)), 60_000);
    expect(cache.bytes).toBe(2 * one);
    expect(cache.get('a')).toBeDefined(); // a is now more recently used than b
    cache.set('c', body(0, 'c'.repeat(300)), 60_000);

    expect(cache.bytes).toBeLessThanOrEqual(2 * one + 10);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toMatchObject({ body: { value: 'a'.repeat(300) } });
    expect(cache.get('c')).toMatchObject({ body: { value: 'c'.repeat(300) } });
  });

  it('counts what an entry really holds: its UTF-8 text, its key and bookkeeping, not what the caller says', () => {
    const small = costOf('k', body(1, 'x'));
    expect(small).toBeGreaterThan(JSON.stringify({ value: 'x' }).length); // key and bookkeeping count too
    expect(costOf('k', body(1_000_000, 'x'))).toBe(small); // the caller's figure is not trusted
    expect(costOf('k'.repeat(101), body(1, 'x'))).toBe(small + 100);
    // 100 en dashes are 300 bytes of UTF-8 (V8 would keep a parsed string with two bytes per character)
    expect(costOf('k', body(1, '–'.repeat(100)))).toBe(small - 1 + 300);
    // from 512 bytes on the text lives in a Buffer outside the heap, which costs a fixed overhead more
    expect(costOf('k', body(1, 'x'.repeat(1000)))).toBeGreaterThan(small + 999);
  });

  it('does not store an entry larger than the whole cache (and keeps what it has)', () => {
    const cache = new UpstreamCache({ maxBytes: 1000, now: () => Date.now() });
    cache.set('small', body(0), 60_000);
    const held = cache.bytes;
    cache.set('huge', body(0, 'x'.repeat(2000)), 60_000);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
    expect(cache.bytes).toBe(held);
  });

  it('keeps bodies as text: without decoded bodies kept, every read parses a new object, equal to what was stored', () => {
    const cache = new UpstreamCache({ maxBytes: 10_000, now: () => Date.now(), decodedMaxBytes: 0 });
    cache.set(
      'k',
      { kind: 'body', body: { list: [1, 'ä–€', null], nested: { ok: true } }, storedAt: Date.now(), bytes: 0 },
      60_000,
    );
    const first = cache.get('k');
    const second = cache.get('k');
    expect(first).toEqual({
      kind: 'body',
      body: { list: [1, 'ä–€', null], nested: { ok: true } },
      storedAt: Date.now(),
      bytes: expect.any(Number),
    });
    const bodyOf = (entry: CacheEntry | undefined): unknown => (entry?.kind === 'body' ? entry.body : undefined);
    expect(bodyOf(second)).toEqual(bodyOf(first));
    expect(bodyOf(second)).not.toBe(bodyOf(first));
  });

  it('shares the decoded body and its memo between the reads of one stored answer, and a new answer gets new ones', () => {
    const cache = new UpstreamCache({ maxBytes: 10_000, now: () => Date.now() });
    cache.set('k', { kind: 'body', body: { value: 1 }, storedAt: Date.now(), bytes: 0 }, 60_000);
    const first = cache.get('k');
    const second = cache.get('k');
    expect(first?.kind === 'body' && first.memo).toEqual({});
    expect(second?.kind === 'body' ? second.body : null).toBe(first?.kind === 'body' ? first.body : undefined);
    expect(second?.kind === 'body' ? second.memo : null).toBe(first?.kind === 'body' ? first.memo : undefined);

    cache.set('k', { kind: 'body', body: { value: 2 }, storedAt: Date.now(), bytes: 0 }, 60_000);
    const renewed = cache.get('k');
    expect(renewed).toMatchObject({ body: { value: 2 }, memo: {} });
    expect(renewed?.kind === 'body' ? renewed.memo : null).not.toBe(first?.kind === 'body' ? first.memo : undefined);
  });

  it('keeps decoded bodies up to decodedMaxBytes of text, the first decoded dropped first', () => {
    // Two answers of 112 characters fit 2.5 times that (whatever the few bytes of bookkeeping each counts), three do not.
    const text = JSON.stringify({ value: 'x'.repeat(100) }).length;
    const cache = new UpstreamCache({
      maxBytes: 100_000,
      now: () => Date.now(),
      decodedMaxBytes: Math.floor(2.5 * text),
    });
    for (const key of ['a', 'b', 'c'])
      cache.set(key, { kind: 'body', body: { value: 'x'.repeat(100) }, storedAt: Date.now(), bytes: 0 }, 60_000);
    const memoOf = (key: string): unknown => {
      const entry = cache.get(key);
      return entry?.kind === 'body' ? entry.memo : undefined;
    };
    const a = memoOf('a');
    const b = memoOf('b');
    const c = memoOf('c'); // a is dropped: only two fit
    expect(memoOf('b')).toBe(b);
    expect(memoOf('c')).toBe(c);
    expect(memoOf('a')).not.toBe(a); // decoded again (and b dropped in turn)
    expect(memoOf('b')).not.toBe(b);
  });

  it('shares one frozen record between entries with the same failure', () => {
    const cache = new UpstreamCache({ maxBytes: 10_000, now: () => Date.now() });
    const failure = () => ({
      code: 'NOT_FOUND' as const,
      upstream: { status: 404, endpoint: 'GET /factory/counter/{id}', message: 'Counter is empty' },
      extra: {},
    });
    cache.set('a', { kind: 'failure', failure: failure(), storedAt: Date.now(), bytes: 0 }, 60_000);
    cache.set('b', { kind: 'failure', failure: failure(), storedAt: Date.now(), bytes: 0 }, 60_000);
    const failureOf = (entry: CacheEntry | undefined) => (entry?.kind === 'failure' ? entry.failure : undefined);
    const a = failureOf(cache.get('a'));
    expect(a).toEqual(failure());
    expect(a).toBe(failureOf(cache.get('b')));
    expect(Object.isFrozen(a?.upstream)).toBe(true);
  });

  it('forgets an entry after its lifetime, not before', () => {
    const cache = new UpstreamCache({ maxBytes: 1000, now: () => Date.now() });
    cache.set('k', body(10), 5_000);
    jest.advanceTimersByTime(5_000);
    expect(cache.get('k')).toBeDefined();
    jest.advanceTimersByTime(1);
    expect(cache.get('k')).toBeUndefined();
  });

  it('deletes one entry and releases its bytes', () => {
    const cache = new UpstreamCache({ maxBytes: 1000, now: () => Date.now() });
    cache.set('x', body(10), 5_000);
    cache.set('y', body(20, 'yy'), 5_000);
    cache.delete('x');
    expect(cache.get('x')).toBeUndefined();
    expect(cache.get('y')).toBeDefined();
    expect(cache.bytes).toBe(costOf('y', body(20, 'yy')));
    expect(cache.size).toBe(1);
  });
});
