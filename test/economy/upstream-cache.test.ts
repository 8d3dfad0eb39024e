/**
 * Unit tests of the cross-request cache (src/economy/cache/upstream-cache.ts): memory bound by
 * bytes with LRU eviction, entry lifetime, deletion. The clock is jest's fake `Date`,
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

  it('holds at most maxBytes and evicts the least recently used entries first', () => {
    const cache = new UpstreamCache({ maxBytes: 100, now: () => Date.now() });
    cache.set('a', body(40, 'a'), 60_000);
    cache.set('b', body(40, 'b'), 60_000);
    expect(cache.bytes).toBe(80);
    expect(cache.get('a')).toBeDefined(); // a is now more recently used than b
    cache.set('c', body(40, 'c'), 60_000);

    expect(cache.bytes).toBeLessThanOrEqual(100);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toMatchObject({ body: { value: 'a' } });
    expect(cache.get('c')).toMatchObject({ body: { value: 'c' } });
  });

  it('does not store an entry larger than the whole cache (and keeps what it has)', () => {
    const cache = new UpstreamCache({ maxBytes: 100, now: () => Date.now() });
    cache.set('small', body(30), 60_000);
    cache.set('huge', body(101), 60_000);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
    expect(cache.bytes).toBe(30);
  });

  it('counts error entries by their size too', () => {
    const cache = new UpstreamCache({ maxBytes: 1000, now: () => Date.now() });
    const entry: CacheEntry = { kind: 'body', body: null, storedAt: Date.now(), bytes: 0 };
    cache.set('zero', entry, 1000);
    expect(cache.bytes).toBe(1); // never 0: every entry costs something
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
    cache.set('y', body(20), 5_000);
    cache.delete('x');
    expect(cache.get('x')).toBeUndefined();
    expect(cache.get('y')).toBeDefined();
    expect(cache.bytes).toBe(20);
    expect(cache.size).toBe(1);
  });
});
