/**
 * The payment stores (file and Redis): a transfer occurrence counted for the first time,
 * what it changes and its webhook deliveries land in one atomic step (one appended write,
 * one script), an occurrence counted before changes nothing, two identical transfers on one
 * poll count twice; the indexes (by reference, open per account and company, expiries), the
 * bound on closed requests per company, and the MAC that refuses an edited record.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisPaymentStore } from '../../src/domains/payments/payment-request.redis-store';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import { transferFingerprint } from '../../src/domains/payments/payment-request.store';
import type {
  OutboxEntry,
  PaymentStore,
  StoredRequest,
  StoredTransfer,
} from '../../src/domains/payments/payment-request.store';
import { PaymentStatus } from '../../src/domains/payments/payment-request.type';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';
import { testStoreOptions } from '../support/payment-store';

const OWNER = 'owner-1';
const ACCOUNT = 'acc-1';
const TRANSFER: StoredTransfer = {
  amount: 40,
  senderVban: '4799001',
  reference: 'Order ABCD2345',
  timestamp: 1_700_000_000_000,
};
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
const DELIVERY: OutboxEntry = {
  id: 'msg_1',
  webhookId: 'whk_1',
  url: 'https://shop.example/hooks',
  payload: '{"type":"payment.partially_paid"}',
  attempts: 0,
  firstAt: 1,
  nextAt: 1,
};

/** The same cases for each store. */
async function recordsOnce(store: PaymentStore): Promise<void> {
  await store.put(PENDING);
  const fingerprint = transferFingerprint(TRANSFER);
  expect(
    await store.recordTransfer(OWNER, ACCOUNT, fingerprint, 1, { kind: 'request', request: PAID_PART }, [DELIVERY]),
  ).toBe(true);
  expect(await store.get(OWNER, PENDING.reference)).toEqual(PAID_PART);
  expect(await store.outbox()).toEqual([DELIVERY]);
  // Counted before (here or on another replica): nothing changes, whatever the change would be.
  expect(
    await store.recordTransfer(
      OWNER,
      ACCOUNT,
      fingerprint,
      1,
      { kind: 'request', request: { ...PAID_PART, status: PaymentStatus.PAID } },
      [{ ...DELIVERY, id: 'msg_2' }],
    ),
  ).toBe(false);
  expect(await store.get(OWNER, PENDING.reference)).toEqual(PAID_PART);
  expect(await store.outbox()).toEqual([DELIVERY]);
  // A second occurrence of the same identity on one poll counts once more, and only once.
  const twice = { ...PAID_PART, transfers: [TRANSFER, TRANSFER] };
  expect(await store.recordTransfer(OWNER, ACCOUNT, fingerprint, 2, { kind: 'request', request: twice })).toBe(true);
  expect(
    await store.recordTransfer(OWNER, ACCOUNT, fingerprint, 2, { kind: 'request', request: { ...twice, amount: 1 } }),
  ).toBe(false);
  expect(
    await store.recordTransfer(OWNER, ACCOUNT, fingerprint, 1, { kind: 'request', request: { ...twice, amount: 1 } }),
  ).toBe(false);
  expect((await store.get(OWNER, PENDING.reference))?.transfers).toHaveLength(2);
  // An unmatched transfer goes to the company's list once.
  const other = { ...TRANSFER, reference: 'no code', timestamp: TRANSFER.timestamp + 1 };
  expect(
    await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(other), 1, {
      kind: 'unmatched',
      factoryId: 'f1',
      transfer: other,
    }),
  ).toBe(true);
  expect(
    await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(other), 1, {
      kind: 'unmatched',
      factoryId: 'f1',
      transfer: other,
    }),
  ).toBe(false);
  expect(await store.unmatched(OWNER, 'f1')).toEqual([other]);
  // The indexes: by reference, open per account and company, owners with open requests.
  expect(await store.getMany(OWNER, [PENDING.reference, 'NOSUCH22'])).toEqual([twice]);
  expect(await store.openCount(OWNER, 'account', ACCOUNT)).toBe(1);
  expect(await store.openCount(OWNER, 'company', 'f1')).toBe(1);
  expect(await store.owners()).toEqual([OWNER]);
  // A status stored with its deliveries (an expiry): both land, and the request leaves the open indexes.
  const expiredDelivery = { ...DELIVERY, id: 'msg_3' };
  await store.put({ ...twice, status: PaymentStatus.EXPIRED, closedAt: 5 }, [expiredDelivery]);
  expect((await store.get(OWNER, PENDING.reference))?.status).toBe('EXPIRED');
  expect((await store.outbox()).map((entry) => entry.id).sort()).toEqual([DELIVERY.id, expiredDelivery.id]);
  expect(await store.openCount(OWNER, 'account', ACCOUNT)).toBe(0);
  expect(await store.owners()).toEqual([]);
}

