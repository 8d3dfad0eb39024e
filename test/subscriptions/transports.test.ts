/**
 * Subscriptions end to end: the simulator over real HTTP as the upstream, the gateway
 * on port 0, real graphql-ws and graphql-sse clients. The pollers run on a manual
 * clock, so "one interval later" is `clock.advance(interval)`, never a sleep.
 */
import { once } from 'node:events';
import { createClient as createSseClient } from 'graphql-sse';
import type { Client as WsClient } from 'graphql-ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { NON_PREMIUM_KEY } from '../resolvers/expected';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from './clients';

const STOCK_INTERVAL_MS = 60_000;

describe('subscriptions over WebSocket and SSE', () => {
  let stack: HttpStack;
  let clock: ManualClock;
  let ws: WsClient;

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await startStack({
      http: true,
      gateway: { now: clock.now, pollClock: clock },
      simulator: { extraKeys: [NON_PREMIUM_KEY] },
    });
    ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  });

  afterEach(async () => {
    await ws.dispose();
    await stack.close();
  });

  const INVENTORY = `subscription($id: ID!) { inventoryChanged(factoryId: $id) { factoryId store observedAt changes { item before after delta } inventory { items { item amount } } } }`;

  it('delivers a store change over WebSocket within one interval', async () => {
    const hub = stack.gateway.subscriptions.hub;
    const firstPoll = once(hub.activity, 'polled');
    const events = collect((sink) => ws.subscribe({ query: INVENTORY, variables: { id: FIXTURE_IDS.shop } }, sink));
    await firstPoll;
    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -3 });
    clock.advance(STOCK_INTERVAL_MS);
    const event = await events.next();
    expect(event.errors).toBeUndefined();
    const change = event.data?.inventoryChanged as { store: string; changes: Array<{ item: string; delta: number }> };
    expect(change.store).toBe('STORE');
    expect(change.changes).toEqual([expect.objectContaining({ item: 'Wasser', delta: -3 })]);
    events.stop();
  });

  it('delivers a store change over SSE within one interval', async () => {
    const hub = stack.gateway.subscriptions.hub;
    const sse = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      retryAttempts: 0,
    });
    const firstPoll = once(hub.activity, 'polled');
    const events = collect((sink) => sse.subscribe({ query: INVENTORY, variables: { id: FIXTURE_IDS.shop } }, sink));
    await firstPoll;
    stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: 7 });
    clock.advance(STOCK_INTERVAL_MS);
    const event = await events.next();
    expect(event.data?.inventoryChanged).toMatchObject({ changes: [{ item: 'Wasser', delta: 7 }] });
    events.stop();
    sse.dispose();
  });

  it('refuses a subscription without a key with UNAUTHENTICATED', async () => {
    const keyless = wsClient(stack.endpoint, null);
    const events = collect((sink) =>
      keyless.subscribe({ query: INVENTORY, variables: { id: FIXTURE_IDS.shop } }, sink),
    );
    const refusal = await events.next();
    expect(refusal.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await events.ended).toBe('complete');
    await keyless.dispose();
  });

  it('ends a subscription to a company the key does not own with NOT_FOUND', async () => {
    const events = collect((sink) =>
      ws.subscribe({ query: INVENTORY, variables: { id: FIXTURE_IDS.otherFactory } }, sink),
    );
    const refusal = await events.next();
    expect(refusal.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { status: 404 } });
    expect(await events.ended).toBe('complete');
    expect(stack.gateway.subscriptions.hub.size).toBe(0);
  });
  it('ends a subscription without premium or a scope with the same codes and extensions as the query fields', async () => {
    const nonPremium = wsClient(stack.endpoint, NON_PREMIUM_KEY.key);
    const premiumOnly = collect((sink) =>
      nonPremium.subscribe(
        {
          query: `subscription { transactionAdded(bankAccountId: "${FIXTURE_IDS.shopMainAccount}") { transaction { amount } } }`,
        },
        sink,
      ),
    );
    const premiumRefusal = await premiumOnly.next();
    expect(premiumRefusal.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      premium: true,
      upstream: { status: 401 },
    });
    expect(await premiumOnly.ended).toBe('complete');
    await nonPremium.dispose();
    const basic = wsClient(stack.endpoint, DEMO_KEYS.basic.key);
    const missingScope = collect((sink) =>
      basic.subscribe(
        { query: `subscription { counterChanged(factoryId: "${FIXTURE_IDS.shop}") { factoryId } }` },
        sink,
      ),
    );
    const scopeRefusal = await missingScope.next();
    expect(scopeRefusal.errors?.[0]?.extensions).toMatchObject({
      code: 'UPSTREAM_BAD_REQUEST',
      requiredScopes: ['factory', 'factory.counter'],
      upstream: { status: 400 },
    });
    expect(await missingScope.ended).toBe('complete');
    expect(stack.gateway.subscriptions.hub.size).toBe(0);
    await basic.dispose();
  });
});
