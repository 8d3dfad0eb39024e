/**
 * Identical live queries of one key (same document, operation name and variables) share
 * one execution whose results fan out to every subscriber: one execution per change and
 * the upstream requests of one subscriber, however many subscribe. A subscriber leaving
 * never ends the others; the last one leaving releases everything. SUBSCRIPTIONS_MAX_PER_KEY
 * counts distinct live queries; LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS counts subscribers per
 * client address, read from X-Forwarded-For only behind TRUSTED_PROXIES. No sleeps: each
 * step waits for a message or polls a counter with `until`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import type { Client as SseClient } from 'graphql-sse';
import type { Client as WsClient } from 'graphql-ws';
import type { GatewayConfig } from '../../src/config';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller } from '../../src/economy';
import { metricValue, startStack, turn, until, useFakeTimersWithRealIo } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from './clients';
import type { Collected, Received } from './clients';

const COUNTER = `query Counter($id: ID!) @live { factory(id: $id) { name counter { items { item price amount } } } }`;
/** A plain read of the counter that stores the upstream's answer again (a live query's cue to re-run). */
const FRESH_READ = 'query($id: ID!) { factory(id: $id) { counter { items { item } } } }';

function priceOf(result: Received, item: string): number | undefined {
  const factory = result.data?.factory as { counter: { items: Array<{ item: string; price: number }> } } | null;
  return factory?.counter.items.find((entry) => entry.item === item)?.price;
}

/** A live query distinct from every other index's: the same company read under another alias (the data is cached after the first). */
function distinctLive(index: number): string {
  return `query Distinct($id: ID!) @live { n${index}: factory(id: $id) { name } }`;
}

