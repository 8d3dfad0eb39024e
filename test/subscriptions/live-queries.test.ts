/**
 * Live queries (`query @live`) end to end: the simulator over real HTTP as the upstream,
 * the gateway on port 0, real graphql-ws and graphql-sse clients. A new result follows
 * when an upstream resource the query read got new data for the caller's key; re-runs
 * read the cache only. No sleeps: each step waits for a message or an event.
 */
import { applyJSONDiffPatch } from '@n1ru4l/graphql-live-query-patch-jsondiffpatch';
import { createClient as createSseClient } from 'graphql-sse';
import type { Client as WsClient } from 'graphql-ws';
import { UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller } from '../../src/economy';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { once } from 'node:events';
import { ManualClock, startStack, until } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from './clients';
import type { Received } from './clients';

const COUNTER = `query Counter($id: ID!) @live { factory(id: $id) { name counter { items { item price amount } } } }`;

type CounterItems = Array<{ item: string; price: number; amount: number }>;

function itemsOf(result: Received): CounterItems {
  const factory = result.data?.factory as { counter: { items: CounterItems } } | null;
  return factory?.counter.items ?? [];
}

/** Every economy GET, with who asked and whether it read the cache only. */
function recordGets(): Array<{ keyId: string; cacheOnly: boolean; noCache: boolean }> {
  const calls: Array<{ keyId: string; cacheOnly: boolean; noCache: boolean }> = [];
  const get = UpstreamEconomy.prototype.get;
  jest.spyOn(UpstreamEconomy.prototype, 'get').mockImplementation(function (
    this: UpstreamEconomy,
    caller: EconomyCaller,
    ...rest
  ) {
    calls.push({ keyId: caller.keyId, cacheOnly: caller.cacheOnly === true, noCache: caller.noCache });
    return get.call(this, caller, ...rest);
  });
  // A read answered at once from the cache (every read of a re-run whose data is cached).
  const freshHit = UpstreamEconomy.prototype.freshHit;
  jest.spyOn(UpstreamEconomy.prototype, 'freshHit').mockImplementation(function (
    this: UpstreamEconomy,
    caller: EconomyCaller,
    ...rest
  ) {
    const hit = freshHit.call(this, caller, ...rest);
    if (hit) calls.push({ keyId: caller.keyId, cacheOnly: caller.cacheOnly === true, noCache: caller.noCache });
    return hit;
  });
  return calls;
}

