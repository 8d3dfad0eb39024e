/**
 * Live queries go through the same request pipeline as every operation: the
 * subscription limits per key and per connection, the cost limit before the first
 * execution, MAX_RESPONSE_BYTES on every result, public-site mode (a keyless trusted
 * document made live), and LIVE_QUERY_THROTTLE_MS between results. A write through the
 * gateway reaches the live queries of its key. No sleeps: fake timers move the throttle.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as WsClient } from 'graphql-ws';
import type { GatewayConfig } from '../../src/config';
import { UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller } from '../../src/economy';
import { RE_EXECUTION_DEADLINE_MS } from '../../src/subscriptions/live-queries';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack, turn, until, useFakeTimersWithRealIo } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from './clients';
import type { Received } from './clients';

const COUNTER = `query Counter($id: ID!) @live { factory(id: $id) { counter { items { item price } } } }`;
const NO_CACHE_READ = 'query($id: ID!) { factory(id: $id) { counter { items { item } } } }';

function priceOf(result: Received, item: string): number | undefined {
  const factory = result.data?.factory as { counter: { items: Array<{ item: string; price: number }> } } | null;
  return factory?.counter.items.find((entry) => entry.item === item)?.price;
}

describe('live queries: limits, cost, size, public site, throttle, writes', () => {
  let stack: HttpStack;
  let ws: WsClient;

  async function start(config: Partial<GatewayConfig> = {}): Promise<void> {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0, ...config } });
    ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  }

  afterEach(async () => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    await ws.dispose();
    await stack.close();
  });

  it('counts live queries against the subscription limit per connection, and frees the place when one ends', async () => {
    await start({ subscriptionsMaxPerConnection: 1 });
    const first = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    expect((await first.next()).errors).toBeUndefined();
    const second = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const refusal = await second.next();
    expect(refusal.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'SUBSCRIPTIONS_MAX_PER_CONNECTION',
    });
    first.stop();
    await until(() => stack.gateway.subscriptions.liveQueries.open === 0, 'the first live query to end');
    const third = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    expect((await third.next()).errors).toBeUndefined();
    third.stop();
  });

  it('counts distinct live queries against the subscription limit per key, across connections (an identical one shares the place)', async () => {
    await start({ subscriptionsMaxPerKey: 1 });
    const other = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
    const first = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await first.next();
    const second = collect((sink) =>
      other.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.carDealer } }, sink),
    );
    expect((await second.next()).errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'SUBSCRIPTIONS_MAX_PER_KEY',
    });
    const identical = collect((sink) => other.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    expect((await identical.next()).errors).toBeUndefined();
    first.stop();
    identical.stop();
    await other.dispose();
  });

  it("checks the cost like a query's before the first execution: nothing is sent upstream", async () => {
    await start({ maxUpstreamRequests: 1 });
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const ended = (await live.ended) as Array<{ extensions?: { code?: string } }>;
    expect(ended[0]?.extensions?.code).toBe('QUERY_TOO_EXPENSIVE');
    expect(stack.simulator.countRequests()).toBe(0);
  });

  it('applies MAX_RESPONSE_BYTES to each live result', async () => {
    await start({ maxResponseBytes: 200 });
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const first = await live.next();
    expect(first.data ?? null).toBeNull();
    expect(first.errors?.[0]?.extensions).toMatchObject({ maxResponseBytes: 200 });
    live.stop();
  });

  it('in public-site mode makes a keyless trusted document live with the server key, and refuses any other', async () => {
    const document = COUNTER;
    const hash = createHash('sha256').update(document).digest('hex');
    const folder = mkdtempSync(join(tmpdir(), 'statev-live-'));
    const manifest = join(folder, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ [hash]: document }));
    await start({ serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: manifest });
    const keyless = wsClient(stack.endpoint, null);
    const trusted = collect((sink) =>
      keyless.subscribe(
        {
          query: '',
          extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
          variables: { id: FIXTURE_IDS.shop },
        },
        sink,
      ),
    );
    expect((await trusted.next()).errors).toBeUndefined();
    expect(stack.simulator.countRequests({ keyLabel: 'premium' })).toBeGreaterThan(0);
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 6.5 });
    await stack.executeText(NO_CACHE_READ, { id: FIXTURE_IDS.shop }, { headers: { 'cache-control': 'no-cache' } });
    expect(priceOf(await trusted.next(), 'Wasser')).toBe(6.5);
    trusted.stop();

    const arbitrary = collect((sink) =>
      keyless.subscribe({ query: COUNTER.replace('price', 'amount'), variables: { id: FIXTURE_IDS.shop } }, sink),
    );
    expect(((await arbitrary.ended) as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code).toBe(
      'FORBIDDEN_DOCUMENT',
    );
    await keyless.dispose();
  });

  it('sends at most one result per LIVE_QUERY_THROTTLE_MS: changes within it arrive together', async () => {
    await start({ liveQueryThrottleMs: 1000 });
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await live.next();
    useFakeTimersWithRealIo(Date.now());
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 1.25 });
    await stack.executeText(NO_CACHE_READ, { id: FIXTURE_IDS.shop }, { headers: { 'cache-control': 'no-cache' } });
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 2.5 });
    await stack.executeText(NO_CACHE_READ, { id: FIXTURE_IDS.shop }, { headers: { 'cache-control': 'no-cache' } });
    for (let i = 0; i < 20; i += 1) await turn();
    // Within the throttle: nothing sent yet.
    expect(live.buffered).toBe(0);
    jest.advanceTimersByTime(1000);
    expect(priceOf(await live.next(), 'Wasser')).toBe(2.5);
    for (let i = 0; i < 20; i += 1) await turn();
    expect(live.buffered).toBe(0);
    live.stop();
  });

  it('sends the throttled update even when its timer fires a moment early by the wall clock', async () => {
    await start({ liveQueryThrottleMs: 1000 });
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await live.next();
    useFakeTimersWithRealIo(Date.now());
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 3.75 });
    await stack.executeText(NO_CACHE_READ, { id: FIXTURE_IDS.shop }, { headers: { 'cache-control': 'no-cache' } });
    for (let i = 0; i < 20; i += 1) await turn();
    expect(live.buffered).toBe(0);
    // Timers run on a monotonic clock, Date.now() on the wall clock: on a busy process the
    // throttle's timer can fire when Date.now() says the window has not quite passed.
    jest.setSystemTime(Date.now() - 5);
    jest.advanceTimersByTime(1000);
    expect(priceOf(await live.next(), 'Wasser')).toBe(3.75);
    live.stop();
  });

  it('gives each re-execution a deadline: one past it sends nothing, and the query lives on', async () => {
    await start();
    const live = collect((sink) => ws.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    await live.next();
    useFakeTimersWithRealIo(Date.now());
    // The next cache-only read never answers.
    const get = UpstreamEconomy.prototype.get;
    let stalled = 0;
    // Cache-only reads go to `get` (not answered at once from the cache), where the first one stalls.
    const freshHit = UpstreamEconomy.prototype.freshHit;
    const hits = jest.spyOn(UpstreamEconomy.prototype, 'freshHit').mockImplementation(function (
      this: UpstreamEconomy,
      caller: EconomyCaller,
      ...rest
    ) {
      return caller.cacheOnly ? undefined : freshHit.call(this, caller, ...rest);
    });
    const spy = jest.spyOn(UpstreamEconomy.prototype, 'get').mockImplementation(function (
      this: UpstreamEconomy,
      caller: EconomyCaller,
      ...rest
    ) {
      if (caller.cacheOnly && stalled === 0) {
        stalled += 1;
        return new Promise<never>(() => undefined);
      }
      return get.call(this, caller, ...rest);
    });
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 4.5 });
    await stack.executeText(NO_CACHE_READ, { id: FIXTURE_IDS.shop }, { headers: { 'cache-control': 'no-cache' } });
    await until(() => stalled === 1, 'the stalled re-run');
    jest.advanceTimersByTime(RE_EXECUTION_DEADLINE_MS);
    for (let i = 0; i < 20; i += 1) await turn();
    expect(live.buffered).toBe(0);
    spy.mockRestore();
    hits.mockRestore();
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 5.5 });
    await stack.executeText(NO_CACHE_READ, { id: FIXTURE_IDS.shop }, { headers: { 'cache-control': 'no-cache' } });
    expect(priceOf(await live.next(), 'Wasser')).toBe(5.5);
    live.stop();
  });

  it('a write through the gateway reaches the live queries of its key', async () => {
    await start();
    const OPTIONS = `query Options($id: ID!) @live { factory(id: $id) { options { slot title data } } }`;
    const live = collect((sink) => ws.subscribe({ query: OPTIONS, variables: { id: FIXTURE_IDS.shop } }, sink));
    expect((await live.next()).errors).toBeUndefined();
    const written = await stack.executeText(
      'mutation($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { message } }',
      {
        input: {
          factoryId: FIXTURE_IDS.shop,
          slot: 1,
          title: 'Opening hours',
          data: 'live 24/7',
          apiSecret: DEMO_KEYS.premium.secret,
        },
      },
    );
    expect(written.errors).toBeUndefined();
    const next = await live.next();
    const options = (next.data?.factory as { options: Array<{ slot: number; title: string; data: string }> }).options;
    expect(options.find((option) => option.slot === 1)).toMatchObject({ title: 'Opening hours', data: 'live 24/7' });
    live.stop();
  });
});
