/**
 * Hostile upstream bodies through the whole gateway: JSON nested past the limit
 * (`MAX_UPSTREAM_JSON_DEPTH`), a body over `UPSTREAM_MAX_BODY_BYTES` or with more arrays
 * and objects than it allows (`BYTES_PER_CONTAINER`), and an HTML error page; a big list
 * asked for by five aliases is fetched and mapped once, and answered over HTTP with
 * `JSON.stringify`'s text though executed and serialized in slices. Each is an `UPSTREAM_ERROR` naming the endpoint (never `INTERNAL_SERVER_ERROR`),
 * with a log line of the whole cause; a client sees at most 200 characters of an upstream
 * text, markup stripped. The nesting scanner itself is checked against `JSON.parse` on
 * random JSON cut into random chunks.
 */
import fc from 'fast-check';
import * as factoryMappers from '../../src/domains/factories/factory.mapper';
import { DEMO_KEYS } from '../../src/simulator';
import { BYTES_PER_CONTAINER, JsonNesting, MAX_UPSTREAM_JSON_DEPTH } from '../../src/upstream/json-nesting';
import { codes, LineCollector, startStack } from '../support';
import type { Stack } from '../support';

const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };
const FACTORIES = '{ factories { id } }';

/** `depth` arrays nested in each other, e.g. 2 → `[[]]`. */
function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('hostile upstream bodies through the gateway', () => {
  let stack: Stack;
  let logs: LineCollector;

  beforeEach(async () => {
    logs = new LineCollector();
    stack = await startStack({ mock: true, logDestination: logs, config: { logLevel: 'info' } });
  });

  afterEach(async () => {
    stack.mockAgent?.assertNoPendingInterceptors();
    await stack.close();
  });

  function failureLines(): Array<Record<string, unknown>> {
    return logs.records().filter((record) => record.msg === 'upstream request failed');
  }

  it('200,000 nested arrays (400 KB) are an UPSTREAM_ERROR naming the endpoint, with a warning that says why; another key is answered', async () => {
    stack
      .upstream()
      .intercept({
        path: '/req/factory/list/',
        method: 'GET',
        headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      })
      .reply(200, nested(200_000), JSON_HEADERS);
    const other = stack.executeText(FACTORIES, {}, { key: DEMO_KEYS.other.key });
    const result = await stack.executeText(FACTORIES);

    expect(codes(result)).toEqual(['UPSTREAM_ERROR']);
    expect(result.errors?.[0]?.extensions?.upstream).toEqual({
      status: 200,
      endpoint: 'GET /factory/list/',
      message: `JSON nested deeper than ${MAX_UPSTREAM_JSON_DEPTH} levels; abandoned`,
    });
    expect(result.data).toEqual({ factories: null });
    expect(failureLines()).toEqual([
      expect.objectContaining({
        level: 40,
        code: 'UPSTREAM_ERROR',
        endpoint: 'GET /factory/list/',
        status: 200,
        detail: expect.stringContaining(`(at byte ${MAX_UPSTREAM_JSON_DEPTH})`),
      }),
    ]);
    expect((await other).errors).toBeUndefined();
  });

  it('accepts nesting up to the limit, and brackets inside strings do not count', async () => {
    const atLimit = JSON.stringify([
      { id: 'f1', name: '[[[[{{{{'.repeat(100), deep: JSON.parse(nested(MAX_UPSTREAM_JSON_DEPTH - 2)) as unknown },
    ]);
    stack.upstream().intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, atLimit, JSON_HEADERS);
    const result = await stack.executeText(FACTORIES);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ factories: [{ id: 'f1' }] });
  });

  it('a body over UPSTREAM_MAX_BODY_BYTES is an UPSTREAM_ERROR naming the endpoint, with a warning', async () => {
    await stack.close();
    stack = await startStack({
      mock: true,
      logDestination: logs,
      config: { logLevel: 'info', upstreamMaxBodyBytes: 64 * 1024 },
    });
    const big = JSON.stringify([{ id: 'f1', name: 'x'.repeat(100 * 1024) }]);
    stack.upstream().intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, big, JSON_HEADERS);
    const result = await stack.executeText(FACTORIES);
    expect(codes(result)).toEqual(['UPSTREAM_ERROR']);
    expect(result.errors?.[0]?.extensions?.upstream).toMatchObject({
      endpoint: 'GET /factory/list/',
      message: expect.stringContaining('larger than the limit of 65536 bytes'),
    });
    expect(failureLines()).toEqual([
      expect.objectContaining({ level: 40, code: 'UPSTREAM_ERROR', endpoint: 'GET /factory/list/' }),
    ]);
  });

  it('a body with more arrays and objects than UPSTREAM_MAX_BODY_BYTES / 20 is an UPSTREAM_ERROR, abandoned before parsing', async () => {
    await stack.close();
    const limit = 64 * 1024;
    stack = await startStack({
      mock: true,
      logDestination: logs,
      config: { logLevel: 'info', upstreamMaxBodyBytes: limit },
    });
    const most = Math.floor(limit / BYTES_PER_CONTAINER);
    // Under the byte limit (2 bytes per array) and the depth limit, over the count.
    const dense = `[${Array.from({ length: most }, () => '[]').join(',')}]`;
    expect(dense.length).toBeLessThan(limit);
    stack.upstream().intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, dense, JSON_HEADERS);
    const result = await stack.executeText(FACTORIES);
    expect(codes(result)).toEqual(['UPSTREAM_ERROR']);
    expect(result.errors?.[0]?.extensions?.upstream).toMatchObject({
      endpoint: 'GET /factory/list/',
      message: `JSON with more than ${most} arrays and objects; abandoned`,
    });
    // The bracket past the count: the outer array and `most` inner ones came before it.
    expect(failureLines()).toEqual([
      expect.objectContaining({
        code: 'UPSTREAM_ERROR',
        detail: expect.stringContaining(`(at byte ${1 + (most - 1) * 3})`),
      }),
    ]);
  });

  it('accepts a list of records at the count of arrays and objects the body limit allows', async () => {
    await stack.close();
    const limit = 64 * 1024;
    stack = await startStack({
      mock: true,
      logDestination: logs,
      config: { logLevel: 'info', upstreamMaxBodyBytes: limit },
    });
    const most = Math.floor(limit / BYTES_PER_CONTAINER);
    const list = JSON.stringify(Array.from({ length: most - 1 }, (_, i) => ({ id: `${i}` })));
    stack.upstream().intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, list, JSON_HEADERS);
    const result = await stack.executeText(FACTORIES);
    expect(result.errors).toBeUndefined();
    expect((result.data as { factories: unknown[] }).factories).toHaveLength(most - 1);
  });

  it('fetches and maps a big list once for five aliases of it', async () => {
    const count = 3_000;
    const list = JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: `c${i}`, name: `Company ${i}` })));
    stack.upstream().intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, list, JSON_HEADERS);
    const mapped = jest.spyOn(factoryMappers, 'mapFactoryList');
    try {
      const result = await stack.executeText(
        `{ ${[1, 2, 3, 4, 5].map((n) => `a${n}: factories { id name }`).join(' ')} }`,
      );
      expect(result.errors).toBeUndefined();
      for (const n of [1, 2, 3, 4, 5]) expect((result.data as Record<string, unknown[]>)[`a${n}`]).toHaveLength(count);
      expect(mapped).toHaveBeenCalledTimes(1);
      expect(stack.upstreamCalls().filter((call) => call.path === '/req/factory/list/')).toHaveLength(1);
    } finally {
      mapped.mockRestore();
    }
  });

  it("over HTTP, answers a big list under five aliases (executed and serialized in slices) with JSON.stringify's text, and caches it", async () => {
    await stack.close();
    stack = await startStack({
      mock: true,
      http: true,
      logDestination: logs,
      config: { logLevel: 'info', responseCacheEnabled: true },
    });
    const count = 3_000;
    const companies = Array.from({ length: count }, (_, i) => ({ id: `c${i}`, name: `Company "${i}" é` }));
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(200, JSON.stringify(companies), JSON_HEADERS);
    const query = `{ ${[1, 2, 3, 4, 5].map((n) => `a${n}: factories { id name }`).join(' ')} }`;
    const answer = await stack.post({ query });
    expect(answer.status).toBe(200);
    const parsed = JSON.parse(answer.text) as { data: Record<string, unknown>; extensions: unknown };
    expect(Object.keys(parsed)).toEqual(['data', 'extensions']);
    expect(answer.text).toBe(`${JSON.stringify(parsed)}\n`);
    for (const n of [1, 2, 3, 4, 5]) expect(parsed.data[`a${n}`]).toEqual(companies);
    // Stored whole by the response cache (measured before it decided): the same data again, no upstream request.
    const again = await stack.post({ query });
    const cached = JSON.parse(again.text) as { data: unknown; extensions: { responseCache?: { hit: boolean } } };
    expect(cached.extensions.responseCache?.hit).toBe(true);
    expect(JSON.stringify(cached.data)).toBe(JSON.stringify(parsed.data));
    expect(stack.upstreamCalls().filter((call) => call.path === '/req/factory/list/')).toHaveLength(1);
  });

  it("over HTTP, does not cache a big list's answer over the entry bound, though its text is measured turns later", async () => {
    await stack.close();
    // Entries of at most 100 KB (a thirty-second of the bound); the answer is about 290 KB.
    stack = await startStack({
      mock: true,
      http: true,
      logDestination: logs,
      config: { logLevel: 'info', responseCacheEnabled: true, responseCacheMaxBytes: 32 * 100 * 1024 },
    });
    const list = JSON.stringify(Array.from({ length: 3_000 }, (_, i) => ({ id: `c${i}`, name: `Company ${i}` })));
    stack.upstream().intercept({ path: '/req/factory/list/', method: 'GET' }).reply(200, list, JSON_HEADERS);
    const query = `{ ${[1, 2, 3, 4, 5].map((n) => `a${n}: factories { id name }`).join(' ')} }`;
    const first = await stack.post({ query });
    expect(first.text.length).toBeGreaterThan(100 * 1024);
    const again = JSON.parse((await stack.post({ query })).text) as { extensions: { responseCache?: unknown } };
    // Executed again (over the upstream cache), not a whole response from the response cache.
    expect(again.extensions.responseCache).toBeUndefined();
  });

  it('an HTML error page reaches the client as at most 200 characters of text without markup, and whole only in the log', async () => {
    const page =
      '<!DOCTYPE html><html><head><title>500 Internal Server Error</title><style>body { font: 12px sans-serif; }</style>' +
      '<script>var token = "never shown";</script></head><body><!-- build 4711 --><h1>Internal Server Error</h1>' +
      `<p>${'The server met an unexpected condition. '.repeat(20)}</p><p>tail-marker</p></body></html>`;
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(500, page, { headers: { 'content-type': 'text/html' } });
    const result = await stack.executeText(FACTORIES);

    expect(codes(result)).toEqual(['UPSTREAM_ERROR']);
    const shown = String((result.errors?.[0]?.extensions?.upstream as { message: string }).message);
    expect(shown.length).toBeLessThanOrEqual(200);
    expect(shown).toMatch(/^500 Internal Server Error Internal Server Error The server met/);
    for (const hidden of ['<', '>', 'font:', 'never shown', 'build 4711', 'tail-marker'])
      expect(JSON.stringify(result)).not.toContain(hidden);
    expect(failureLines()).toEqual([
      expect.objectContaining({ level: 40, code: 'UPSTREAM_ERROR', status: 500, detail: `HTTP 500: ${page}` }),
    ]);
  });

  it('never logs or shows the key, also when the upstream echoes it backwards', async () => {
    const reversed = [...DEMO_KEYS.premium.key].reverse().join('');
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(
        400,
        JSON.stringify({ statusCode: 400, message: `token ${reversed} unknown`, error: 'Bad Request' }),
        JSON_HEADERS,
      );
    const result = await stack.executeText(FACTORIES);
    expect(codes(result)).toEqual(['UPSTREAM_BAD_REQUEST']);
    expect(failureLines()).toEqual([expect.objectContaining({ detail: 'HTTP 400: token [redacted] unknown' })]);
    for (const text of [JSON.stringify(result), ...logs.lines]) {
      expect(text).not.toContain(reversed);
      expect(text).not.toContain(DEMO_KEYS.premium.key);
    }
  });

  it('logs a refusal of the key at info level, with the upstream text', async () => {
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(
        403,
        JSON.stringify({ statusCode: 403, message: 'Missing scope factory.read', error: 'Forbidden' }),
        JSON_HEADERS,
      );
    const result = await stack.executeText(FACTORIES);
    expect(codes(result)).toEqual(['FORBIDDEN']);
    expect(failureLines()).toEqual([
      expect.objectContaining({
        level: 30,
        code: 'FORBIDDEN',
        status: 403,
        detail: 'HTTP 403: Missing scope factory.read',
      }),
    ]);
  });
});

