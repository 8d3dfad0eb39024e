/**
 * Which transactions of a bank account are new since the last poll. The upstream gives
 * transactions no id, so their identity is their content and their position on the
 * newest page; {@link TransactionLedger} remembers what it reported.
 */
import type { BankTransaction, TransactionPage } from '../shared/bank-account.type';

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
function alignment(
  previous: readonly BankTransaction[],
  next: readonly BankTransaction[],
  expected: number,
): number | null {
  if (previous.length === 0) return next.length;
  const old = previous.map(transactionFingerprint);
  const now = next.map(transactionFingerprint);
  const shifts = [
    ...Array.from({ length: now.length - expected }, (_, i) => expected + i),
    ...Array.from({ length: expected }, (_, i) => i),
  ];
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
