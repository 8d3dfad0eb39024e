/**
 * Assigning an unmatched transfer by hand (the console's Payments page): the transfer moves
 * onto an open request of its company through the store's own recording step, so the request
 * becomes PARTIALLY_PAID or PAID as if it had matched, its event is published (dispatchers
 * queue its webhook deliveries), the transfer leaves the unmatched list once (also after a
 * restart, and when two replicas assign it at the same time), later polls do not count it
 * again; unknown transfers and requests are NOT_FOUND, a request no longer open CONFLICT.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assignTransfer, transferId } from '../../src/admin/payment-assign';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import { RedisPaymentStore } from '../../src/domains/payments/payment-request.redis-store';
import { transferFingerprint } from '../../src/domains/payments/payment-request.store';
import type {
  PaymentStore,
  StoredEvent,
  StoredRequest,
  StoredTransfer,
} from '../../src/domains/payments/payment-request.store';
import { PaymentStatus } from '../../src/domains/payments/payment-request.type';
import { testStoreOptions } from '../support/payment-store';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

const OWNER = 'owner-1';
const ACCOUNT = 'acc-1';
const NOW = 1_700_000_100_000;
const TRANSFER: StoredTransfer = {
  amount: 40,
  senderVban: '4799001',
  reference: 'forgot the code',
  timestamp: 1_700_000_000_000,
};
const REQUEST: StoredRequest = {
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

/** A store with an open request and the transfer twice in the company's unmatched list (two identical transfers), plus a paid request. */
async function seed(store: PaymentStore): Promise<void> {
  await store.put(REQUEST);
  await store.put({
    ...REQUEST,
    reference: 'PAID2345',
    status: PaymentStatus.PAID,
    transfers: [{ ...TRANSFER, amount: 100 }],
    settledAt: NOW,
    closedAt: NOW,
  });
  for (const occurrence of [1, 2])
    await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(TRANSFER), occurrence, {
      kind: 'unmatched',
      factoryId: 'f1',
      transfer: TRANSFER,
    });
}

const assignment = { owner: OWNER, factoryId: 'f1', transferId: transferId(TRANSFER), reference: 'abcd-2345' };

async function refusal(run: Promise<unknown>): Promise<string | undefined> {
  try {
    await run;
  } catch (error) {
    return (error as { extensions?: { code?: string } }).extensions?.code;
  }
  return undefined;
}

/** The same cases for each store. */
async function assignsOnce(store: PaymentStore): Promise<void> {
  const events: StoredEvent[] = [];
  const stop = store.onEvent((event) => events.push(event));
  const first = await assignTransfer(store, assignment, NOW);
  expect(first).toMatchObject({ status: PaymentStatus.PARTIALLY_PAID, transfers: [TRANSFER] });
  expect(await store.get(OWNER, 'ABCD2345')).toEqual(first);
  expect(await store.unmatched(OWNER, 'f1')).toEqual([TRANSFER]); // one copy of the two left
  // The second identical transfer, then the request is paid in full by a third.
  expect((await assignTransfer(store, assignment, NOW)).transfers).toHaveLength(2);
  expect(await store.unmatched(OWNER, 'f1')).toEqual([]);
  expect(await refusal(assignTransfer(store, assignment, NOW))).toBe('NOT_FOUND');
  const last = { ...TRANSFER, amount: 20, timestamp: TRANSFER.timestamp + 5 };
  await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(last), 1, {
    kind: 'unmatched',
    factoryId: 'f1',
    transfer: last,
  });
  expect((await assignTransfer(store, { ...assignment, transferId: transferId(last) }, NOW)).status).toBe(
    PaymentStatus.PAID,
  );
  // A poll seeing the transfers again counts nothing.
  expect(
    await store.recordTransfer(OWNER, ACCOUNT, transferFingerprint(TRANSFER), 2, {
      kind: 'unmatched',
      factoryId: 'f1',
      transfer: TRANSFER,
    }),
  ).toBe(false);
  await new Promise<void>((resolve) => setImmediate(resolve));
  stop();
  expect(events.map((event) => [event.kind, event.outboxed])).toEqual(
    expect.arrayContaining([
      ['PARTIALLY_PAID', false],
      ['PAID', false],
    ]),
  );
}