describe('live queries over WebSocket and SSE', () => {
  let stack: HttpStack;
  let ws: WsClient;

  beforeEach(async () => {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0 } });
    ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await ws.dispose();
    await stack.close();
  });

  it('answers first what the plain query answers, then a new result when a no-cache read of the same key stores new data', async () => {
    const plain = await stack.executeText(COUNTER.replace(' @live', ''), { id: FIXTURE_IDS.shop });
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const first = await live.next();
    expect(first).toEqual({
      data: plain.data,
      extensions: { upstream: expect.objectContaining({ requests: 0, cacheHits: 2 }) as unknown },
    });

    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 9.5 });
    // Another operation of the same key reads with no-cache: its answer is stored and the live query re-runs.
    const fresh = await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item price } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(fresh.errors).toBeUndefined();
    const afterRead = stack.simulator.requests.length;
    const second = await live.next();
    expect(itemsOf(second).find((item) => item.item === 'Wasser')?.price).toBe(9.5);
    // Only the no-cache read went upstream: the re-run read the cache.
    expect(stack.simulator.requests.length).toBe(afterRead);
    live.stop();
    await until(() => stack.gateway.subscriptions.liveQueries.open === 0, 'the live query to end');
    expect(stack.gateway.subscriptions.liveQueries.watchedCount).toBe(0);
  });

  it('over SSE too', async () => {
    const sse = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      retryAttempts: 0,
    });
    const live = collect((sink) => sse.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const first = await live.next();
    expect(first.errors).toBeUndefined();
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 7.25 });
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(itemsOf(await live.next()).find((item) => item.item === 'Wasser')?.price).toBe(7.25);
    live.stop();
    sse.dispose();
  });

  it('re-runs over cached data answer every read at once, as a plain execution does (no promise per read)', async () => {
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await live.next();
    const gets: EconomyCaller[] = [];
    const get = UpstreamEconomy.prototype.get;
    jest.spyOn(UpstreamEconomy.prototype, 'get').mockImplementation(function (
      this: UpstreamEconomy,
      caller: EconomyCaller,
      ...rest
    ) {
      gets.push(caller);
      return get.call(this, caller, ...rest);
    });
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 6.5 });
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(itemsOf(await live.next()).find((item) => item.item === 'Wasser')?.price).toBe(6.5);
    // Only the no-cache read went through the economy's promise path; the re-run read the cache at once.
    expect(gets.filter((caller) => caller.cacheOnly)).toEqual([]);
    expect(gets.filter((caller) => caller.noCache).length).toBeGreaterThan(0);
    live.stop();
  });

  it('sends no result when the new data gives the same result', async () => {
    const calls = recordGets();
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await live.next();
    // The same data stored again: the query re-runs (from the cache) but sends nothing.
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    await until(() => calls.some((call) => call.cacheOnly), 'the re-run');
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 3.5 });
    await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    // The next message is the changed one: the identical re-run before it was not sent.
    expect(itemsOf(await live.next()).find((item) => item.item === 'Wasser')?.price).toBe(3.5);
    live.stop();
  });

  it('a change under one key never re-runs or reaches the live query of another key watching the same company id', async () => {
    const calls = recordGets();
    const other = wsClient(stack.endpoint, DEMO_KEYS.other.key);
    const mine = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const theirs = collect((sink) => other.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await mine.next();
    await theirs.next();
    const otherKeyIds = new Set(calls.filter((call) => !call.cacheOnly).map((call) => call.keyId));
    expect(otherKeyIds.size).toBe(2);

    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 4.75 });
    const premiumRead = await stack.executeText(
      'query($id: ID!) { factory(id: $id) { counter { items { item } } } }',
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    expect(premiumRead.errors).toBeUndefined();
    expect(itemsOf(await mine.next()).find((item) => item.item === 'Wasser')?.price).toBe(4.75);
    const premiumKeyId = calls.find((call) => call.noCache)?.keyId;
    const reruns = calls.filter((call) => call.cacheOnly);
    expect(reruns.length).toBeGreaterThan(0);
    expect(reruns.every((call) => call.keyId === premiumKeyId)).toBe(true);
    expect(theirs.buffered).toBe(0);
    mine.stop();
    theirs.stop();
    await other.dispose();
  });

  it('sends JSON patches (jsondiffpatch) to a client that asks for them: whole first, then patches that give the whole result', async () => {
    const live = collect((sink) =>
      ws.subscribe(
        { query: COUNTER, variables: { id: FIXTURE_IDS.shop }, extensions: { livePatch: 'jsondiffpatch' } },
        sink,
      ),
    );
    const first = (await live.next()) as Received & { revision?: number };
    expect(first.revision).toBe(1);
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 12.5 });
    const whole = await stack.executeText(
      COUNTER.replace(' @live', ''),
      { id: FIXTURE_IDS.shop },
      { headers: { 'cache-control': 'no-cache' } },
    );
    const second = (await live.next()) as Received & { revision?: number; patch?: unknown };
    expect(second).toMatchObject({ revision: 2, patch: expect.anything() });
    expect(second.data).toBeUndefined();
    expect(applyJSONDiffPatch(structuredClone(first.data ?? {}), second.patch as never)).toEqual(whole.data);
    live.stop();
  });

  it('refuses @live over plain HTTP with BAD_REQUEST', async () => {
    const answer = await stack.post(
      { query: COUNTER, variables: { id: FIXTURE_IDS.shop } },
      { headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` } },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });
});

describe('live queries and subscription polls', () => {
  it('a subscription poll of the same key that stores new data re-runs the live query', async () => {
    const clock = new ManualClock();
    const stack = await startStack({
      http: true,
      config: { liveQueryThrottleMs: 0 },
      gateway: { now: clock.now, pollClock: clock },
    });
    const ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
    try {
      const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
      await live.next();
      const polled = once(stack.gateway.subscriptions.hub.activity, 'polled');
      const events = collect((sink) =>
        ws.subscribe(
          {
            query: 'subscription($id: ID!) { counterChanged(factoryId: $id) { changes { item priceAfter } } }',
            variables: { id: FIXTURE_IDS.shop },
          },
          sink,
        ),
      );
      await polled;
      stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 8.75 });
      clock.advance(60_000);
      expect(itemsOf(await live.next()).find((item) => item.item === 'Wasser')?.price).toBe(8.75);
      events.stop();
      live.stop();
    } finally {
      await ws.dispose();
      await stack.close();
    }
  });
});
