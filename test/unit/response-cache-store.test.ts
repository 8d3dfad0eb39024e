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

describe('ResponseCacheStore.expectRead', () => {
  const data = { factory: { name: 'Müller – Autohaus 🚗', items: [1, 2.5, null, 'a"b\\c'] } };
  const stored = JSON.stringify({ data, cachePolicy: { maxAge: 12, scope: 'PRIVATE' }, cacheTime: 1_764_000_000_000 });

  it('tells the announced reader the data text of the answer it reads, as serializing the data gives it', async () => {
    const store = new ResponseCacheStore(1_000_000);
    await store.set('fqc:k', stored);
    const context: { responseCacheData?: string } = {};
    store.expectRead('k', context);
    expect(await store.get('fqc:k')).toBe(stored);
    expect(context.responseCacheData).toBe(JSON.stringify(data));
  });

  it('tells nothing on a miss, for another key, without an announcement, or for a text of another shape', async () => {
    const store = new ResponseCacheStore(1_000_000);
    await store.set('fqc:k', stored);
    await store.set('fqc:other', stored);
    await store.set('fqc:shape', JSON.stringify({ data, errors: [], cachePolicy: { maxAge: 1 }, cacheTime: 1 }));
    const missed: { responseCacheData?: string } = {};
    store.expectRead('none', missed);
    expect(await store.get('fqc:none')).toBeUndefined();
    const another: { responseCacheData?: string } = {};
    store.expectRead('k', another);
    await store.get('fqc:other');
    // The announcement went with that read: a later read of its key tells nothing.
    await store.get('fqc:k');
    const shaped: { responseCacheData?: string } = {};
    store.expectRead('shape', shaped);
    expect(await store.get('fqc:shape')).toContain('"errors":[]');
    expect([missed, another, shaped].map((context) => context.responseCacheData)).toEqual([undefined, undefined, undefined]);
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