describe('live queries: identical operations of one key share one execution', () => {
  let stack: HttpStack;
  const clients: Array<{ dispose(): unknown }> = [];

  async function start(config: Partial<GatewayConfig> = {}): Promise<void> {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0, ...config } });
  }

  function ws(key: string | null = DEMO_KEYS.premium.key): WsClient {
    const client = wsClient(stack.endpoint, key);
    clients.push(client);
    return client;
  }

  function sse(headers: Record<string, string> = { authorization: `Bearer ${DEMO_KEYS.premium.key}` }): SseClient {
    const client = createSseClient({ url: `${stack.gateway.url}/graphql/stream`, headers, retryAttempts: 0 });
    clients.push(client);
    return client;
  }

  function live(
    client: WsClient | SseClient,
    query = COUNTER,
    variables: Record<string, unknown> = { id: FIXTURE_IDS.shop },
    extensions?: Record<string, unknown>,
  ): Collected {
    return collect((sink) => client.subscribe({ query, variables, ...(extensions ? { extensions } : {}) }, sink));
  }

  /** Changes a counter price upstream and reads it with no-cache under the premium key, so the live queries of that key re-run. */
  async function changePrice(price: number): Promise<void> {
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price });
    const read = await stack.executeText(
      FRESH_READ,
      { id: FIXTURE_IDS.shop },
      { key: DEMO_KEYS.premium.key, headers: { 'cache-control': 'no-cache' } },
    );
    expect(read.errors).toBeUndefined();
  }

  async function metric(name: string, labels: Record<string, string> = {}): Promise<number | null> {
    return metricValue((await stack.get('/metrics')).text, name, labels);
  }

  afterEach(async () => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    for (const client of clients.splice(0)) await client.dispose();
    await stack.close();
  });

  it('runs once per change for N subscribers over both transports, and all of them get each result', async () => {
    await start();
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const first = live(ws());
    const plain = await first.next();
    expect(plain.errors).toBeUndefined();
    const oneVisitor = stack.simulator.requests.length;
    expect(oneVisitor).toBeGreaterThan(0);

    // Four more over other connections and the other transport: each gets the latest result at once.
    const others = [live(ws()), live(ws()), live(sse()), live(sse())];
    for (const other of others) expect(await other.next()).toEqual(plain);
    expect(liveQueries.open).toBe(1);
    expect(liveQueries.subscribers).toBe(5);
    expect(stack.simulator.requests.length).toBe(oneVisitor);

    const executions = liveQueries.executions;
    await changePrice(9.25);
    const upstreamWithChange = stack.simulator.requests.length;
    for (const subscriber of [first, ...others]) expect(priceOf(await subscriber.next(), 'Wasser')).toBe(9.25);
    // The no-cache read stored two answers the query read (the company list, then the
    // counter): one re-run (from the cache) each, for all five subscribers (unshared: ten).
    // Nothing was sent upstream but the no-cache read.
    expect(liveQueries.executions).toBe(executions + 2);
    expect(stack.simulator.requests.length).toBe(upstreamWithChange);

    for (const subscriber of [first, ...others]) subscriber.stop();
    await until(() => liveQueries.open === 0 && liveQueries.subscribers === 0, 'every subscriber to leave');
  });

  it('one subscriber leaving ends no other; the last one leaving releases the execution, its resources and every count', async () => {
    await start();
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const [a, b, c] = [live(ws()), live(sse()), live(ws())] as const;
    for (const subscriber of [a, b, c]) expect((await subscriber.next()).errors).toBeUndefined();
    expect(await metric('statev_live_query_executions')).toBe(1);
    expect(liveQueries.watchedCount).toBeGreaterThan(0);

    // The first subscriber (whose context the execution runs with) leaves: the others go on.
    a.stop();
    await until(() => liveQueries.subscribers === 2, 'the first subscriber to leave');
    expect(liveQueries.open).toBe(1);
    await changePrice(13.13);
    expect(priceOf(await b.next(), 'Wasser')).toBe(13.13);
    expect(priceOf(await c.next(), 'Wasser')).toBe(13.13);

    // An SSE subscriber goes away: the last one still gets changes.
    b.stop();
    await until(() => liveQueries.subscribers === 1, 'the SSE subscriber to leave');
    await changePrice(14.14);
    expect(priceOf(await c.next(), 'Wasser')).toBe(14.14);

    c.stop();
    await until(() => liveQueries.open === 0, 'the execution to end');
    expect(liveQueries.subscribers).toBe(0);
    expect(liveQueries.watchedCount).toBe(0);
    expect(stack.gateway.subscriptions.service.liveSubscribersFrom('127.0.0.1')).toBe(0);
    expect(await metric('statev_live_query_executions')).toBe(0);
    expect(await metric('statev_subscriptions_active', { transport: 'ws' })).toBe(0);
    expect(await metric('statev_subscriptions_active', { transport: 'sse' })).toBe(0);

    // A change after everyone left re-runs nothing.
    const executions = liveQueries.executions;
    await changePrice(15.15);
    expect(liveQueries.executions).toBe(executions);
    // The next identical live query starts a new execution, with the new data.
    const again = live(ws());
    expect(priceOf(await again.next(), 'Wasser')).toBe(15.15);
    expect(liveQueries.open).toBe(1);
    again.stop();
    await until(() => liveQueries.open === 0, 'the new execution to end');
  });

  it('a re-run that found nothing new holds no change back for a throttle window', async () => {
    await start({ liveQueryThrottleMs: 1000 });
    const subscriber = live(ws());
    await subscriber.next();
    useFakeTimersWithRealIo(Date.now());
    // The first result's window passes.
    jest.advanceTimersByTime(1000);
    // The read stores the company list (unchanged: its re-run sends nothing), then the
    // counter: the new price comes at once, with no timer advanced.
    await changePrice(16.25);
    expect(priceOf(await subscriber.next(), 'Wasser')).toBe(16.25);
    subscriber.stop();
    jest.useRealTimers();
  });

  it('the last subscriber leaving while a re-run executes leaves nothing watched once the run settles', async () => {
    await start();
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const subscriber = live(ws());
    await subscriber.next();
    // The re-run's cache reads wait until the test lets them go.
    let letGo: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const get = UpstreamEconomy.prototype.get;
    let stalled = 0;
    // Cache-only reads go to `get` (not answered at once from the cache), where they wait.
    const freshHit = UpstreamEconomy.prototype.freshHit;
    jest.spyOn(UpstreamEconomy.prototype, 'freshHit').mockImplementation(function (
      this: UpstreamEconomy,
      caller: EconomyCaller,
      ...rest
    ) {
      return caller.cacheOnly ? undefined : freshHit.call(this, caller, ...rest);
    });
    jest.spyOn(UpstreamEconomy.prototype, 'get').mockImplementation(function (
      this: UpstreamEconomy,
      caller: EconomyCaller,
      ...rest
    ) {
      if (!caller.cacheOnly) return get.call(this, caller, ...rest);
      stalled += 1;
      return gate.then(() => get.call(this, caller, ...rest));
    });
    await changePrice(17.5);
    await until(() => stalled > 0, 'the re-run to read');
    subscriber.stop();
    await until(() => liveQueries.open === 0, 'the execution to end');
    expect(liveQueries.watchedCount).toBe(0);
    letGo();
    for (let i = 0; i < 50; i += 1) await turn();
    expect(liveQueries.watchedCount).toBe(0);
  });

  it('sends patches to those who ask, whole results to the others, from the one execution', async () => {
    await start();
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const whole = live(ws());
    await whole.next();
    await changePrice(7.25);
    expect(priceOf(await whole.next(), 'Wasser')).toBe(7.25);
    // Joins late: its first result is whole (revision 1) and the latest.
    const patched = live(ws(), COUNTER, { id: FIXTURE_IDS.shop }, { livePatch: 'jsondiffpatch' });
    const firstPatch = (await patched.next()) as Received & { revision?: number };
    expect(firstPatch.revision).toBe(1);
    expect(priceOf(firstPatch, 'Wasser')).toBe(7.25);
    expect(liveQueries.open).toBe(1);
    await changePrice(8.5);
    expect(priceOf(await whole.next(), 'Wasser')).toBe(8.5);
    expect(await patched.next()).toMatchObject({ revision: 2, patch: expect.anything() });
    whole.stop();
    patched.stop();
    await until(() => liveQueries.open === 0, 'the execution to end');
  });

  it('never shares across variables or keys: each key sees only its own data', async () => {
    await start();
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const shop = live(ws());
    const dealer = live(ws(), COUNTER, { id: FIXTURE_IDS.carDealer });
    const otherKey = live(ws(DEMO_KEYS.other.key));
    await shop.next();
    await dealer.next();
    // The other key's character owns no shop: its own answer, not the premium key's data.
    const theirs = await otherKey.next();
    expect(theirs.data?.factory ?? null).toBeNull();
    expect(liveQueries.open).toBe(3);

    await changePrice(3.25);
    expect(priceOf(await shop.next(), 'Wasser')).toBe(3.25);
    expect(otherKey.buffered).toBe(0);
    for (const subscriber of [shop, dealer, otherKey]) subscriber.stop();
    await until(() => liveQueries.open === 0, 'the executions to end');
  });

  it('counts distinct live queries against SUBSCRIPTIONS_MAX_PER_KEY (21 distinct: the 21st refused), identical ones once (50 admitted)', async () => {
    await start({ subscriptionsMaxPerConnection: 100 });
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const client = ws();
    const distinct = Array.from({ length: 20 }, (_, index) => live(client, distinctLive(index)));
    for (const subscriber of distinct) expect((await subscriber.next()).errors).toBeUndefined();
    const refused = live(client, distinctLive(20));
    expect((await refused.next()).errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'SUBSCRIPTIONS_MAX_PER_KEY',
      limit: 20,
    });
    distinct.pop()?.stop();
    await until(() => liveQueries.open === 19, 'one distinct live query to end');

    const identical = Array.from({ length: 50 }, () => live(client));
    for (const subscriber of identical) expect((await subscriber.next()).errors).toBeUndefined();
    expect(liveQueries.open).toBe(20);
    expect(liveQueries.subscribers).toBe(69);
    for (const subscriber of [...distinct, ...identical]) subscriber.stop();
    await until(() => liveQueries.open === 0 && liveQueries.subscribers === 0, 'every live query to end');
  });

  it('in public-site mode, keyless visitors of the trusted live document share one execution', async () => {
    const hash = createHash('sha256').update(COUNTER).digest('hex');
    const manifest = join(mkdtempSync(join(tmpdir(), 'statev-live-crowd-')), 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ [hash]: COUNTER }));
    await start({ serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: manifest });
    const liveQueries = stack.gateway.subscriptions.liveQueries;
    const trusted = {
      query: '',
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      variables: { id: FIXTURE_IDS.shop },
    };
    const visitors = Array.from({ length: 5 }, () => collect((sink) => sse({}).subscribe(trusted, sink)));
    const firsts = await Promise.all(visitors.map((visitor) => visitor.next()));
    for (const first of firsts) expect(first.errors).toBeUndefined();
    expect(liveQueries.open).toBe(1);
    // The server's key with its own API key in the header is another caller: not the site's execution.
    const withKey = live(sse());
    expect((await withKey.next()).errors).toBeUndefined();
    expect(liveQueries.open).toBe(2);
    for (const subscriber of [...visitors, withKey]) subscriber.stop();
    await until(() => liveQueries.open === 0, 'the executions to end');
  });
});

