/**
 * A transfer seen for the first time, what it changes and its webhook deliveries land in
 * one atomic step, in the file store (one write of the whole file) and in Redis (one
 * script): the written file never holds the fingerprint without the paid request and its
 * outbox entry, and a transfer seen before changes nothing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisPaymentStore } from '../../src/domains/payments/payment-request.redis-store';
import { FilePaymentStore, transferFingerprint } from '../../src/domains/payments/payment-request.store';
import type { OutboxEntry, PaymentStore, StoredRequest, StoredTransfer } from '../../src/domains/payments/payment-request.store';
import { PaymentStatus } from '../../src/domains/payments/payment-request.type';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

const OWNER = 'owner-1';
const ACCOUNT = 'acc-1';
const TRANSFER: StoredTransfer = { amount: 40, senderVban: '4799001', reference: 'Order ABCD2345', timestamp: 1_700_000_000_000 };
const PENDING: StoredRequest = {
  owner: OWNER,
  reference: 'ABCD2345',
  factoryId: 'f1',
  bankAccountId: ACCOUNT,
  vban: '4711002',
  amount: 100,
  status: PaymentStatus.PENDING,
  transfers: [],
  note: null,
  createdAt: 1_699_999_000_000,
  expiresAt: null,
  settledAt: null,
};
const PAID_PART: StoredRequest = { ...PENDING, status: PaymentStatus.PARTIALLY_PAID, transfers: [TRANSFER] };
const DELIVERY: OutboxEntry = { id: 'msg_1', webhookId: 'whk_1', url: 'https://shop.example/hooks', payload: '{"type":"payment.partially_paid"}', attempts: 0, firstAt: 1, nextAt: 1 };

/** The same cases for each store. */
async function recordsOnce(store: PaymentStore): Promise<void> {
  await store.put(PENDING);
  const fingerprint = transferFingerprint(TRANSFER);
  expect(await store.recordTransfer(OWNER, ACCOUNT, fingerprint, { kind: 'request', request: PAID_PART }, [DELIVERY])).toBe(true);
  expect(await store.get(OWNER, PENDING.reference)).toEqual(PAID_PART);
  expect(await store.outbox()).toEqual([DELIVERY]);
  // Seen before (here or on another replica): nothing changes, whatever the change would be.
  expect(await store.recordTransfer(OWNER, ACCOUNT, fingerprint, { kind: 'request', request: { ...PAID_PART, status: PaymentStatus.PAID } }, [{ ...DELIVERY, id: 'msg_2' }])).toBe(false);
  expect(await store.get(OWNER, PENDING.reference)).toEqual(PAID_PART);
  expect(await store.outbox()).toEqual([DELIVERY]);
  expect(await store.markSeen(OWNER, ACCOUNT, fingerprint)).toBe(false);
  // An unmatched transfer goes to the company's list once.
  const other = { ...TRANSFER, reference: 'no code', timestamp: TRANSFER.timestamp + 1 };
  expect(await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(other), { kind: 'unmatched', factoryId: 'f1', transfer: other })).toBe(true);
  expect(await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(other), { kind: 'unmatched', factoryId: 'f1', transfer: other })).toBe(false);
  expect(await store.unmatched(OWNER, 'f1')).toEqual([other]);
  // A status stored with its deliveries (an expiry): both land.
  const expiredDelivery = { ...DELIVERY, id: 'msg_3' };
  await store.put({ ...PAID_PART, status: PaymentStatus.EXPIRED }, [expiredDelivery]);
  expect((await store.get(OWNER, PENDING.reference))?.status).toBe('EXPIRED');
  expect((await store.outbox()).map((entry) => entry.id).sort()).toEqual([DELIVERY.id, expiredDelivery.id]);
}

describe('the file payment store records a transfer atomically', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'payment-store-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('counts a transfer once, with its change', async () => {
    const store = await FilePaymentStore.open(join(folder, 'payments.json'));
    await recordsOnce(store);
    await store.close();
  });

  it('writes the fingerprint, the paid request and its delivery in the same file write', async () => {
    const path = join(folder, 'payments.json');
    const store = await FilePaymentStore.open(path);
    await store.put(PENDING);
    await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(TRANSFER), { kind: 'request', request: PAID_PART }, [DELIVERY]);
    await store.close();
    const written = JSON.parse(await readFile(path, 'utf8')) as { seen: Record<string, string[]>; requests: Record<string, Record<string, StoredRequest>>; outbox: Record<string, OutboxEntry> };
    expect(written.seen[`${OWNER}|${ACCOUNT}`]).toEqual([transferFingerprint(TRANSFER)]);
    expect(written.requests[OWNER]?.[PENDING.reference]?.status).toBe('PARTIALLY_PAID');
    expect(written.outbox).toEqual({ [DELIVERY.id]: DELIVERY });
    // A new process reads both back.
    const reopened = await FilePaymentStore.open(path);
    expect(await reopened.recordTransfer(OWNER, ACCOUNT, transferFingerprint(TRANSFER), { kind: 'none' })).toBe(false);
    await reopened.close();
  });
});

describeWithRedis('the Redis payment store records a transfer atomically', () => {
  let redis: TestRedis;
  let store: RedisPaymentStore;
  beforeAll(async () => {
    redis = await startTestRedis();
    store = new RedisPaymentStore(redis.url, `statev-payment-store-${process.pid}:`);
  });
  afterAll(async () => {
    await store.close();
    await redis.stop();
  });

  it('counts a transfer once, with its change', async () => {
    await recordsOnce(store);
  });
});