/** Open requests expire through the index; closed ones beyond the bound are pruned oldest first. */
async function boundsAndExpiries(store: PaymentStore): Promise<void> {
  const owner = 'owner-bounds';
  const at = (i: number): StoredRequest => ({
    ...PENDING,
    owner,
    reference: `REF${String(i).padStart(5, '0')}`,
    createdAt: i,
    expiresAt: 1000 + i,
  });
  for (let i = 0; i < 5; i += 1) await store.put(at(i));
  expect((await store.due(1002, 10)).map((due) => due.reference).sort()).toEqual(['REF00000', 'REF00001', 'REF00002']);
  expect(await store.due(1002, 2)).toHaveLength(2);
  // keptPerCompany is 3: the fourth closed request prunes the first one closed.
  for (let i = 0; i < 4; i += 1) await store.put({ ...at(i), status: PaymentStatus.CANCELLED, closedAt: 2000 + i });
  expect((await store.list(owner, 'f1')).map((r) => r.reference).sort()).toEqual([
    'REF00001',
    'REF00002',
    'REF00003',
    'REF00004',
  ]);
  expect(await store.get(owner, 'REF00000')).toBeNull();
  expect((await store.open(owner)).map((r) => r.reference)).toEqual(['REF00004']);
  expect((await store.due(5000, 10)).map((due) => due.reference)).toEqual(['REF00004']);
}

describe('the file payment store', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'payment-store-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('counts a transfer occurrence once, with its change', async () => {
    const store = await FilePaymentStore.open(join(folder, 'payments.json'), testStoreOptions());
    await recordsOnce(store);
    await store.close();
  });

  it('bounds closed requests per company and finds expiries by index', async () => {
    const store = await FilePaymentStore.open(join(folder, 'payments.json'), testStoreOptions({ keptPerCompany: 3 }));
    await boundsAndExpiries(store);
    await store.close();
    // The journal replays to the same state.
    const reopened = await FilePaymentStore.open(
      join(folder, 'payments.json'),
      testStoreOptions({ keptPerCompany: 3 }),
    );
    expect((await reopened.list('owner-bounds', 'f1')).map((r) => r.reference).sort()).toEqual([
      'REF00001',
      'REF00002',
      'REF00003',
      'REF00004',
    ]);
    await reopened.close();
  });

  it('makes its folder on a first start, and a failed write fails only its own change', async () => {
    const path = join(folder, 'new', 'payments.json');
    const store = await FilePaymentStore.open(path, testStoreOptions());
    await store.put(PENDING);
    expect(await readFile(path, 'utf8')).toContain(PENDING.reference);
    await rm(join(folder, 'new'), { recursive: true });
    await expect(store.put({ ...PENDING, amount: PENDING.amount + 1 })).rejects.toThrow(/ENOENT/);
    await mkdir(join(folder, 'new'));
    await store.put(PENDING);
    expect(await readFile(path, 'utf8')).toContain(PENDING.reference);
    await store.close();
  });

  it('appends each change as lines (the count, the paid request and its delivery in one write), never rewriting the file', async () => {
    const path = join(folder, 'payments.json');
    const store = await FilePaymentStore.open(path, testStoreOptions());
    await store.put(PENDING);
    const before = await readFile(path, 'utf8');
    await store.recordTransfer(
      OWNER,
      ACCOUNT,
      transferFingerprint(TRANSFER),
      1,
      { kind: 'request', request: PAID_PART },
      [DELIVERY],
    );
    await store.close();
    const after = await readFile(path, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const added = after
      .slice(before.length)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { op: string; v?: { status?: string } });
    expect(added.map((line) => line.op)).toEqual(['seen', 'request', 'outbox']);
    expect(added[1]?.v?.status).toBe('PARTIALLY_PAID');
    // A new process reads it all back.
    const reopened = await FilePaymentStore.open(path, testStoreOptions());
    expect(await reopened.recordTransfer(OWNER, ACCOUNT, transferFingerprint(TRANSFER), 1, { kind: 'none' })).toBe(
      false,
    );
    expect(await reopened.outbox()).toEqual([DELIVERY]);
    await reopened.close();
  });

  it('compacts the journal from memory once it holds far more lines than live records', async () => {
    const path = join(folder, 'payments.json');
    const store = await FilePaymentStore.open(path, testStoreOptions());
    for (let i = 0; i < 600; i += 1) {
      await store.put(PENDING, [DELIVERY]);
      await store.removeOutbox(DELIVERY.id);
    }
    await store.close();
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines.length).toBeLessThan(1000);
    const reopened = await FilePaymentStore.open(path, testStoreOptions());
    expect(await reopened.get(OWNER, PENDING.reference)).toEqual(PENDING);
    expect(await reopened.outbox()).toEqual([]);
    await reopened.close();
  });

  it('refuses, reports and keeps a request or outbox entry whose MAC does not verify', async () => {
    const path = join(folder, 'payments.json');
    const store = await FilePaymentStore.open(path, testStoreOptions());
    await store.put(PENDING, [DELIVERY]);
    await store.close();
    // An edit: the outbox entry now claims payment.paid and another URL; the request a lower amount.
    const edited = (await readFile(path, 'utf8'))
      .replace('payment.partially_paid', 'payment.paid')
      .replace('"amount":100', '"amount":1');
    await writeFile(path, edited);
    const options = testStoreOptions();
    const reopened = await FilePaymentStore.open(path, options);
    expect(await reopened.get(OWNER, PENDING.reference)).toBeNull();
    expect(await reopened.outbox()).toEqual([]);
    expect(options.refused).toEqual([`payment-request ${PENDING.reference}`, `outbox ${DELIVERY.id}`]);
    // Left alone: the edited lines stay in the file, through further writes.
    await reopened.put({ ...PENDING, reference: 'OTHER234' });
    await reopened.close();
    expect((await readFile(path, 'utf8')).startsWith(edited)).toBe(true);
  });
});

