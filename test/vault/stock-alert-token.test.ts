/**
 * examples/stock-alert on an access token (factory:<id>, read:Factory.inventory,
 * subscribe) instead of the key: it posts its alert as with the key, and watching another
 * company is refused with FORBIDDEN naming the missing grant.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { ManualClock, useStacks } from '../support';
import { startStockAlert, webhookReceiver } from '../support/stock-alert';
import type { HttpStack } from '../support';

describe('examples/stock-alert on an access token', () => {
  const stacks = useStacks();
  let stack: HttpStack;
  let clock: ManualClock;
  let token: string;

  beforeEach(async () => {
    const vaultFile = join(mkdtempSync(join(tmpdir(), 'stock-alert-token-')), 'vault.json');
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('shop', DEMO_KEYS.premium.key, null);
    ({ token } = await vault.createToken({
      characters: ['shop'],
      grants: [`factory:${FIXTURE_IDS.shop}`, 'read:Factory.inventory', 'subscribe'],
      expiresInMs: 3_600_000,
    }));
    clock = new ManualClock();
    stack = await stacks.start({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey },
      gateway: { now: clock.now, pollClock: clock },
    });
  });

  it('posts to the webhook when an item falls below the threshold, holding only the token', async () => {
    const receiver = await webhookReceiver();
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    const watch = startStockAlert({
      gatewayUrl: stack.endpoint.replace(/^http/, 'ws'),
      apiKey: token,
      factoryId: FIXTURE_IDS.shop,
      threshold: 395,
      webhookUrl: receiver.url,
    });
    try {
      await joined;
      stack.simulator.change({ kind: 'stock', factoryId: FIXTURE_IDS.shop, item: 'Wasser', delta: -12 });
      const posted = receiver.nextPost();
      clock.advance(60_000);
      const body = await posted;
      expect(body.content).toMatch(/\*\*Wasser\*\*: 388 left \(was 400\)/);
    } finally {
      await watch.stop();
      receiver.server.close();
    }
  });

  it('is refused for another company, naming the grant it lacks', async () => {
    const receiver = await webhookReceiver();
    const errors: unknown[] = [];
    const refused = new Promise<void>((resolve) => {
      const watch = startStockAlert({
        gatewayUrl: stack.endpoint.replace(/^http/, 'ws'),
        apiKey: token,
        factoryId: FIXTURE_IDS.farm,
        threshold: 1,
        webhookUrl: receiver.url,
        onError: (error: unknown) => {
          errors.push(error);
          void watch.stop().then(() => resolve());
        },
      });
    });
    await refused;
    receiver.server.close();
    expect(JSON.stringify(errors[0])).toContain(`"requiredGrant":"factory:${FIXTURE_IDS.farm}"`);
    expect(stack.simulator.countRequests()).toBe(0);
  });
});
