/**
 * Each webhook endpoint is delivered on its own lane: a receiver that hangs, or answers 200
 * and then trickles its body, never holds up another webhook's delivery, and a delivery
 * (headers and body together) ends at the poster's timeout. The receivers are local HTTP
 * servers on 127.0.0.1, port 0; the test waits for their events, never for time.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentDesk } from '../../src/domains/payments/payment-request.service';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import { WebhookDispatcher } from '../../src/domains/payments/payment-webhook.dispatcher';
import type { WebhookTarget } from '../../src/domains/payments/payment-webhook.dispatcher';
import { webhookPoster } from '../../src/upstream/webhook-post';
import { testStoreOptions } from '../support/payment-store';

const CALLER = { apiKey: 'vault-key', keyId: 'hash-of-vault-key' };
const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

/** A local receiver whose behaviour the test sets; `requests` emits each request it gets. */
async function receiver(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

describe('webhook lanes', () => {
  const servers: Server[] = [];
  const held: ServerResponse[] = [];
  const timers: NodeJS.Timeout[] = [];

  afterEach(async () => {
    for (const timer of timers.splice(0)) clearInterval(timer);
    for (const response of held.splice(0)) response.destroy();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });

  async function setUp(
    targets: Array<Omit<WebhookTarget, 'caller' | 'secret' | 'factoryId'>>,
    timeoutMs: number,
  ): Promise<{ desk: PaymentDesk; hooks: WebhookDispatcher }> {
    const desk = new PaymentDesk(await FilePaymentStore.open(null, testStoreOptions()));
    const hooks = new WebhookDispatcher(
      desk,
      () => targets.map((target) => ({ ...target, factoryId: 'f1', secret: SECRET, caller: CALLER })),
      { post: webhookPoster({ allowHosts: [], timeoutMs }) },
    );
    desk.outboxWith((event) => hooks.entries(event));
    const request = await desk.create(CALLER, {
      factoryId: 'f1',
      bankAccountId: 'a1',
      vban: '4711002',
      amount: 10,
      expiresInSeconds: null,
      note: null,
    });
    await desk.observe(
      CALLER.keyId,
      'a1',
      '4711002',
      {
        totalTransactions: 1,
        transactions: [
          {
            amount: 10,
            reference: request.reference,
            senderVban: '4799001',
            receiverVban: '4711002',
            timestamp: new Date(),
          },
        ],
      },
      null,
    );
    return { desk, hooks };
  }

  it('delivers to a healthy webhook while another one hangs', async () => {
    const hanging = await receiver((_request, response) => held.push(response)); // never answers
    const healthy = await receiver((_request, response) => response.end('ok'));
    servers.push(hanging.server, healthy.server);
    // The hanging one first, with a timeout far beyond the test's: only its own lane waits.
    const { desk, hooks } = await setUp(
      [
        { id: 'whk_hang', url: hanging.url },
        { id: 'whk_ok', url: healthy.url },
      ],
      600_000,
    );
    const hangingGotIt = once(hanging.server, 'request');
    const healthyGotIt = once(healthy.server, 'request');
    const delivering = hooks.deliverDue();
    await hangingGotIt;
    await healthyGotIt;
    // The healthy one's lane ends (its entry leaves the outbox) while the hanging one still holds its request.
    for (;;) {
      const left = (await desk.store.outbox()).map((entry) => entry.webhookId);
      if (!left.includes('whk_ok')) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(held).toHaveLength(1);
    expect((await desk.store.outbox()).map((entry) => entry.webhookId)).toEqual(['whk_hang']);
    // A second run does not start a second lane for the hanging webhook.
    await hooks.deliverDue();
    expect(held).toHaveLength(1);
    held[0]?.end('late');
    await delivering;
    await desk.close();
  });

  it('ends a delivery whose receiver answers 200 and then trickles, at the whole-request timeout', async () => {
    const trickling = await receiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('.');
      held.push(response);
      timers.push(setInterval(() => response.write('.'), 20));
    });
    servers.push(trickling.server);
    const { desk, hooks } = await setUp([{ id: 'whk_trickle', url: trickling.url }], 300);
    // Resolves: the lane ended (without the whole-request timeout the body would never end: a byte every 20 ms resets undici's idle timeouts).
    await hooks.deliverDue();
    const [entry] = await desk.store.outbox();
    expect(entry).toMatchObject({ webhookId: 'whk_trickle', attempts: 1 });
    await desk.close();
  });
});
