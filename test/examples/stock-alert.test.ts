/**
 * examples/stock-alert against the simulator and a local webhook receiver: the script
 * subscribes over graphql-ws and posts one message when an item falls below the
 * threshold, none when it only changes above it.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example is a plain CommonJS script
const { startStockAlert } = require('../../examples/stock-alert/stock-alert.js') as {
  startStockAlert(options: Record<string, unknown>): { stop(): Promise<void> };
};

/** A Discord-style webhook receiver on port 0: every POSTed JSON body, in order. */
async function webhookReceiver(): Promise<{ url: string; server: Server; posts: Array<Record<string, unknown>>; nextPost(): Promise<Record<string, unknown>> }> {
  const posts: Array<Record<string, unknown>> = [];
  const waiting: Array<(body: Record<string, unknown>) => void> = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      posts.push(body);
      waiting.shift()?.(body);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    server,
    posts,
    nextPost: () => new Promise((resolve) => waiting.push(resolve)),
  };
}

describe('examples/stock-alert', () => {
  let stack: HttpStack;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await startStack({ http: true, gateway: { now: clock.now, pollClock: clock } });
  });

  afterEach(async () => {
    await stack.close();
  });

  it('posts to the webhook when an item falls below the threshold', async () => {
    const receiver = await webhookReceiver();
    const alerts: unknown[] = [];
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    const watch = startStockAlert({
      gatewayUrl: stack.endpoint.replace(/^http/, 'ws'),
      apiKey: DEMO_KEYS.premium.key,
      factoryId: FIXTURE_IDS.shop,
      threshold: 395,
      webhookUrl: receiver.url,
      onAlert: (items: unknown[]) => alerts.push(items),
    });
    try {
      await joined;
      // Above the threshold: an event, but no alert.
      stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -2 });
      const first = once(stack.gateway.subscriptions.hub.activity, 'polled');
      clock.advance(60_000);
      await first;
      // Below it: one post.
      stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -10 });
      const posted = receiver.nextPost();
      clock.advance(60_000);
      const body = await posted;
      expect(body.username).toBe('StateV stock alert');
      expect(body.content).toMatch(/Stock below 395/);
      expect(body.content).toMatch(/\*\*Wasser\*\*: 388 left \(was 398\)/);
      expect(receiver.posts).toHaveLength(1);
    } finally {
      await watch.stop();
      receiver.server.close();
    }
  });
});