describe('live queries: subscribers per client address', () => {
  let stack: HttpStack;
  const clients: SseClient[] = [];

  function visitor(forwardedFor?: string): Collected {
    const client = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: {
        authorization: `Bearer ${DEMO_KEYS.premium.key}`,
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
      retryAttempts: 0,
    });
    clients.push(client);
    return collect((sink) => client.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
  }

  async function admitted(subscriber: Collected): Promise<boolean> {
    const first = await subscriber.next();
    if (first.errors === undefined) return true;
    expect(first.errors[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS',
      limit: 2,
    });
    return false;
  }

  afterEach(async () => {
    for (const client of clients.splice(0)) client.dispose();
    await until(() => stack.gateway.subscriptions.liveQueries.subscribers === 0, 'every subscriber to leave');
    expect(stack.gateway.subscriptions.service.liveSubscribersFrom('127.0.0.1')).toBe(0);
    await stack.close();
  });

  it('refuses a third subscriber from one address, and admits one again when a place is free', async () => {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0, liveQuerySubscribersMaxPerAddress: 2 } });
    const service = stack.gateway.subscriptions.service;
    const [a, b] = [visitor(), visitor()];
    expect([await admitted(a), await admitted(b)]).toEqual([true, true]);
    // A spoofed X-Forwarded-For from an untrusted peer changes nothing.
    expect(await admitted(visitor('203.0.113.7'))).toBe(false);
    expect(service.liveSubscribersFrom('127.0.0.1')).toBe(2);
    a.stop();
    await until(() => service.liveSubscribersFrom('127.0.0.1') === 1, 'the place to be free');
    expect(await admitted(visitor())).toBe(true);
  });

  it('ignores X-Forwarded-For from a peer outside TRUSTED_PROXIES', async () => {
    stack = await startStack({
      http: true,
      config: { liveQueryThrottleMs: 0, liveQuerySubscribersMaxPerAddress: 2, trustedProxies: ['10.0.0.0/8'] },
    });
    const results = [];
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) results.push(await admitted(visitor(address)));
    expect(results).toEqual([true, true, false]);
    expect(stack.gateway.subscriptions.service.liveSubscribersFrom('203.0.113.1')).toBe(0);
  });

  it('counts the address a trusted proxy names in X-Forwarded-For (the last untrusted hop)', async () => {
    stack = await startStack({
      http: true,
      config: {
        liveQueryThrottleMs: 0,
        liveQuerySubscribersMaxPerAddress: 2,
        trustedProxies: ['loopback', '10.0.0.0/8'],
      },
    });
    const service = stack.gateway.subscriptions.service;
    const results = [];
    // The client claims 198.51.100.9 (untrusted, so not believed); the trusted 10.1.2.3 saw 203.0.113.1.
    for (const header of [
      '198.51.100.9, 203.0.113.1, 10.1.2.3',
      '203.0.113.1',
      '203.0.113.2',
      '203.0.113.2',
      '203.0.113.1',
    ])
      results.push(await admitted(visitor(header)));
    expect(results).toEqual([true, true, true, true, false]);
    expect(service.liveSubscribersFrom('203.0.113.1')).toBe(2);
    expect(service.liveSubscribersFrom('203.0.113.2')).toBe(2);
    expect(service.liveSubscribersFrom('127.0.0.1')).toBe(0);
    // All five are one live query of one key.
    expect(stack.gateway.subscriptions.liveQueries.open).toBe(1);
  });
});
