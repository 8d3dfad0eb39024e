import { print } from 'graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import {
  CompanyPageDocument,
  FactoryOptionsDocument,
  UpdateFactoryOptionMessageOnlyDocument,
} from '../generated/graphql';
import { useStack } from '../support';
import type { Result } from '../support';

// The per-key whole-operation response cache (@apollo/server-plugin-response-cache), on top
// of the upstream cache: a repeated operation runs no resolver at all.
const stack = useStack({ http: true, config: { responseCacheEnabled: true } });
beforeEach(() => {
  stack.simulator.reset();
});

const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };
const responseCache = (body: Result<unknown>): unknown => body.extensions?.responseCache;
const upstream = (body: Result<unknown>): unknown => body.extensions?.upstream;

it('answers a repeated operation of the same key from the response cache, still reporting its upstream cost', async () => {
  const key = 'sim-key-9001';
  const first = await stack.post(page, { key });
  expect(first.body.errors).toBeUndefined();
  expect(responseCache(first.body)).toBeUndefined();
  const sent = stack.simulator.requests.length;
  expect(sent).toBeGreaterThan(0);

  const second = await stack.post(page, { key });
  expect(second.body.data).toEqual(first.body.data);
  expect(responseCache(second.body)).toEqual({ hit: true, ageSeconds: expect.any(Number) as unknown });
  expect(upstream(second.body)).toEqual({
    requests: 0,
    cacheHits: 0,
    coalesced: 0,
    stale: 0,
    maxAgeSeconds: (responseCache(second.body) as { ageSeconds: number }).ageSeconds,
  });
  expect(stack.simulator.requests).toHaveLength(sent);
  // Written around the data text the cache stored: the same text as serializing the answer.
  expect(second.text).toBe(`${JSON.stringify({ data: second.body.data, extensions: second.body.extensions })}\n`);
  expect(second.text).toContain(JSON.stringify(first.body.data));
});

it("gives executeOperation a hit's data as objects (only HTTP writes it from the stored text)", async () => {
  const key = 'sim-key-9004';
  const first = await stack.execute(CompanyPageDocument, { id: FIXTURE_IDS.shop }, { key });
  expect(first.errors).toBeUndefined();
  const second = await stack.execute(CompanyPageDocument, { id: FIXTURE_IDS.shop }, { key });
  expect(second.extensions?.responseCache).toEqual({ hit: true, ageSeconds: expect.any(Number) as unknown });
  expect(second.data).toEqual(first.data);
  // And a hit over HTTP after it: the same data, written from the stored text.
  const overHttp = await stack.post(page, { key });
  expect(overHttp.body.extensions?.responseCache).toEqual({ hit: true, ageSeconds: expect.any(Number) as unknown });
  expect(overHttp.body.data).toEqual(first.data);
});

it("never answers one key from another key's cached response", async () => {
  await stack.post(page, { key: 'sim-key-9002' });
  const other = await stack.post(page, { key: 'sim-key-9003' });
  expect(responseCache(other.body)).toBeUndefined();
  // The other character does not own the shop: its own answer, not the cached one.
  const foreign = await stack.post(page, { key: DEMO_KEYS.other.key });
  expect(responseCache(foreign.body)).toBeUndefined();
  expect(foreign.body.data).toEqual({ factory: null });
});

it('is bypassed by Cache-Control: no-cache', async () => {
  const key = 'sim-key-9004';
  await stack.post(page, { key });
  const before = stack.simulator.requests.length;
  const fresh = await stack.post(page, { key, headers: { 'cache-control': 'no-cache' } });
  expect(responseCache(fresh.body)).toBeUndefined();
  expect(stack.simulator.requests.length).toBeGreaterThan(before);
});

it('is invalidated for the key by its successful updateFactoryOption', async () => {
  const key = DEMO_KEYS.premium.key;
  const options = { query: print(FactoryOptionsDocument), variables: { id: FIXTURE_IDS.shop, slot: 3 } };
  const before = await stack.post(options, { key });
  expect(before.body.data).toMatchObject({ factory: { option: null } });
  expect(responseCache((await stack.post(options, { key })).body)).toMatchObject({ hit: true });

  const write = await stack.post(
    {
      query: print(UpdateFactoryOptionMessageOnlyDocument),
      variables: { input: { factoryId: FIXTURE_IDS.shop, slot: 3, title: 'Neu', data: 'frisch' } },
    },
    { key, headers: { 'x-api-secret': DEMO_KEYS.premium.secret } },
  );
  expect(write.body.errors).toBeUndefined();

  const after = await stack.post(options, { key });
  expect(responseCache(after.body)).toBeUndefined();
  expect(after.body.data).toMatchObject({ factory: { option: { slot: 3, title: 'Neu', data: 'frisch' } } });
});

it('does not store responses with errors', async () => {
  const counter = { query: '{ factories { id counter { totalWeight } } }' };
  const first = await stack.post(counter, { key: DEMO_KEYS.basic.key }); // no factory.counter scope
  expect(first.body.errors?.length).toBeGreaterThan(0);
  const second = await stack.post(counter, { key: DEMO_KEYS.basic.key });
  expect(responseCache(second.body)).toBeUndefined();
});

describe('with a small bound', () => {
  // 16 KiB: room for many pages, but no entry may be over 512 bytes.
  const small = useStack({ http: true, config: { responseCacheEnabled: true, responseCacheMaxBytes: 16_384 } });

  it('does not store a response over a 32nd of RESPONSE_CACHE_MAX_BYTES, and answers it again from the upstream cache', async () => {
    const key = 'sim-key-9010';
    const first = await small.post(page, { key });
    expect(first.body.errors).toBeUndefined();
    // Over 512 bytes (the page is about 800), far under the bound.
    expect(first.text.length).toBeGreaterThan(512);
    const second = await small.post(page, { key });
    expect(responseCache(second.body)).toBeUndefined();
    expect(second.body.data).toEqual(first.body.data);
    expect((upstream(second.body) as { cacheHits: number }).cacheHits).toBeGreaterThan(0);
  });
});

describe('with a failed list item', () => {
  const mocked = useStack({ http: true, mock: true, config: { responseCacheEnabled: true } });
  it('does not store a response whose list misses an item (the item error is added after the cache plugin)', async () => {
    const slots = {
      query: 'query Slots($id: ID!) { factory(id: $id) { options { slot } } }',
      variables: { id: FIXTURE_IDS.shop },
    };
    mocked
      .upstream()
      .intercept({ path: `/req/factory/options/${FIXTURE_IDS.shop}/2`, method: 'GET' })
      .reply(500, { statusCode: 500, message: 'boom' }, { headers: { 'content-type': 'application/json' } });
    const key = 'sim-key-9101';
    const first = await mocked.post(slots, { key });
    expect(first.body.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['factory', 'options', 1], 'UPSTREAM_ERROR'],
    ]);
    // Stored, the cached data alone would answer without slot 2 and without its error.
    const second = await mocked.post(slots, { key });
    expect(responseCache(second.body)).toBeUndefined();
    expect(second.body).toMatchObject({ data: { factory: { options: [{ slot: 1 }, { slot: 2 }] } } });
    expect(second.body.errors).toBeUndefined();
  });
});
