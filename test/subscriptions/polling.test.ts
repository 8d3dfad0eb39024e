/**
 * How the pollers spend upstream requests: one poll per key and resource per interval
 * for any number of subscribers, keys kept apart, polling stopped with the last
 * subscriber, limits, and failures (backoff, one error event after N, the subscription
 * kept). The simulator's request log counts what reached the upstream; the pollers run
 * on a manual clock.
 */
import { once } from 'node:events';
import type { EventEmitter } from 'node:events';
import type { Client } from 'graphql-ws';
import type { GatewayConfig } from '../../src/config';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';
import { subscribeWs, wsClient } from './clients';
import type { Collected } from './clients';

const INTERVAL_MS = 60_000;
const COUNTER_ROUTE = 'GET /factory/counter/{id}';
const COUNTER = `subscription($id: ID!) { counterChanged(factoryId: $id) { factoryId changes { item amountBefore amountAfter priceBefore priceAfter } counter { items { item amount price } } } }`;
const SECOND_KEY = 'sim-key-7'; // a generated premium key of the same character

/** Resolves after `count` emissions of `event`. */
function times(emitter: EventEmitter, event: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const listener = (): void => {
      seen += 1;
      if (seen < count) return;
      emitter.off(event, listener);
      resolve();
    };
    emitter.on(event, listener);
  });
}

