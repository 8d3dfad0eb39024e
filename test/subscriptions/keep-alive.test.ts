/**
 * Keep-alive on both transports: graphql-ws pings (SUBSCRIPTION_KEEP_ALIVE_MS) and SSE
 * comment lines, so that proxies do not close idle subscriptions. Each test waits for
 * the keep-alive message itself (an event), never for a time.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';

const INVENTORY = `subscription($id: ID!) { inventoryChanged(factoryId: $id) { factoryId } }`;

describe('subscription keep-alive', () => {
  let stack: HttpStack;

  beforeEach(async () => {
    const clock = new ManualClock();
    stack = await startStack({
      http: true,
      config: { subscriptionKeepAliveMs: 50 },
      gateway: { now: clock.now, pollClock: clock },
    });
  });

  afterEach(async () => {
    await stack.close();
  });

  it('pings an idle WebSocket connection (WebSocket ping frames, as graphql-ws sends them)', async () => {
    const socket = new WebSocket(stack.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await once(socket, 'open');
    socket.send(
      JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${DEMO_KEYS.premium.key}` } }),
    );
    const [ack] = await once(socket, 'message');
    expect(JSON.parse(String(ack))).toMatchObject({ type: 'connection_ack' });
    await once(socket, 'ping');
    socket.close();
    await once(socket, 'close');
  });

  it('writes comment lines on an idle SSE stream', async () => {
    const controller = new AbortController();
    const response = await fetch(`${stack.gateway.url}/graphql/stream`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${DEMO_KEYS.premium.key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ query: INVENTORY, variables: { id: FIXTURE_IDS.shop } }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    while (!/(^|\n):\n\n/.test(text)) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`stream ended before a keep-alive comment: ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }
    controller.abort();
  });
});
