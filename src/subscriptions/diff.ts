/**
 * The change detection behind every subscription: pure functions from two successive
 * poll results to what changed. A poller computes each diff once per poll and hands
 * the result to every subscriber of its key and resource.
 */
import type { MyExportAuction, MyImportAuction } from '../domains/market/auction.type';
import type { Room } from '../domains/buildings/building.type';
import type { BankTransaction, TransactionPage } from '../domains/shared/bank-account.type';
import type { CounterItem } from '../domains/factories/counter.type';
import type { FactoryOption } from '../domains/factories/factory-option.type';
import type { InventoryItem } from '../domains/factories/inventory.type';

/** One item whose summed amount changed in a store: `before` 0 = new item, `after` 0 = item gone. */
export interface AmountChange {
  item: string;
  before: number;
  after: number;
  delta: number;
}

function sumByItem(items: readonly Pick<InventoryItem, 'item' | 'amount'>[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const { item, amount } of items) sums.set(item, (sums.get(item) ?? 0) + amount);
  return sums;
}

/** Rounds away float noise of summed amounts (weights and amounts have at most a few decimals). */
function clean(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * The items of a store whose summed amount changed (stacks of one item are added up),
 * in the order of the new store, then the items that disappeared.
 */
export function diffInventory(before: readonly InventoryItem[], after: readonly InventoryItem[]): AmountChange[] {
  const old = sumByItem(before);
  const now = sumByItem(after);
  const changes: AmountChange[] = [];
  for (const [item, amount] of now) {
    const previous = old.get(item) ?? 0;
    if (clean(amount) !== clean(previous)) changes.push({ item, before: previous, after: amount, delta: clean(amount - previous) });
  }
  for (const [item, amount] of old) {
    if (!now.has(item) && clean(amount) !== 0) changes.push({ item, before: amount, after: 0, delta: clean(-amount) });
  }
  return changes;
}

/** One counter item that appeared, disappeared, or changed amount or price; null = not on the counter. */
export interface CounterDiff {
  item: string;
  amountBefore: number | null;
  amountAfter: number | null;
  priceBefore: number | null;
  priceAfter: number | null;
}

/** The counter items that appeared, disappeared, or changed amount or price (items keyed by name). */
export function diffCounter(before: readonly CounterItem[], after: readonly CounterItem[]): CounterDiff[] {
  const old = new Map(before.map((entry) => [entry.item, entry] as const));
  const now = new Map(after.map((entry) => [entry.item, entry] as const));
  const changes: CounterDiff[] = [];
  for (const [item, entry] of now) {
    const previous = old.get(item);
    if (previous && previous.amount === entry.amount && previous.price === entry.price) continue;
    changes.push({
      item,
      amountBefore: previous?.amount ?? null,
      amountAfter: entry.amount,
      priceBefore: previous?.price ?? null,
      priceAfter: entry.price,
    });
  }
  for (const [item, entry] of old) {
    if (!now.has(item)) changes.push({ item, amountBefore: entry.amount, amountAfter: null, priceBefore: entry.price, priceAfter: null });
  }
  return changes;
}

/** The content of a transaction, its only identity (the upstream gives transactions no id). */
export function transactionFingerprint(t: BankTransaction): string {
  return JSON.stringify([t.senderVban, t.receiverVban, t.reference ?? '', t.amount, t.timestamp.getTime()]);
}

/** Newest first, whatever order the upstream used (its ordering is not documented). */
function newestFirst(list: readonly BankTransaction[]): BankTransaction[] {
  const first = list[0];
  const last = list[list.length - 1];
  return first && last && first.timestamp.getTime() < last.timestamp.getTime() ? [...list].reverse() : [...list];
}

/**
 * Remembers which transactions of one account were seen, by content and count, so
 * that none is ever reported twice. Bounded: the oldest fingerprints are forgotten
 * once more than `capacity` are held (far more than the 25 a page holds).
 */
export class TransactionLedger {
  private readonly seen = new Map<string, number>();
  private previous: BankTransaction[] = [];
  private total: number | null = null;

  constructor(private readonly capacity = 1000) {}

  /** Takes the first page as the baseline: nothing on it is new. */
  baseline(page: TransactionPage): void {
    this.previous = newestFirst(page.transactions);
    this.total = page.totalTransactions;
    for (const [fingerprint, count] of counts(this.previous)) this.remember(fingerprint, count);
  }

  /**
   * The transactions of `page` that were not there before, oldest first.
   *
   * By position: the previous page is looked for in the new one, shifted by the number
   * of transactions booked since (new ones come first, newest first); what lies before
   * it is new. When the previous page is no longer found (more new transactions than a
   * page holds), every transaction not seen before is new. In both cases a
   * transaction whose content was already reported as often as it now appears is left out.
   */
  added(page: TransactionPage): BankTransaction[] {
    const next = newestFirst(page.transactions);
    // The growth of the total says how many were booked (when nothing was deleted):
    // the previous page is looked for at that shift first.
    const booked = this.total === null ? 0 : page.totalTransactions - this.total;
    const shift = alignment(this.previous, next, Math.max(0, Math.min(booked, next.length)));
    const candidates = shift === null ? next : next.slice(0, shift);
    const pageCounts = counts(next);
    const fresh: BankTransaction[] = [];
    // Oldest first, so that events arrive in booking order.
    for (const transaction of [...candidates].reverse()) {
      const fingerprint = transactionFingerprint(transaction);
      const seen = this.seen.get(fingerprint) ?? 0;
      if (seen >= (pageCounts.get(fingerprint) ?? 0)) continue;
      this.remember(fingerprint, seen + 1);
      fresh.push(transaction);
    }
    this.previous = next;
    this.total = page.totalTransactions;
    return fresh;
  }

  /** The account's total at the last poll (for diagnostics). */
  get lastTotal(): number | null {
    return this.total;
  }

  private remember(fingerprint: string, count: number): void {
    this.seen.delete(fingerprint);
    this.seen.set(fingerprint, Math.max(count, 0));
    while (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
  }
}

function counts(list: readonly BankTransaction[]): Map<string, number> {
  const result = new Map<string, number>();
  for (const t of list) {
    const fingerprint = transactionFingerprint(t);
    result.set(fingerprint, (result.get(fingerprint) ?? 0) + 1);
  }
  return result;
}

/**
 * How many entries were put in front of `previous` to give `next` (both newest first):
 * the first shift from `expected` on (then from 0) at which every overlapping entry
 * matches, or null when none does. An empty previous page matches at shift
 * `next.length` (everything is new).
 */
function alignment(previous: readonly BankTransaction[], next: readonly BankTransaction[], expected: number): number | null {
  if (previous.length === 0) return next.length;
  const old = previous.map(transactionFingerprint);
  const now = next.map(transactionFingerprint);
  const shifts = [...Array.from({ length: now.length - expected }, (_, i) => expected + i), ...Array.from({ length: expected }, (_, i) => i)];
  for (const shift of shifts) {
    const overlap = Math.min(old.length, now.length - shift);
    let matches = true;
    for (let i = 0; i < overlap; i += 1) {
      if (now[shift + i] !== old[i]) {
        matches = false;
        break;
      }
    }
    if (matches) return shift;
  }
  return null;
}

/** The kinds of auction change, as `AuctionChangeKind` names them. */
export type AuctionChangeKindName = 'NEW' | 'OUTBID' | 'LEADING' | 'BID_CHANGED' | 'ENDED';

/** One of the character's auctions. */
export type MyAuctionValue = MyImportAuction | MyExportAuction;

/** A change of one of the character's auctions. */
export interface AuctionDiff<A extends MyAuctionValue> {
  kind: AuctionChangeKindName;
  auction: A;
  previousBidAmount: number | null;
}

/**
 * The changes of the character's auctions, matched by id: new ones, ended ones (gone
 * from the list; reported as last seen), a change of the highest bidder (OUTBID when
 * the character lost it, LEADING when it gained it) and a new bid with the same leader.
 */
export function diffAuctions<A extends MyAuctionValue>(before: readonly A[], after: readonly A[]): AuctionDiff<A>[] {
  const old = new Map(before.map((auction) => [auction.id, auction] as const));
  const now = new Set(after.map((auction) => auction.id));
  const changes: AuctionDiff<A>[] = [];
  for (const auction of after) {
    const previous = old.get(auction.id);
    if (!previous) {
      changes.push({ kind: 'NEW', auction, previousBidAmount: null });
    } else if (previous.isLastBidderMe !== auction.isLastBidderMe) {
      changes.push({ kind: auction.isLastBidderMe ? 'LEADING' : 'OUTBID', auction, previousBidAmount: previous.bidAmount });
    } else if (previous.bidAmount !== auction.bidAmount) {
      changes.push({ kind: 'BID_CHANGED', auction, previousBidAmount: previous.bidAmount });
    }
  }
  for (const auction of before) {
    if (!now.has(auction.id)) changes.push({ kind: 'ENDED', auction, previousBidAmount: null });
  }
  return changes;
}

/** The kinds of room change, as `RoomChangeKind` names them. */
export type RoomChangeKindName = 'OCCUPIED' | 'FREED' | 'RENT_CHANGED';

/** A change of one room. */
export interface RoomDiff {
  kind: RoomChangeKindName;
  room: Room;
  previousRent: number | null;
}

/**
 * Rooms that became occupied or free, or whose rent changed (one change each; a room
 * whose occupancy and rent both changed yields two). A room that appears occupied
 * counts as OCCUPIED.
 */
export function diffRooms(before: readonly Room[], after: readonly Room[]): RoomDiff[] {
  const old = new Map(before.map((room) => [room.id, room] as const));
  const changes: RoomDiff[] = [];
  for (const room of after) {
    const previous = old.get(room.id);
    if ((previous?.occupied ?? false) !== room.occupied) changes.push({ kind: room.occupied ? 'OCCUPIED' : 'FREED', room, previousRent: null });
    if (previous && previous.rent !== room.rent) changes.push({ kind: 'RENT_CHANGED', room, previousRent: previous.rent });
  }
  return changes;
}

/**
 * True when an option slot's content changed (written, cleared, or set for the first
 * time); a slot written with the same title and data again counts by its lastUpdated.
 */
export function optionChanged(before: FactoryOption | null, after: FactoryOption | null): boolean {
  if (before === null || after === null) return before !== after;
  return before.title !== after.title || before.data !== after.data || before.lastUpdated?.getTime() !== after.lastUpdated?.getTime();
}
