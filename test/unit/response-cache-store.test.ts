/**
 * The store of Apollo's whole-response cache (src/graph/response-cache-store.ts): it
 * gives back exactly what was stored, counts UTF-8 bytes, keys and bookkeeping against
 * its bound, evicts the least recently used, and honours Apollo's TTL in seconds; and
 * the entries' key names the query by its hash and tells every other part of the
 * request's identity apart.
 */
import { createHash } from 'node:crypto';
import { ResponseCacheStore, responseCacheKey } from '../../src/graph/response-cache-store';

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

describe('responseCacheKey', () => {
  const source = '{ factories { id name } }';
  const queryHash = createHash('sha256').update(source).digest('hex');
  const identity = { source, operationName: 'Dashboard', variables: { id: '1' }, extra: 3, sessionId: 'kid', sessionMode: 1 };

  it('is the same for the same request, by the query’s hash (the text is not needed)', () => {
    const key = responseCacheKey({ queryHash }, identity);
    expect(responseCacheKey({ queryHash }, { ...identity })).toBe(key);
    expect(responseCacheKey({ queryHash }, { ...identity, source: 'not read when the hash is known' })).toBe(key);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('tells apart every other part of the identity', () => {
    const key = responseCacheKey({ queryHash }, identity);
    const others = [
      responseCacheKey({ queryHash: createHash('sha256').update('{ auctions { id } }').digest('hex') }, identity),
      responseCacheKey({ queryHash }, { ...identity, operationName: 'Other' }),
      responseCacheKey({ queryHash }, { ...identity, variables: { id: '2' } }),
      responseCacheKey({ queryHash }, { ...identity, extra: 4 }),
      responseCacheKey({ queryHash }, { ...identity, sessionId: 'other-kid' }),
      responseCacheKey({ queryHash }, { ...identity, sessionMode: 2 }),
      responseCacheKey({}, identity),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it('falls back to the query text when Apollo has no hash', () => {
    expect(responseCacheKey({}, identity)).toBe(responseCacheKey({}, { ...identity }));
    expect(responseCacheKey({}, identity)).not.toBe(responseCacheKey({}, { ...identity, source: '{ auctions { id } }' }));
  });
});