async function refuses(store: PaymentStore): Promise<void> {
  expect(await refusal(assignTransfer(store, { ...assignment, transferId: 'trf_unknown' }, NOW))).toBe('NOT_FOUND');
  expect(await refusal(assignTransfer(store, { ...assignment, reference: 'ZZZZ2345' }, NOW))).toBe('NOT_FOUND');
  expect(await refusal(assignTransfer(store, { ...assignment, factoryId: 'f2' }, NOW))).toBe('NOT_FOUND');
  expect(await refusal(assignTransfer(store, { ...assignment, reference: 'PAID2345' }, NOW))).toBe('CONFLICT');
  await store.put({ ...REQUEST, reference: 'LATE2345', expiresAt: NOW - 1 });
  expect(await refusal(assignTransfer(store, { ...assignment, reference: 'LATE2345' }, NOW))).toBe('CONFLICT');
  expect(await store.unmatched(OWNER, 'f1')).toHaveLength(2); // nothing moved
}

describe('assigning an unmatched transfer in the file store', () => {
  it('moves it onto the request once, also after a restart', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'assign-')), 'payments.json');
    const store = await FilePaymentStore.open(path, testStoreOptions());
    await seed(store);
    await assignTransfer(store, assignment, NOW);
    await store.close();
    const reopened = await FilePaymentStore.open(path, testStoreOptions());
    expect(await reopened.unmatched(OWNER, 'f1')).toEqual([TRANSFER]);
    expect((await reopened.get(OWNER, 'ABCD2345'))?.status).toBe(PaymentStatus.PARTIALLY_PAID);
    await reopened.close();
  });

  it('counts each copy once and publishes the status change', async () => {
    const store = await FilePaymentStore.open(null, testStoreOptions());
    await seed(store);
    await assignsOnce(store);
    await store.close();
  });

  it('refuses an unknown transfer or request and a request no longer open', async () => {
    const store = await FilePaymentStore.open(null, testStoreOptions());
    await seed(store);
    await refuses(store);
    await store.close();
  });
});

describeWithRedis('assigning an unmatched transfer in the Redis store', () => {
  let redis: TestRedis;
  let stores: RedisPaymentStore[] = [];
  let n = 0;
  const open = (): RedisPaymentStore[] => {
    n += 1;
    const prefix = `assign-${process.pid}-${n}:`;
    stores = [
      new RedisPaymentStore(redis.url, prefix, testStoreOptions()),
      new RedisPaymentStore(redis.url, prefix, testStoreOptions()),
    ];
    return stores;
  };
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('counts each copy once and publishes the status change', async () => {
    const [store] = open();
    await seed(store!);
    await assignsOnce(store!);
  });

  it('assigns a transfer once when two replicas assign it at the same time', async () => {
    const [a, b] = open();
    await seed(a!);
    const single = { ...TRANSFER, amount: 7, timestamp: TRANSFER.timestamp + 9 };
    await a!.recordTransfer(OWNER, ACCOUNT, transferFingerprint(single), 1, {
      kind: 'unmatched',
      factoryId: 'f1',
      transfer: single,
    });
    const both = await Promise.allSettled(
      [a!, b!].map((store) => assignTransfer(store, { ...assignment, transferId: transferId(single) }, NOW)),
    );
    expect(both.filter((each) => each.status === 'fulfilled')).toHaveLength(1);
    expect((await b!.get(OWNER, 'ABCD2345'))?.transfers).toEqual([single]);
  });

  it('refuses an unknown transfer or request and a request no longer open', async () => {
    const [store] = open();
    await seed(store!);
    await refuses(store!);
  });
});
