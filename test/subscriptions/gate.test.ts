/**
 * What is refused before a subscription starts (no upstream request): a malformed key,
 * keyless subscriptions outside public-site mode's trusted documents, an out-of-bounds
 * slot, a selection over the cost limit; the WebSocket connection-init timeout; and
 * keyless trusted documents running with the server's key in public-site mode.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { GatewayConfig } from '../../src/config';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';
import { collect, subscribeWs, wsClient } from './clients';

const COUNTER = `subscription($id: ID!) { counterChanged(factoryId: $id) { changes { item amountAfter } } }`;

describe('refusals before a subscription starts', () => {
  let stack: HttpStack;
  let clock: ManualClock;

  async function start(config: Partial<GatewayConfig> = {}): Promise<void> {
    clock = new ManualClock();
    stack = await startStack({ http: true, config, gateway: { now: clock.now, pollClock: clock } });
  }

  afterEach(async () => {
    await stack.close();
  });

  it('refuses a malformed key with UNAUTHENTICATED over WebSocket and SSE, with no upstream request', async () => {
    await start();
    const ws = createClient({
      url: stack.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: DEMO_KEYS.premium.key },
    });
    const overWs = subscribeWs(ws, COUNTER, { id: FIXTURE_IDS.shop });
    const wsError = (await overWs.ended) as Array<{ extensions?: { code?: string } }>;
    expect(wsError[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    await ws.dispose();

    const sse = createSseClient({
      url: `${stack.origin}/graphql/stream`,
      headers: { authorization: 'Token nope' },
      retryAttempts: 0,
    });
    const overSse = collect((sink) => sse.subscribe({ query: COUNTER, variables: { id: FIXTURE_IDS.shop } }, sink));
    const sseRefusal = await overSse.next();
    expect(sseRefusal.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    sse.dispose();
    expect(stack.simulator.countRequests()).toBe(0);
  });

  it('refuses an out-of-bounds slot with BAD_USER_INPUT and a selection over the cost limit with QUERY_TOO_EXPENSIVE', async () => {
    await start({ maxUpstreamRequests: 1 });
    const ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
    const slot = subscribeWs(
      ws,
      `subscription { factoryOptionChanged(factoryId: "${FIXTURE_IDS.shop}", slot: 11) { slot } }`,
    );
    expect(((await slot.ended) as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code).toBe(
      'BAD_USER_INPUT',
    );
    // Each event would resolve room.building and room.tenant: 2 upstream requests per event.
    const expensive = subscribeWs(
      ws,
      `subscription { roomChanged(buildingId: "${FIXTURE_IDS.hafen}") { room { building { label } tenant { tenantName } } } }`,
    );
    const refusal = ((await expensive.ended) as Array<{ extensions?: Record<string, unknown> }>)[0]?.extensions;
    expect(refusal).toMatchObject({ code: 'QUERY_TOO_EXPENSIVE', maxCost: 1 });
    await ws.dispose();
    expect(stack.simulator.countRequests()).toBe(0);
  });

  it('closes a WebSocket that sends no connection_init within the timeout (4408)', async () => {
    await start({ subscriptionConnectionInitTimeoutMs: 50 });
    const socket = new WebSocket(stack.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const [code] = (await once(socket, 'close')) as [number];
    expect(code).toBe(4408);
  });

  it('in public-site mode runs a keyless trusted subscription with the server key, and refuses any other', async () => {
    const document = COUNTER.replace('subscription(', 'subscription ShopCounter(');
    const hash = createHash('sha256').update(document).digest('hex');
    const folder = mkdtempSync(join(tmpdir(), 'statev-subs-'));
    const manifest = join(folder, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ [hash]: document }));
    await start({ serverApiKey: DEMO_KEYS.premium.key, trustedDocumentsPath: manifest });
    const keyless = wsClient(stack.endpoint, null);

    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
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
    await joined;
    stack.simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount: 5 });
    clock.advance(60_000);
    expect((await trusted.next()).data?.counterChanged).toEqual({ changes: [{ item: 'Wasser', amountAfter: 5 }] });
    expect(stack.simulator.countRequests({ keyLabel: 'premium' })).toBeGreaterThan(0);

    const arbitrary = subscribeWs(keyless, COUNTER, { id: FIXTURE_IDS.shop });
    expect(((await arbitrary.ended) as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code).toBe(
      'FORBIDDEN_DOCUMENT',
    );
    await keyless.dispose();
  });
});
