/** The change detection of every subscription, as pure functions. */
import type { BankTransaction, TransactionPage } from '../../src/domains/shared/bank-account.type';
import { diffRooms } from '../../src/domains/buildings/room.subscription';
import { diffCounter } from '../../src/domains/factories/counter.subscription';
import { optionChanged } from '../../src/domains/factories/factory-option.subscription';
import { diffInventory } from '../../src/domains/factories/inventory.subscription';
import { diffAuctions } from '../../src/domains/market/auction.subscription';
import { TransactionLedger } from '../../src/domains/bank-accounts/transaction-ledger';
import type { Room } from '../../src/domains/buildings/building.type';

const item = (name: string, amount: number) => ({
  item: name,
  amount,
  singleWeight: 1,
  totalWeight: amount,
  icon: null,
});
const booking = (minute: number, amount: number, reference = 'Miete'): BankTransaction => ({
  senderVban: '1',
  receiverVban: '2',
  reference,
  amount,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, minute)),
});
const page = (transactions: BankTransaction[], total = transactions.length): TransactionPage => ({
  totalTransactions: total,
  transactions,
});

describe('diffInventory', () => {
  it('sums stacks of one item and reports new, changed and gone items', () => {
    const before = [item('Wasser', 5), item('Wasser', 5), item('Brot', 2)];
    const after = [item('Wasser', 7), item('Milch', 1)];
    expect(diffInventory(before, after)).toEqual([
      { item: 'Wasser', before: 10, after: 7, delta: -3 },
      { item: 'Milch', before: 0, after: 1, delta: 1 },
      { item: 'Brot', before: 2, after: 0, delta: -2 },
    ]);
    expect(diffInventory(before, [item('Wasser', 4), item('Brot', 2), item('Wasser', 6)])).toEqual([]);
  });
});

describe('diffCounter', () => {
  it('reports amount and price changes, new and removed items with nulls', () => {
    const shelf = (name: string, amount: number, price: number) => ({ ...item(name, amount), price });
    expect(
      diffCounter([shelf('Wasser', 5, 2), shelf('Brot', 1, 3)], [shelf('Wasser', 5, 2.5), shelf('Milch', 4, 1)]),
    ).toEqual([
      { item: 'Wasser', amountBefore: 5, amountAfter: 5, priceBefore: 2, priceAfter: 2.5 },
      { item: 'Milch', amountBefore: null, amountAfter: 4, priceBefore: null, priceAfter: 1 },
      { item: 'Brot', amountBefore: 1, amountAfter: null, priceBefore: 3, priceAfter: null },
    ]);
  });
});

describe('TransactionLedger', () => {
  it('finds new transactions by position and content, oldest first, and never reports one twice', () => {
    const ledger = new TransactionLedger();
    const old = [booking(3, 30), booking(2, 20), booking(1, 10)];
    ledger.baseline(page(old));
    const next = [booking(5, 50), booking(4, 40), ...old];
    expect(ledger.added(page(next)).map((t) => t.amount)).toEqual([40, 50]);
    expect(ledger.added(page(next))).toEqual([]);
  });

  it('tells an identical second booking from the first by position and count', () => {
    const ledger = new TransactionLedger();
    ledger.baseline(page([booking(1, 10)]));
    const twin = booking(1, 10);
    expect(ledger.added(page([twin, booking(1, 10)]))).toEqual([twin]);
    expect(ledger.added(page([booking(1, 10), booking(1, 10)]))).toEqual([]);
  });

  it('accepts pages ordered oldest first, and pages where the old ones scrolled off', () => {
    const ledger = new TransactionLedger();
    ledger.baseline(page([booking(1, 10), booking(2, 20)]));
    expect(ledger.added(page([booking(1, 10), booking(2, 20), booking(3, 30)])).map((t) => t.amount)).toEqual([30]);
    const full = Array.from({ length: 25 }, (_, i) => booking(100 - i, 100 - i));
    expect(ledger.added(page(full, 40))).toHaveLength(25);
    expect(ledger.added(page(full, 40))).toEqual([]);
  });
});

describe('diffAuctions', () => {
  const auction = (id: string, bidAmount: number, isLastBidderMe: boolean) => ({
    id,
    item: 'Stahl',
    bidAmount,
    isLastBidderMe,
    auctionEnd: new Date(0),
    icon: null,
  });
  it('reports NEW, OUTBID, LEADING, BID_CHANGED and ENDED', () => {
    const before = [auction('a', 10, true), auction('b', 10, false), auction('c', 10, true), auction('d', 5, false)];
    const after = [auction('a', 12, false), auction('b', 11, true), auction('c', 15, true), auction('e', 1, true)];
    expect(
      diffAuctions(before, after).map((change) => [change.kind, change.auction.id, change.previousBidAmount]),
    ).toEqual([
      ['OUTBID', 'a', 10],
      ['LEADING', 'b', 10],
      ['BID_CHANGED', 'c', 10],
      ['NEW', 'e', null],
      ['ENDED', 'd', null],
    ]);
  });
});

describe('diffRooms and optionChanged', () => {
  const room = (id: string, occupied: boolean, rent: number) => ({ id, occupied, rent }) as Room;
  it('reports occupancy and rent changes', () => {
    expect(
      diffRooms([room('r1', false, 100), room('r2', true, 200)], [room('r1', true, 100), room('r2', false, 250)]).map(
        (c) => [c.kind, c.room.id, c.previousRent],
      ),
    ).toEqual([
      ['OCCUPIED', 'r1', null],
      ['FREED', 'r2', null],
      ['RENT_CHANGED', 'r2', 200],
    ]);
  });

  it('tells written and cleared slots from unchanged ones', () => {
    const slot = (title: string) => ({ slot: 1, title, data: 'd', lastUpdated: new Date(0) });
    expect(optionChanged(null, slot('a'))).toBe(true);
    expect(optionChanged(slot('a'), null)).toBe(true);
    expect(optionChanged(slot('a'), slot('a'))).toBe(false);
    expect(optionChanged(slot('a'), slot('b'))).toBe(true);
    expect(optionChanged(null, null)).toBe(false);
  });
});
