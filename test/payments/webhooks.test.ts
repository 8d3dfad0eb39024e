/**
 * Webhook delivery of payment events: signed as Standard Webhooks says (verified with
 * the `standardwebhooks` package), one `webhook-id` for every attempt, exponential
 * backoff until a 2xx (a receiver failing the first five attempts still gets the
 * event), the outbox surviving a restart, a crash right after a transfer was counted
 * losing no delivery (the entry is written with the change), and giving up after 24 h. The receiver is an
 * undici MockAgent given to the poster (shop.example resolved by a fixed resolver); time is the dispatcher's injected clock.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { MockAgent } from 'undici';
import { PaymentDesk } from '../../src/domains/payments/payment-request.service';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import type { StoredEvent } from '../../src/domains/payments/payment-request.store';
import { WebhookDispatcher } from '../../src/domains/payments/payment-webhook.dispatcher';
import { DELIVERY_WINDOW_MS, retryDelayMs } from '../../src/upstream/delivery-lanes';
import { webhookPoster } from '../../src/upstream/webhook-post';
import { testStoreOptions } from '../support/payment-store';

const CALLER = { apiKey: 'vault-key', keyId: 'hash-of-vault-key' };
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
// Now: the receiver's check (standardwebhooks) compares the signed timestamp with its own clock (5 min tolerance).
const T0 = Date.now();

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

describe('payment webhooks', () => {
  let folder: string;
  let agent: MockAgent;
  let now: number;
  let deliveries: Delivery[];
  let answers: number[];

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'webhooks-'));
    now = T0;
    deliveries = [];
    answers = [];
    agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://shop.example')
      .intercept({ path: '/hooks', method: 'POST' })
      .reply((options) => {
        deliveries.push({
          headers: Object.fromEntries(
            Object.entries(options.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]),
          ),
          body: String(options.body),
        });
        return { statusCode: answers.shift() ?? 200, data: '' };
      })
      .persist();
  });

  afterEach(async () => {
    await agent.close();
    await rm(folder, { recursive: true, force: true });
  });

  async function setUp(
    file: string | null,
  ): Promise<{ desk: PaymentDesk; hooks: WebhookDispatcher; events: StoredEvent[] }> {
    const desk = new PaymentDesk(await FilePaymentStore.open(file, testStoreOptions()), { now: () => now });
    // shop.example resolves to a public address (a fixed resolver: no DNS); the MockAgent answers.
    const post = webhookPoster({
      allowHosts: [],
      timeoutMs: 10_000,
      resolve: () => Promise.resolve([{ address: '93.184.215.14', family: 4 }]),
      dispatcher: agent,
    });
    const hooks = new WebhookDispatcher(
      desk,
      () => [{ id: 'whk_1', factoryId: 'f1', url: 'https://shop.example/hooks', secret: SECRET, caller: CALLER }],
      { now: () => now, post },
    );
    const events: StoredEvent[] = [];
    desk.store.onEvent((event) => events.push(event));
    return { desk, hooks, events };
  }

  async function paidEvent(desk: PaymentDesk, events: StoredEvent[]): Promise<StoredEvent> {
    const request = await desk.create(CALLER, {
      factoryId: 'f1',
      bankAccountId: 'a1',
      vban: '4711002',
      amount: 10,
      expiresInSeconds: null,
      note: 'order 7',
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
            timestamp: new Date(T0),
          },
        ],
      },
      null,
    );
    const event = events.at(-1);
    if (!event) throw new Error('no event');
    return event;
  }

  it('retries with backoff until the receiver answers 2xx, with one webhook-id and a valid signature each time', async () => {
    const { desk, hooks, events } = await setUp(null);
    const event = await paidEvent(desk, events);
    await hooks.enqueue(event);
    await hooks.enqueue(event); // the same event again (another replica's copy): enqueued once
    answers = [500, 503, 0, 404, 500];
    const delays: number[] = [];
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const [entry] = await desk.store.outbox();
      if (!entry) throw new Error('outbox empty too early');
      delays.push(entry.nextAt - now);
      now = entry.nextAt;
      await hooks.deliverDue();
      await hooks.deliverDue(); // not due again yet: no extra attempt
    }
    expect(deliveries).toHaveLength(6);
    expect(delays).toEqual([0, retryDelayMs(1), retryDelayMs(2), retryDelayMs(3), retryDelayMs(4), retryDelayMs(5)]);
    expect(retryDelayMs(2)).toBe(2 * retryDelayMs(1));
    expect(await desk.store.outbox()).toEqual([]);
    expect(new Set(deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
    for (const delivery of deliveries) {
      const verified = new Webhook(SECRET).verify(delivery.body, delivery.headers) as {
        type: string;
        data: { status: string; reference: string; note: string };
      };
      expect(verified).toMatchObject({
        type: 'payment.paid',
        data: { status: 'PAID', reference: event.request.reference, note: 'order 7' },
      });
    }
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(
        deliveries[0]?.body ?? '',
        deliveries[0]?.headers ?? {},
      ),
    ).toThrow();
    await desk.close();
  });

  it('keeps the outbox across a restart', async () => {
    const file = join(folder, 'payments.json');
    const first = await setUp(file);
    await first.hooks.enqueue(await paidEvent(first.desk, first.events));
    await first.desk.close();
    const second = await setUp(file);
    await second.hooks.deliverDue();
    expect(deliveries).toHaveLength(1);
    expect(await second.desk.store.outbox()).toEqual([]);
    await second.desk.close();
  });

  it('queues the delivery with the transfer that causes it, so a crash before the event is published loses nothing', async () => {
    const file = join(folder, 'payments.json');
    const first = await setUp(file);
    first.hooks.start();
    // The process dies right after the atomic step: the event is never published.
    const publish = jest.spyOn(first.desk.store, 'publish').mockRejectedValue(new Error('crashed'));
    await expect(paidEvent(first.desk, first.events)).rejects.toThrow('crashed');
    expect(publish).toHaveBeenCalledWith(expect.objectContaining({ kind: 'PAID', outboxed: true }));
    expect((await first.desk.store.outbox()).map((entry) => entry.webhookId)).toEqual(['whk_1']);
    await first.hooks.close();
    await first.desk.close();
    const second = await setUp(file);
    second.hooks.start();
    await second.hooks.deliverDue();
    expect(deliveries).toHaveLength(1);
    expect(new Webhook(SECRET).verify(deliveries[0]?.body ?? '', deliveries[0]?.headers ?? {})).toMatchObject({
      type: 'payment.paid',
      data: { status: 'PAID', note: 'order 7' },
    });
    expect(await second.desk.store.outbox()).toEqual([]);
    await second.hooks.close();
    await second.desk.close();
  });

  it("queues an expiry's delivery with the EXPIRED status itself", async () => {
    const { desk, hooks } = await setUp(null);
    hooks.start();
    await desk.create(CALLER, {
      factoryId: 'f1',
      bankAccountId: 'a1',
      vban: '4711002',
      amount: 10,
      expiresInSeconds: 60,
      note: null,
    });
    jest.spyOn(desk.store, 'publish').mockRejectedValue(new Error('crashed'));
    now += 61_000;
    await expect(desk.sweep()).rejects.toThrow('crashed');
    const [entry] = await desk.store.outbox();
    expect(JSON.parse(entry?.payload ?? '{}')).toMatchObject({ type: 'payment.expired', data: { status: 'EXPIRED' } });
    await hooks.close();
    await desk.close();
  });

  it('does not queue a delivery twice when the event written with its transfer is published too', async () => {
    const { desk, hooks, events } = await setUp(null);
    hooks.start();
    const event = await paidEvent(desk, events);
    expect(event.outboxed).toBe(true);
    await hooks.enqueue(event); // the published copy, on this replica or another
    expect(await desk.store.outbox()).toHaveLength(1);
    await hooks.deliverDue();
    await hooks.enqueue(event);
    expect(await desk.store.outbox()).toEqual([]);
    expect(deliveries).toHaveLength(1);
    await hooks.close();
    await desk.close();
  });

  it('gives up 24 h after the event', async () => {
    const { desk, hooks, events } = await setUp(null);
    await hooks.enqueue(await paidEvent(desk, events));
    answers = Array.from({ length: 100 }, () => 500);
    for (;;) {
      const [entry] = await desk.store.outbox();
      if (!entry) break;
      now = entry.nextAt;
      await hooks.deliverDue();
    }
    expect(now - T0).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
    expect(deliveries.length).toBeGreaterThan(6);
    await desk.close();
  });
});
