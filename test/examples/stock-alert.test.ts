/**
 * examples/stock-alert against the simulator and a local webhook receiver: the script
 * subscribes over graphql-ws and posts one message when an item falls below the
 * threshold, none when it only changes above it.
 */
import { once } from 'node:events';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, useStacks } from '../support';
import { startStockAlert, webhookReceiver } from '../support/stock-alert';
import type { HttpStack } from '../support';

describe('examples/stock-alert', () => {
  const stacks = useStacks();
  let stack: HttpStack;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await stacks.start({ http: true, gateway: { now: clock.now, pollClock: clock } });
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
