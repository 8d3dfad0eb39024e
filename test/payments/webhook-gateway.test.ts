/**
 * A webhook in a running gateway: the vault holds the shop owner's key and a webhook for
 * the shop; a request created with that key is paid in the simulator, and the gateway
 * POSTs the signed PAID event by itself (the receiver is a local HTTP server on 127.0.0.1,
 * port 0: plain http goes to loopback only, under the outbound URL rules).
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';

describe('webhooks in a running gateway', () => {
  let folder: string;
  let stack: HttpStack;
  let receiver: Server;
  let delivered: Promise<{ body: string; headers: Record<string, string> }>;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'webhook-gateway-'));
    delivered = new Promise((resolve) => {
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          resolve({
            body: Buffer.concat(chunks).toString('utf8'),
            headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
          });
          response.writeHead(204).end();
        });
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
  });

  afterEach(async () => {
    await stack?.close();
    receiver.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('POSTs the signed PAID event of a request created with the vault key', async () => {
    const vaultFile = join(folder, 'vault.json');
    const masterKey = randomBytes(32).toString('base64');
    const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
    await vault.addKey('shop-owner', DEMO_KEYS.premium.key, null);
    const { secret } = await vault.addWebhook(
      'shop-owner',
      FIXTURE_IDS.shop,
      `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/statev`,
    );
    const clock = new ManualClock();
    stack = await startStack({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey },
      gateway: { now: clock.now, pollClock: clock },
    });
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    const answer = await stack.post({
      query: `mutation($i: CreatePaymentRequestInput!) { createPaymentRequest(input: $i) { reference } }`,
      variables: { i: { factoryId: FIXTURE_IDS.shop, bankAccountId: FIXTURE_IDS.shopMainAccount, amount: 42 } },
    });
    const reference = (answer.body as { data: { createPaymentRequest: { reference: string } } }).data
      .createPaymentRequest.reference;
    await joined;
    stack.simulator.change({
      kind: 'transaction',
      bankAccountId: FIXTURE_IDS.shopMainAccount,
      amount: 42,
      reference,
      otherVban: '4799001',
    });
    clock.advance(60_000);
    const { body, headers } = await delivered;
    expect(headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({
      type: 'payment.paid',
      data: { reference, status: 'PAID', paidAmount: 42 },
    });
  });
});
