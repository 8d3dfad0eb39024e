/**
 * A webhook in a running gateway: the vault holds the shop owner's key and a webhook for
 * the shop; a request created with that key is paid in the simulator, and the gateway
 * POSTs the signed PAID event by itself (the receiver is an undici MockAgent as the
 * global dispatcher; the upstream client keeps its own connection to the simulator).
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { MockAgent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import type { Dispatcher } from 'undici';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';

describe('webhooks in a running gateway', () => {
  let folder: string;
  let stack: HttpStack;
  let agent: MockAgent;
  let previous: Dispatcher;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'webhook-gateway-'));
    previous = getGlobalDispatcher();
    agent = new MockAgent();
    agent.disableNetConnect();
    agent.enableNetConnect('127.0.0.1');
    setGlobalDispatcher(agent);
  });

  afterEach(async () => {
    await stack?.close();
    setGlobalDispatcher(previous);
    await agent.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('POSTs the signed PAID event of a request created with the vault key', async () => {
    const vaultFile = join(folder, 'vault.json');
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('shop-owner', DEMO_KEYS.premium.key, null);
    const { secret } = await vault.addWebhook('shop-owner', FIXTURE_IDS.shop, 'https://hooks.example/statev');
    const delivered = new Promise<{ body: string; headers: Record<string, string> }>((resolve) => {
      agent
        .get('https://hooks.example')
        .intercept({ path: '/statev', method: 'POST' })
        .reply((options) => {
          resolve({ body: String(options.body), headers: Object.fromEntries(Object.entries(options.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)])) });
          return { statusCode: 204, data: '' };
        });
    });
    const clock = new ManualClock();
    stack = await startStack({ http: true, config: { vaultFile, vaultMasterKey: masterKey }, gateway: { now: clock.now, pollClock: clock } });
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    const answer = await stack.post({ query: `mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }`, variables: { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 42 } } });
    const reference = (answer.body as { data: { createPaymentRequest: { reference: string } } }).data.createPaymentRequest.reference;
    await joined;
    stack.simulator.change({ kind: 'transaction', bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 42, reference, otherVban: '4799001' });
    clock.advance(60_000);
    const { body, headers } = await delivered;
    expect(headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'payment.paid', data: { reference, status: 'PAID', paidAmount: 42 } });
  });
});
