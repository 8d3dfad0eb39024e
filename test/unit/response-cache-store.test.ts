/**
 * The store of Apollo's whole-response cache (src/graph/response-cache/response-cache-store.ts): it
 * gives back exactly what was stored, counts UTF-8 bytes, keys and bookkeeping against
 * its bound, evicts the least recently used, and honours Apollo's TTL in seconds; and
 * the entries' key names the query by its hash and tells every other part of the
 * request's identity apart.
 */
import { createHash } from 'node:crypto';
import { ResponseCacheStore, responseCacheKey } from '../../src/graph/response-cache/response-cache-store';

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
    await probe.set('k00', 'x'.repeat(300));
    const one = probe.bytes;
    const store = new ResponseCacheStore(40 * one);
    for (let i = 0; i < 40; i += 1) await store.set(`k${String(i).padStart(2, '0')}`, 'x'.repeat(300));
    await store.get('k00');
    await store.set('k40', 'z'.repeat(300));
    expect(store.size).toBe(40);
    expect(await store.get('k01')).toBeUndefined();
    expect(await store.get('k00')).toBe('x'.repeat(300));
    expect(store.bytes).toBeLessThanOrEqual(40 * one);
  });

  it('keeps no entry over a 32nd of its bound, and drops the older entry of that key', async () => {
    const store = new ResponseCacheStore(32_000);
    expect(store.maxEntryBytes).toBe(1000);
    await store.set('k', 'x'.repeat(500));
    expect(await store.get('k')).toBe('x'.repeat(500));
    await store.set('k', 'y'.repeat(1000));
    expect(await store.get('k')).toBeUndefined();
    expect(store.bytes).toBe(0);
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

  it('gives the plugin the text without its data for a context that writes its response as text', async () => {
    const store = new ResponseCacheStore(1_000_000);
    await store.set('fqc:k', stored);
    const context: { responseCacheData?: string; httpResponse?: boolean } = { httpResponse: true };
    store.expectRead('k', context);
    const text = await store.get('fqc:k');
    expect(JSON.parse(text ?? '')).toEqual({
      data: {},
      cachePolicy: { maxAge: 12, scope: 'PRIVATE' },
      cacheTime: 1_764_000_000_000,
    });
    expect(context.responseCacheData).toBe(JSON.stringify(data));
    // Unannounced, the same entry is read whole.
    expect(await store.get('fqc:k')).toBe(stored);
  });

  it('tells nothing on a miss, for another key, or without an announcement', async () => {
    const store = new ResponseCacheStore(1_000_000);
    await store.set('fqc:k', stored);
    await store.set('fqc:other', stored);
    const missed: { responseCacheData?: string } = {};
    store.expectRead('none', missed);
    expect(await store.get('fqc:none')).toBeUndefined();
    const another: { responseCacheData?: string } = {};
    store.expectRead('k', another);
    await store.get('fqc:other');
    // The announcement went with that read: a later read of its key tells nothing.
    await store.get('fqc:k');
    expect([missed, another].map((context) => context.responseCacheData)).toEqual([undefined, undefined]);
  });

  it('finds the end of data by the policy after it, whatever the data holds', async () => {
    // Members named like the plugin's, inside the data and inside a string.
    const tricky = { cachePolicy: { maxAge: 1 }, cacheTime: 2, note: ',"cachePolicy":{},"cacheTime":3}' };
    const store = new ResponseCacheStore(1_000_000);
    await store.set('fqc:k', stored);
    await store.set(
      'fqc:tricky',
      JSON.stringify({ data: tricky, cachePolicy: { maxAge: 5, scope: 'PUBLIC' }, cacheTime: 7 }),
    );
    const context: { responseCacheData?: string } = {};
    store.expectRead('tricky', context);
    await store.get('fqc:tricky');
    expect(context.responseCacheData).toBe(JSON.stringify(tricky));
  });

  it("tells nothing for a text whose ends are not the plugin's", async () => {
    const store = new ResponseCacheStore(1_000_000);
    await store.set('fqc:k', stored);
    const odd = [
      '{"data":{},"cachePolicy":{"maxAge":{"x":1}},"cacheTime":1}',
      '{"data":1,"cacheTime":1,"cachePolicy":{}}',
      '[{"data":1},"cachePolicy",{},"cacheTime",1]',
    ];
    const contexts: Array<string | undefined> = [];
    for (const [index, text] of odd.entries()) {
      await store.set(`fqc:odd${index}`, text);
      const context: { responseCacheData?: string } = {};
      store.expectRead(`odd${index}`, context);
      expect(await store.get(`fqc:odd${index}`)).toBe(text);
      contexts.push(context.responseCacheData);
    }
    expect(contexts).toEqual([undefined, undefined, undefined]);
  });

  it('tells nothing at all when the first text stored shows another plugin shape', async () => {
    const store = new ResponseCacheStore(1_000_000);
    // Another version's members: this process's texts are never taken apart.
    await store.set('fqc:shape', JSON.stringify({ data, errors: [], cachePolicy: { maxAge: 1 }, cacheTime: 1 }));
    await store.set('fqc:k', stored);
    const shaped: { responseCacheData?: string } = {};
    store.expectRead('shape', shaped);
    expect(await store.get('fqc:shape')).toContain('"errors":[]');
    const later: { responseCacheData?: string } = {};
    store.expectRead('k', later);
    expect(await store.get('fqc:k')).toBe(stored);
    expect([shaped, later].map((context) => context.responseCacheData)).toEqual([undefined, undefined]);
  });
});

describe('responseCacheKey', () => {
  const source = '{ factories { id name } }';
  const queryHash = createHash('sha256').update(source).digest('hex');
  const identity = {
    source,
    operationName: 'Dashboard',
    variables: { id: '1' },
    extra: 3,
    sessionId: 'kid',
    sessionMode: 1,
  };

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
    expect(responseCacheKey({}, identity)).not.toBe(
      responseCacheKey({}, { ...identity, source: '{ auctions { id } }' }),
    );
  });
});