/** The deepest nesting of a parsed JSON value (a scalar is 0, `[]` is 1). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('JsonNesting', () => {
  it('agrees with JSON.parse on the depth of any JSON text, however it is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.integer({ min: 0, max: 9 }),
        (value, cuts, max) => {
          const bytes = Buffer.from(JSON.stringify(value), 'utf8');
          const nesting = new JsonNesting(max);
          const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          let within = true;
          for (const point of [...points, bytes.length]) {
            within = nesting.feed(bytes.subarray(from, point)) && within;
            from = point;
          }
          expect(within).toBe(depthOf(value) <= max);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('counts the arrays and objects of a text, not the brackets inside its strings, and stops past the bound', () => {
    const nesting = new JsonNesting(MAX_UPSTREAM_JSON_DEPTH, 3);
    expect(nesting.feed(Buffer.from('[{"a":"[[{{"},'))).toBe(true);
    expect(nesting.feed(Buffer.from('[]'))).toBe(true);
    expect(nesting.feed(Buffer.from(',{}]'))).toBe(false);
    expect(nesting.exceeded).toBe('containers');
    expect(nesting.exceededAt).toBe('[{"a":"[[{{"},[],'.length);
    const deep = new JsonNesting(2, 3);
    expect(deep.feed(Buffer.from('[[['))).toBe(false);
    expect(deep.exceeded).toBe('depth');
  });

  it('counts escaped quotes and backslashes inside strings as text', () => {
    const nesting = new JsonNesting(1);
    expect(nesting.feed(Buffer.from(JSON.stringify(['a\\"[[[', '\\', '"{{'])))).toBe(true);
    expect(nesting.feed(Buffer.from('[[]]'))).toBe(false);
    expect(nesting.exceededAt).toBe(JSON.stringify(['a\\"[[[', '\\', '"{{']).length + 1);
  });
});