describe('subscription polling', () => {
  let stack: HttpStack;
  let clock: ManualClock;
  const clients: Client[] = [];

  async function start(config: Partial<GatewayConfig> = {}): Promise<void> {
    clock = new ManualClock();
    stack = await startStack({ http: true, config, gateway: { now: clock.now, pollClock: clock } });
  }

  function client(key: string | null = DEMO_KEYS.premium.key): Client {
    const created = wsClient(stack.endpoint, key);
    clients.push(created);
    return created;
  }

  /** Subscribes `count` times to the shop's counter and waits until every first poll answered. */
  async function subscribeCounter(on: Client, count: number): Promise<Collected[]> {
    const joined = times(stack.gateway.subscriptions.hub.activity, 'joined', count);
    const subscriptions = Array.from({ length: count }, () => subscribeWs(on, COUNTER, { id: FIXTURE_IDS.shop }));
    await joined;
    return subscriptions;
  }

  /** Moves the clock by `ms` and waits for the poll that falls due. */
  async function pollTurn(ms: number): Promise<unknown[]> {
    const polled = once(stack.gateway.subscriptions.hub.activity, 'polled');
    clock.advance(ms);
    return polled;
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((each) => each.dispose()));
    await stack.close();
  });

  it('polls once per interval for 20 subscribers of one key, and tells each of them', async () => {
    await start();
    const subscriptions = [...(await subscribeCounter(client(), 10)), ...(await subscribeCounter(client(), 10))];
    expect(stack.simulator.countRequests({ route: COUNTER_ROUTE })).toBe(1);
    stack.simulator.resetRequests();

    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', price: 9.99 });
    expect(await pollTurn(INTERVAL_MS)).toEqual(['counter', 'changed']);
    const events = await Promise.all(subscriptions.map((each) => each.next()));
    expect(stack.simulator.countRequests({ route: COUNTER_ROUTE })).toBe(1);
    for (const event of events) {
      expect(event.data?.counterChanged).toMatchObject({
        factoryId: FIXTURE_IDS.shop,
        changes: [{ item: 'Wasser', priceAfter: 9.99 }],
      });
    }

    expect(await pollTurn(INTERVAL_MS)).toEqual(['counter', 'unchanged']);
    expect(stack.simulator.countRequests({ route: COUNTER_ROUTE })).toBe(2);
    expect(subscriptions.every((each) => each.buffered === 0)).toBe(true);
  });

  it('keeps two keys apart: a poller and an upstream request each, events to each', async () => {
    await start();
    const [first] = await subscribeCounter(client(DEMO_KEYS.premium.key), 1);
    const [second] = await subscribeCounter(client(SECOND_KEY), 1);
    expect(stack.gateway.subscriptions.hub.size).toBe(2);
    stack.simulator.resetRequests();

    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount: 1 });
    const bothPolled = times(stack.gateway.subscriptions.hub.activity, 'polled', 2);
    clock.advance(INTERVAL_MS);
    await bothPolled;
    expect(stack.simulator.countRequests({ route: COUNTER_ROUTE, keyLabel: 'premium' })).toBe(1);
    expect(stack.simulator.countRequests({ route: COUNTER_ROUTE, keyLabel: 'generated' })).toBe(1);
    expect((await first?.next())?.data?.counterChanged).toMatchObject({
      changes: [{ item: 'Wasser', amountAfter: 1 }],
    });
    expect((await second?.next())?.data?.counterChanged).toMatchObject({
      changes: [{ item: 'Wasser', amountAfter: 1 }],
    });
  });

  it('stops polling when the last subscriber leaves', async () => {
    await start();
    const [subscription] = await subscribeCounter(client(), 1);
    const stopped = once(stack.gateway.subscriptions.hub.activity, 'stopped');
    subscription?.stop();
    await stopped;
    stack.simulator.resetRequests();
    clock.advance(10 * INTERVAL_MS);
    expect(clock.pending).toBe(0);
    expect(stack.gateway.subscriptions.hub.size).toBe(0);
    expect(stack.simulator.countRequests()).toBe(0);
  });

  it('refuses subscriptions over the per-connection and per-key limits with RATE_LIMITED', async () => {
    await start({ subscriptionsMaxPerConnection: 2, subscriptionsMaxPerKey: 3 });
    const first = client();
    await subscribeCounter(first, 2);
    const overConnection = await subscribeWs(first, COUNTER, { id: FIXTURE_IDS.shop }).next();
    expect(overConnection.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'SUBSCRIPTIONS_MAX_PER_CONNECTION',
      limit: 2,
    });

    const second = client();
    await subscribeCounter(second, 1);
    const overKey = await subscribeWs(second, COUNTER, { id: FIXTURE_IDS.shop }).next();
    expect(overKey.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      setting: 'SUBSCRIPTIONS_MAX_PER_KEY',
      limit: 3,
    });

    // Another key is not affected by this key's count.
    await subscribeCounter(client(SECOND_KEY), 1);
  });

  it("stretches a key's intervals so that its polls stay within their share of the budget", async () => {
    // 10 requests per minute per key, half of it for polls: 5 polls per minute.
    await start({ upstreamRateLimit: { requests: 10, windowSeconds: 60 }, subscriptionBudgetPercent: 50 });
    const hub = stack.gateway.subscriptions.hub;
    const on = client();
    const companies = [FIXTURE_IDS.shop, FIXTURE_IDS.carDealer, FIXTURE_IDS.workshop, FIXTURE_IDS.farm];
    // 4 stores + 4 machine stores + the two auction lists: 10 resources at 60 s = 10 polls per minute.
    const joined = times(hub.activity, 'joined', 10);
    for (const id of companies) {
      subscribeWs(on, `subscription($id: ID!) { inventoryChanged(factoryId: $id) { factoryId } }`, { id });
      subscribeWs(on, `subscription($id: ID!) { inventoryChanged(factoryId: $id, store: MACHINE) { factoryId } }`, {
        id,
      });
    }
    subscribeWs(on, `subscription { myAuctionChanged { kind } }`);
    await joined;
    // The first round settles the intervals (pollers that started early saw fewer others).
    for (let t = 0; t < 240; t += 5) {
      clock.advance(5000);
      await hub.settled();
    }
    stack.simulator.resetRequests();
    const minutes = 8;
    for (let t = 0; t < minutes * 60; t += 5) {
      clock.advance(5000);
      await hub.settled();
    }
    const polls = stack.simulator.countRequests({ keyLabel: 'premium' });
    expect(polls).toBeLessThanOrEqual(5 * minutes);
    expect(polls).toBeGreaterThanOrEqual(5 * minutes - 10);
    const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/statev_subscription_poll_interval_seconds\{resource="inventory"\} 120/);
  });

  it('keeps a subscription whose polls fail, sends one error event after N failures, and recovers', async () => {
    await start({ staleMaxAgeSeconds: 0, subscriptionErrorEventsAfter: 2, subscriptionRetryBaseMs: 1000 });
    const [subscription] = await subscribeCounter(client(), 1);
    if (!subscription) throw new Error('no subscription');
    let ended = false;
    void subscription.ended.then(() => (ended = true));

    // One request per 120 s from now on: the next poll passes, the one after gets a 429.
    stack.simulator.setRateLimit({ requests: 1, windowSeconds: 120 });
    expect(await pollTurn(INTERVAL_MS)).toEqual(['counter', 'unchanged']);
    expect(await pollTurn(INTERVAL_MS)).toEqual(['counter', 'failed']);
    expect(subscription.buffered).toBe(0);
    expect(await pollTurn(1000)).toEqual(['counter', 'failed']);
    const errorEvent = await subscription.next();
    expect(errorEvent.data ?? null).toBeNull();
    expect(errorEvent.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', consecutiveFailures: 2 });

    // The upstream recovers: the next successful poll reports the change; no second error event came.
    stack.simulator.setRateLimit(undefined);
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount: 2 });
    let outcome: unknown[] = [];
    for (let turn = 0; turn < 20 && outcome[1] !== 'changed'; turn += 1) outcome = await pollTurn(INTERVAL_MS);
    expect(outcome).toEqual(['counter', 'changed']);
    const event = await subscription.next();
    expect(event.data?.counterChanged).toMatchObject({ changes: [{ item: 'Wasser', amountAfter: 2 }] });
    expect(ended).toBe(false);
  });
});
