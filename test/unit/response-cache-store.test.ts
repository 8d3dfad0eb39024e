/**
 * The store of Apollo's whole-response cache (src/graph/response-cache-store.ts): it
 * gives back exactly what was stored, counts UTF-8 bytes, keys and bookkeeping against
 * its bound, evicts the least recently used, and honours Apollo's TTL in seconds.
 */
import { ResponseCacheStore } from '../../src/graph/response-cache-store';

describe('ResponseCacheStore', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('gives back exactly the text it was given, short or long, with any characters', async () => {
    const store = new ResponseCacheStore(1_000_000);
    const short = '{"data":{"name":"Müller – Autohaus 🚗"}}';
    const long = JSON.stringify({ data: { list: Array.from({ length: 200 }, (_, i) => `Mo–So ${i} Uhr €`) } });
    await store.set('s', short);
    await store.set('l', long);
    expect(await store.get('s')).toBe(short);
    expect(await store.get('l')).toBe(long);
    expect(await store.get('missing')).toBeUndefined();
    expect(await store.delete('s')).toBe(true);
    expect(await store.get('s')).toBeUndefined();
  });

  it('counts UTF-8 bytes and the key, so a bound in bytes holds', async () => {
    const ascii = new ResponseCacheStore(1_000_000);
    await ascii.set('k', 'a'.repeat(100));
    const dashes = new ResponseCacheStore(1_000_000);
    await dashes.set('k', '–'.repeat(100)); // 100 characters, 300 bytes of UTF-8
    expect(dashes.bytes - ascii.bytes).toBe(200);
    const longKey = new ResponseCacheStore(1_000_000);
    await longKey.set('k'.repeat(51), 'a'.repeat(100));
    expect(longKey.bytes - ascii.bytes).toBe(50);
  });

  it('evicts the least recently used entry when the bound is reached', async () => {
    const probe = new ResponseCacheStore(1_000_000);
    await probe.set('a', 'x'.repeat(300));
    const one = probe.bytes;
    const store = new ResponseCacheStore(2 * one);
    await store.set('a', 'x'.repeat(300));
    await store.set('b', 'y'.repeat(300));
    await store.get('a');
    await store.set('c', 'z'.repeat(300));
    expect(store.size).toBe(2);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('x'.repeat(300));
    expect(store.bytes).toBeLessThanOrEqual(2 * one);
  });

  it('forgets an entry after its TTL in seconds', async () => {
    jest.useFakeTimers({ now: Date.UTC(2025, 0, 1) });
    const store = new ResponseCacheStore(1_000_000, () => Date.now());
    await store.set('k', 'v', { ttl: 5 });
    jest.advanceTimersByTime(4_999);
    expect(await store.get('k')).toBe('v');
    jest.advanceTimersByTime(2);
    expect(await store.get('k')).toBeUndefined();
  });
});