describeWithRedis('the Redis payment store', () => {
  let redis: TestRedis;
  let store: RedisPaymentStore;
  let options: ReturnType<typeof testStoreOptions>;
  beforeAll(async () => {
    redis = await startTestRedis();
    options = testStoreOptions({ keptPerCompany: 3 });
    store = new RedisPaymentStore(redis.url, `statev-payment-store-${process.pid}:`, options);
  });
  afterAll(async () => {
    await store.close();
    await redis.stop();
  });

  it('counts a transfer occurrence once, with its change', async () => {
    await recordsOnce(store);
  });

  it('bounds closed requests per company and finds expiries by index', async () => {
    await boundsAndExpiries(store);
  });

  it('refuses and reports an edited request or outbox entry, and leaves it in Redis', async () => {
    const prefix = `statev-payment-store-${process.pid}:`;
    const raw = new Redis(redis.url);
    await store.put({ ...PENDING, owner: 'owner-mac' }, [{ ...DELIVERY, id: 'msg_mac' }]);
    const key = `${prefix}payments:requests:owner-mac`;
    const text = (await raw.hget(key, PENDING.reference)) ?? '';
    await raw.hset(key, PENDING.reference, text.replace('"amount":100', '"amount":1'));
    const entry = (await raw.hget(`${prefix}payments:outbox`, 'msg_mac')) ?? '';
    await raw.hset(
      `${prefix}payments:outbox`,
      'msg_mac',
      entry.replace('https://shop.example/hooks', 'http://10.0.0.1/'),
    );
    expect(await store.get('owner-mac', PENDING.reference)).toBeNull();
    expect((await store.outbox()).map((each) => each.id)).not.toContain('msg_mac');
    expect(options.refused).toEqual(
      expect.arrayContaining([expect.stringMatching(/^payment-request ABCD2345 of owner-ma/), 'outbox msg_mac']),
    );
    expect(await raw.hexists(key, PENDING.reference)).toBe(1);
    raw.disconnect();
  });
});
