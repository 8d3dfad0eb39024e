import crypto, { hash } from 'node:crypto';
import fc from 'fast-check';
import { ResponseCacheHits, responseSession } from '../../src/graph/response-cache/response-cache-hits';
import { ResponseCacheStore, responseCacheKey } from '../../src/graph/response-cache/response-cache-store';

/** One request as a client sends it: its key id, and its body's query, operation name and variables. */
const requestArb = fc.record({
  keyId: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
  // An access token over the key (null: the key itself): each token's grants may shape its answers.
  tokenId: fc.constantFrom(null, 'tok_all', 'tok_shop'),
  query: fc.constantFrom('{ a }', '{ a b }', 'query Q { a }', 'query Q($x: ID) { a(id: $x) }', '{ b }'),
  operationName: fc.constantFrom(null, 'Q'),
  variables: fc.option(
    fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(fc.integer({ min: 0, max: 3 }), fc.string({ maxLength: 2 }))),
    { nil: undefined },
  ),
  // The same parameters may be sent as different texts (member order, spaces).
  spaced: fc.boolean(),
});

type Request = {
  keyId: string;
  tokenId: string | null;
  query: string;
  operationName: string | null;
  variables: unknown;
  spaced: boolean;
};

/** The caller's response-cache session: the key's, or the token's over it. */
function sessionOf(request: Request): string {
  return responseSession(request.keyId, request.tokenId);
}

/** The body's text as the client sends it. */
function bodyOf(request: Request): string {
  const { query, operationName, variables } = request;
  return request.spaced
    ? JSON.stringify({ variables, operationName, query }, null, 1)
    : JSON.stringify({ query, operationName, variables });
}

/** The data text stored for a request: it names the key and the parameters it was made for (as the plugin sees them). */
function dataTextOf(request: Request): string {
  return JSON.stringify({
    for: [sessionOf(request), request.query, request.operationName, { ...(request.variables as object) }],
    note: 'Mo–So',
  });
}

/**
 * What the gateway does when Apollo's response-cache plugin serves a request: the plugin
 * makes its key (the query's hash, the key's generation, the private session), the gateway
 * links the raw request to it, and the plugin stores the answer, here a data text naming the
 * request it was made for (as the plugin sees it: absent variables are `{}`).
 */
async function serve(
  store: ResponseCacheStore,
  hits: ResponseCacheHits,
  request: Request,
  generation: number,
): Promise<string> {
  const data = {
    source: request.query,
    operationName: request.operationName,
    variables: { ...(request.variables as object) },
    extra: generation,
    sessionId: sessionOf(request),
    sessionMode: 1,
  };
  const key = `fqc:${responseCacheKey({ queryHash: hash('sha256', request.query, 'hex') }, data)}`;
  hits.link(hits.requestKey(sessionOf(request), bodyOf(request)), key, generation, request.operationName);
  const dataText = dataTextOf(request);
  await store.set(key, `{"data":${dataText},"cachePolicy":{"maxAge":60,"scope":"PRIVATE"},"cacheTime":1000}`, {
    ttl: 60,
  });
  return dataText;
}

/** The `data` text of a hit's stored bytes (`{"data":…`). */
function dataOf(head: Buffer | undefined): string | undefined {
  if (head === undefined) return undefined;
  const text = head.toString('utf8');
  expect(text.startsWith('{"data":')).toBe(true);
  return text.slice('{"data":'.length);
}

