import { hash } from 'node:crypto';
import fc from 'fast-check';
import { ResponseCacheHits } from '../../src/graph/response-cache/response-cache-hits';
import { ResponseCacheStore, responseCacheKey } from '../../src/graph/response-cache/response-cache-store';

/** One request as a client sends it: its key id, query, operation name and variables. */
const requestArb = fc.record({
  keyId: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
  query: fc.constantFrom('{ a }', '{ a b }', 'query Q { a }', 'query Q($x: ID) { a(id: $x) }', '{ b }'),
  operationName: fc.constantFrom(null, 'Q'),
  variables: fc.option(
    fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(fc.integer({ min: 0, max: 3 }), fc.string({ maxLength: 2 }))),
    { nil: undefined },
  ),
});

/**
 * What the gateway does when Apollo's response-cache plugin serves a request: the plugin
 * makes its key (the query's hash, the key's generation, the private session), the gateway
 * links the raw request to it, and the plugin stores the answer, here a data text naming the
 * request it was made for (as the plugin sees it: absent variables are `{}`).
 */
async function serve(
  store: ResponseCacheStore,
  hits: ResponseCacheHits,
  request: { keyId: string; query: string; operationName: string | null; variables: unknown },
  generation: number,
): Promise<string> {
  const data = {
    source: request.query,
    operationName: request.operationName,
    variables: { ...(request.variables as object) },
    extra: generation,
    sessionId: request.keyId,
    sessionMode: 1,
  };
  const key = `fqc:${responseCacheKey({ queryHash: hash('sha256', request.query, 'hex') }, data)}`;
  hits.link(ResponseCacheHits.requestKey(request), key, generation, request.operationName);
  const dataText = JSON.stringify({
    for: [request.keyId, request.query, request.operationName, { ...(request.variables as object) }],
  });
  await store.set(key, `{"data":${dataText},"cachePolicy":{"maxAge":60,"scope":"PRIVATE"},"cacheTime":1000}`, {
    ttl: 60,
  });
  return dataText;
}

describe('ResponseCacheHits', () => {
  it('never answers a request with the bytes stored for another key or another request (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(requestArb, { minLength: 1, maxLength: 12 }),
        fc.array(requestArb, { minLength: 1, maxLength: 12 }),
        async (served, asked) => {
          const store = new ResponseCacheStore(1024 * 1024);
          const hits = new ResponseCacheHits(store);
          const stored = new Map<string, string>();
          for (const request of served)
            stored.set(ResponseCacheHits.requestKey(request), await serve(store, hits, request, 0));
          for (const request of [...served, ...asked]) {
            const found = hits.find(ResponseCacheHits.requestKey(request), 0);
            const own = JSON.stringify({
              for: [request.keyId, request.query, request.operationName, { ...(request.variables as object) }],
            });
            // Either nothing, or what was stored for this key's request with the same query, name and variables.
            if (found !== undefined) expect(found.dataText).toBe(own);
            expect(found?.dataText).toBe(stored.get(ResponseCacheHits.requestKey(request)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers nothing once the key wrote (another generation), and reads the age from the stored time', async () => {
    const store = new ResponseCacheStore(1024 * 1024);
    const hits = new ResponseCacheHits(store);
    const request = { keyId: 'k1', query: '{ a }', operationName: null, variables: undefined };
    const dataText = await serve(store, hits, request, 4);
    expect(hits.find(ResponseCacheHits.requestKey(request), 4)).toEqual({
      dataText,
      cacheTime: 1000,
      operationName: null,
    });
    expect(hits.find(ResponseCacheHits.requestKey(request), 5)).toBeUndefined();
    expect(hits.find(ResponseCacheHits.requestKey({ ...request, keyId: 'k2' }), 4)).toBeUndefined();
  });
});
