/**
 * The payment desk on its own (no upstream): matching pages of transactions to requests,
 * each transfer once (also after a restart from the file), sums and statuses, expiry,
 * cancellation, unmatched transfers, and the window-overrun warning.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentDesk } from '../../src/domains/payments/payment-request.service';
import { FilePaymentStore } from '../../src/domains/payments/payment-request.file-store';
import type { StoredEvent } from '../../src/domains/payments/payment-request.store';
import type { BankTransaction, TransactionPage } from '../../src/domains/shared/bank-account.type';
import { testStoreOptions } from '../support/payment-store';

const OWNER = 'key-hash-1';
const CALLER = { apiKey: 'unused', keyId: OWNER };
const VBAN = '4711002';
const ACCOUNT = 'acc-1';
const T0 = Date.parse('2026-11-26T10:00:00Z');

function incoming(amount: number, reference: string | null, at: number, sender = '4799001'): BankTransaction {
  return { amount, reference, senderVban: sender, receiverVban: VBAN, timestamp: new Date(at) };
}

function page(total: number, transactions: BankTransaction[]): TransactionPage {
  return {
    totalTransactions: total,
    transactions: [...transactions].sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime()),
  };
}

describe('payment desk', () => {
  let folder: string;
  let now: number;
  let desk: PaymentDesk;
  let events: StoredEvent[];

  async function open(file: string | null): Promise<PaymentDesk> {
    const opened = new PaymentDesk(await FilePaymentStore.open(file, testStoreOptions()), { now: () => now });
    opened.store.onEvent((event) => events.push(event));
    return opened;
  }

  async function request(amount: number, expiresInSeconds: number | null = null): Promise<string> {
    return (
      await desk.create(CALLER, {
        factoryId: 'f1',
        bankAccountId: ACCOUNT,
        vban: VBAN,
        amount,
        expiresInSeconds,
        note: null,
      })
    ).reference;
  }

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'payments-'));
    now = T0;
    events = [];
    desk = await open(null);
  });

  afterEach(async () => {
    await desk.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('adds transfers up: PENDING → PARTIALLY_PAID → PAID, then OVERPAID, each change an event', async () => {
    const code = await request(100);
    const first = incoming(40, `Order ${code.toLowerCase()}`, T0 + 1);
    await desk.observe(OWNER, ACCOUNT, VBAN, page(1, [first]), null);
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'PARTIALLY_PAID', transfers: [{ amount: 40 }] });
    await desk.observe(
      OWNER,
      ACCOUNT,
      VBAN,
      page(2, [incoming(60, code.slice(0, 4) + ' ' + code.slice(4), T0 + 2), first]),
      null,
    );
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'PAID', settledAt: T0 });
    await desk.observe(OWNER, ACCOUNT, VBAN, page(3, [incoming(0.01, code, T0 + 3)]), null);
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'OVERPAID' });
    expect(events.map((e) => e.kind)).toEqual(['PARTIALLY_PAID', 'PAID', 'OVERPAID']);
  });

  it('counts a transfer seen again (same sender, reference, amount, timestamp) once, also after a restart', async () => {
    const file = join(folder, 'payments.json');
    await desk.close();
    desk = await open(file);
    const code = await request(100);
    const first = page(1, [incoming(30, code, T0 + 1)]);
    await desk.observe(OWNER, ACCOUNT, VBAN, first, null);
    await desk.observe(OWNER, ACCOUNT, VBAN, first, null);
    await desk.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    desk = await open(file);
    await desk.observe(OWNER, ACCOUNT, VBAN, first, null);
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'PARTIALLY_PAID', transfers: [{ amount: 30 }] });
    // A different timestamp is a different transfer.
    await desk.observe(OWNER, ACCOUNT, VBAN, page(2, [incoming(30, code, T0 + 2), incoming(30, code, T0 + 1)]), null);
    expect((await desk.get(OWNER, code))?.transfers).toHaveLength(2);
  });

  it('ignores outgoing money and other receivers; lists incoming transfers without a request as unmatched', async () => {
    const code = await request(10);
    const outgoing: BankTransaction = {
      amount: 10,
      reference: code,
      senderVban: VBAN,
      receiverVban: '4799001',
      timestamp: new Date(T0 + 1),
    };
    const elsewhere: BankTransaction = { ...incoming(10, code, T0 + 2), receiverVban: '4799999' };
    const stranger = incoming(25, 'rent November', T0 + 3);
    const old = incoming(5, 'before any request', T0 - 60_000);
    await desk.observe(OWNER, ACCOUNT, VBAN, page(4, [outgoing, elsewhere, stranger, old]), null);
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'PENDING' });
    expect(await desk.unmatched(OWNER, 'f1')).toEqual([
      { amount: 25, reference: 'rent November', senderVban: '4799001', timestamp: T0 + 3 },
    ]);
  });

  it('finds a request by its reference written loosely, and only for its owner', async () => {
    const code = await request(10);
    expect(await desk.get(OWNER, ` ${code.slice(0, 3).toLowerCase()}-${code.slice(3)} `)).toMatchObject({
      reference: code,
    });
    expect(await desk.get('someone-else', code)).toBeNull();
  });

  it('expires an unpaid request at expiresAt (one EXPIRED event); a transfer after that is unmatched', async () => {
    const code = await request(10, 60);
    now = T0 + 59_999;
    await desk.sweep();
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'PENDING' });
    now = T0 + 60_000;
    await desk.sweep();
    await desk.sweep();
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'EXPIRED' });
    expect(events.map((e) => e.kind)).toEqual(['EXPIRED']);
    await desk.observe(OWNER, ACCOUNT, VBAN, page(1, [incoming(10, code, now + 1)]), null);
    expect(await desk.get(OWNER, code)).toMatchObject({ status: 'EXPIRED', transfers: [] });
    expect(await desk.unmatched(OWNER, 'f1')).toHaveLength(1);
  });

  it('cancels an open request (CANCELLED), and refuses to cancel it twice', async () => {
    const code = await request(10);
    expect(await desk.cancel(OWNER, code.toLowerCase())).toMatchObject({ status: 'CANCELLED' });
    await expect(desk.cancel(OWNER, code)).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
    await expect(desk.cancel(OWNER, 'ZZZZZZZZ')).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });

  it('warns WINDOW_OVERRUN when more arrived between two polls than 25 + skip 200 show', async () => {
    await request(10);
    await desk.observe(OWNER, ACCOUNT, VBAN, page(10, []), null);
    expect(await desk.warningFor(OWNER, ACCOUNT)).toBeNull();
    await desk.observe(OWNER, ACCOUNT, VBAN, page(10 + 225, []), null);
    expect(await desk.warningFor(OWNER, ACCOUNT)).toBeNull();
    await desk.observe(OWNER, ACCOUNT, VBAN, page(10 + 225 + 226, []), null);
    expect(await desk.warningFor(OWNER, ACCOUNT)).toMatchObject({ code: 'WINDOW_OVERRUN', bankAccountId: ACCOUNT });
  });
});