describe('ResponseCacheHits', () => {
  it('never answers a request with the bytes stored for another key, token or request (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(requestArb, { minLength: 1, maxLength: 12 }),
        fc.array(requestArb, { minLength: 1, maxLength: 12 }),
        async (served, asked) => {
          const store = new ResponseCacheStore(1024 * 1024);
          const hits = new ResponseCacheHits(store);
          const stored = new Map<string, string>();
          for (const request of served)
            stored.set(hits.requestKey(sessionOf(request), bodyOf(request)), await serve(store, hits, request, 0));
          for (const request of [...served, ...asked]) {
            const requestKey = hits.requestKey(sessionOf(request), bodyOf(request));
            const found = dataOf(hits.find(requestKey, 0)?.head);
            // Either nothing, or what was stored for this key's (this token's) request with the same query, name and variables.
            if (found !== undefined) expect(found).toBe(dataTextOf(request));
            expect(found).toBe(stored.get(requestKey));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers nothing once the key wrote (another generation), and reads the age from the stored time', async () => {
    const store = new ResponseCacheStore(1024 * 1024);
    const hits = new ResponseCacheHits(store);
    const request = {
      keyId: 'k1',
      tokenId: null,
      query: '{ a }',
      operationName: null,
      variables: undefined,
      spaced: false,
    };
    const dataText = await serve(store, hits, request, 4);
    const requestKey = hits.requestKey('k1', bodyOf(request));
    const found = hits.find(requestKey, 4);
    expect(found && { ...found, head: dataOf(found.head) }).toEqual({
      head: dataText,
      cacheTime: 1000,
      operationName: null,
    });
    expect(hits.find(requestKey, 5)).toBeUndefined();
    expect(hits.find(hits.requestKey('k2', bodyOf(request)), 4)).toBeUndefined();
  });

  it('identifies a request by its key id and its exact body text, remembered or not', () => {
    const hits = new ResponseCacheHits(new ResponseCacheStore(1024 * 1024));
    const body = '{"query":"{ a }"}';
    const first = hits.requestKey('k1', body);
    // Another string with the same text (as each request reads its own) is the same request.
    expect(hits.requestKey('k1', `{"query":"{ a }"}${''}`)).toBe(first);
    expect(hits.requestKey('k1', ` ${body}`)).not.toBe(first);
    expect(hits.requestKey('k2', body)).not.toBe(first);
    // An access token over the same key is another caller: its grants may shape its answers.
    expect(hits.requestKey(responseSession('k1', 'tok_1'), body)).not.toBe(first);
    expect(hits.requestKey(responseSession('k1', 'tok_1'), body)).not.toBe(
      hits.requestKey(responseSession('k1', 'tok_2'), body),
    );
    expect(first).toBe(`k1.${hash('sha256', body, 'base64url')}`);
    // The key id is never the key: the identity holds what it is given, and a digest, never the body.
    expect(first).not.toContain('{ a }');
    // A body too long to remember is hashed each time, to the same identity.
    const long = JSON.stringify({ query: `{ a } # ${'x'.repeat(70_000)}` });
    expect(hits.requestKey('k1', long)).toBe(hits.requestKey('k1', long));
    expect(hits.requestKey('k1', long)).toBe(`k1.${hash('sha256', long, 'base64url')}`);
  });

  it('remembers the digest of an operation-sized body, not of one with large variables', () => {
    const hits = new ResponseCacheHits(new ResponseCacheStore(1024 * 1024));
    const hashed = jest.spyOn(crypto, 'hash');
    try {
      const small = JSON.stringify({ query: `{ a } # ${'x'.repeat(2_000)}` });
      hits.requestKey('k1', small);
      hits.requestKey('k1', small);
      expect(hashed).toHaveBeenCalledTimes(1);
      // A text kept outlives its request: distinct 60 KB bodies would each go to the old generation.
      const large = JSON.stringify({
        query: 'query($id: ID!) { factory(id: $id) { id } }',
        variables: { id: 'v'.repeat(60_000) },
      });
      hits.requestKey('k1', large);
      hits.requestKey('k1', large);
      expect(hashed).toHaveBeenCalledTimes(3);
    } finally {
      hashed.mockRestore();
    }
  });
});

describe('ResponseCacheStore.stored', () => {
  it('gives the bytes of `{"data":…` as stored, small (a one-byte string) and large (a Buffer), outside Latin-1 too', async () => {
    for (const size of [10, 5_000]) {
      const store = new ResponseCacheStore(1024 * 1024);
      const dataText = JSON.stringify({ name: 'Mo–So 😀', pad: 'x'.repeat(size) });
      await store.set('fqc:k', `{"data":${dataText},"cachePolicy":{"maxAge":60,"scope":"PRIVATE"},"cacheTime":1234}`);
      const stored = store.stored('fqc:k');
      expect(stored?.cacheTime).toBe(1234);
      expect(stored?.head.toString('utf8')).toBe(`{"data":${dataText}`);
    }
  });
});
