/**
 * The payment desk's bounds and counting: identical transfers counted as a multiset (two on
 * one page count twice, one seen again on a later poll or after a restart counts once), the
 * bound on open requests per company, a poll that reads the requests it may pay once by
 * reference (never the whole store), and expiries found through the store's index.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentDesk } from '../../src/domains/payments/payment-request.service';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import { referencesIn, withTransfer } from '../../src/domains/payments/payment-request.matching';
import type { BankTransaction, TransactionPage } from '../../src/domains/shared/bank-account.type';
import { testStoreOptions } from '../support/payment-store';

const OWNER = 'key-hash-bounds';
const CALLER = { apiKey: 'unused', keyId: OWNER };
const VBAN = '4711002';
const ACCOUNT = 'acc-1';
const T0 = Date.parse('2026-11-26T10:00:00Z');

function incoming(amount: number, reference: string | null, at: number): BankTransaction {
  return { amount, reference, senderVban: '4799001', receiverVban: VBAN, timestamp: new Date(at) };
}

function page(total: number, transactions: BankTransaction[]): TransactionPage {
  return { totalTransactions: total, transactions };
}

describe('payment desk bounds and counting', () => {
  let folder: string;
  let now: number;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'payments-bounds-'));
    now = T0;
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  async function open(file: string | null, openMax?: number): Promise<PaymentDesk> {
    return new PaymentDesk(await FilePaymentStore.open(file, testStoreOptions()), { now: () => now, openMax });
  }

  it('counts two identical transfers on one page twice, and a transfer seen again once, across a restart', async () => {
    const file = join(folder, 'payments.json');
    let desk = await open(file);
    const { reference } = await desk.create(CALLER, {
      factoryId: 'f1',
      bankAccountId: ACCOUNT,
      vban: VBAN,
      amount: 150,
      expiresInSeconds: null,
      note: null,
    });
    // An upstream with whole-second timestamps: the same sender, reference, amount and second.
    const same = incoming(50, reference, T0 + 1000);
    await desk.observe(OWNER, ACCOUNT, VBAN, page(2, [same, { ...same }]), null);
    expect(await desk.get(OWNER, reference)).toMatchObject({
      status: 'PARTIALLY_PAID',
      transfers: [{ amount: 50 }, { amount: 50 }],
    });
    // The next poll shows both again: nothing new.
    await desk.observe(OWNER, ACCOUNT, VBAN, page(2, [same, { ...same }]), null);
    expect((await desk.get(OWNER, reference))?.transfers).toHaveLength(2);
    await desk.close();
    // After a restart, a third identical one arrives: it alone counts.
    desk = await open(file);
    await desk.observe(OWNER, ACCOUNT, VBAN, page(3, [same, { ...same }, { ...same }]), null);
    expect(await desk.get(OWNER, reference)).toMatchObject({ status: 'PAID', transfers: [{}, {}, {}] });
    // One of them scrolled out of sight: still three.
    await desk.observe(OWNER, ACCOUNT, VBAN, page(4, [same]), null);
    expect((await desk.get(OWNER, reference))?.transfers).toHaveLength(3);
    await desk.close();
  });

  it('refuses more open requests per company than the bound, until one closes', async () => {
    const desk = await open(null, 2);
    const input = {
      factoryId: 'f1',
      bankAccountId: ACCOUNT,
      vban: VBAN,
      amount: 5,
      expiresInSeconds: null,
      note: null,
    };
    const first = await desk.create(CALLER, input);
    await desk.create(CALLER, input);
    await expect(desk.create(CALLER, input)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(desk.checkRoom(OWNER, 'f1')).rejects.toThrow(/PAYMENT_OPEN_REQUESTS_MAX/);
    // Another company of the same key has its own bound.
    await expect(desk.create(CALLER, { ...input, factoryId: 'f2' })).resolves.toMatchObject({ status: 'PENDING' });
    await desk.cancel(OWNER, first.reference);
    await expect(desk.create(CALLER, input)).resolves.toMatchObject({ status: 'PENDING' });
    await desk.close();
  });

  it('reads the requests a poll may pay once, by reference, and expires through the index', async () => {
    const desk = await open(null);
    const references: string[] = [];
    for (let i = 0; i < 30; i += 1)
      references.push(
        (
          await desk.create(CALLER, {
            factoryId: 'f1',
            bankAccountId: ACCOUNT,
            vban: VBAN,
            amount: 10,
            expiresInSeconds: i < 5 ? 60 : null,
            note: null,
          })
        ).reference,
      );
    const getMany = jest.spyOn(desk.store, 'getMany');
    const get = jest.spyOn(desk.store, 'get');
    const list = jest.spyOn(desk.store, 'list');
    const transfers = references
      .slice(0, 20)
      .map((reference, i) => incoming(10, `Invoice ${reference.toLowerCase()}`, T0 + i));
    await desk.observe(OWNER, ACCOUNT, VBAN, page(20, transfers), null);
    expect(getMany).toHaveBeenCalledTimes(1);
    // The codes of the page (and any other valid code a text happens to hold), never the 30 requests.
    expect(getMany.mock.calls[0]?.[1]).toEqual(expect.arrayContaining(references.slice(0, 20)));
    expect(getMany.mock.calls[0]?.[1]).not.toContain(references[25]);
    expect(get).not.toHaveBeenCalled();
    expect(list).not.toHaveBeenCalled();
    expect((await desk.list(OWNER, 'f1', null)).filter((r) => r.status === 'PAID')).toHaveLength(20);
    // The five expiring ones were paid; of the rest none expires: a sweep reads nothing.
    get.mockClear();
    now += 61_000;
    await desk.sweep();
    expect(get).not.toHaveBeenCalled();
    await desk.close();
  });

  it('finds every valid reference in a transfer text, and nothing in other text', () => {
    expect(referencesIn(null)).toEqual([]);
    expect(referencesIn('thanks!')).toEqual([]);
    const code = 'K7M2QX9P';
    expect(referencesIn(`Invoice ${code.slice(0, 4)}-${code.slice(4)}`)).toEqual(referencesIn(code));
  });

  it('gives no event for a transfer that rounds to less than a cent', () => {
    const request = {
      owner: OWNER,
      reference: 'X',
      factoryId: 'f1',
      bankAccountId: ACCOUNT,
      vban: VBAN,
      amount: 1,
      status: 'PENDING' as never,
      transfers: [],
      note: null,
      createdAt: T0,
      expiresAt: null,
      settledAt: null,
    };
    expect(
      withTransfer(request, { amount: 0.001, senderVban: null, reference: 'X', timestamp: T0 }, T0).event,
    ).toBeNull();
    expect(withTransfer(request, { amount: 1, senderVban: null, reference: 'X', timestamp: T0 }, T0)).toMatchObject({
      event: { kind: 'PAID' },
      request: { closedAt: T0 },
    });
  });
});
