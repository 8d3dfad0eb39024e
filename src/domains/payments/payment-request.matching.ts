/**
 * The rules of matching, as pure functions: which transfers are incoming, which
 * request a transfer pays, and the status a sum of transfers gives.
 */
import { referenceHolds } from './payment-reference';
import type { StoredEvent, StoredRequest, StoredTransfer } from './payment-request.store';
import { isOpen } from './payment-request.store';
import { PaymentStatus } from './payment-request.type';

/** A transaction as the matcher reads it (`BankTransaction` without the receiver's role). */
export interface SeenTransaction extends StoredTransfer {
  /** The receiving VBAN, or null (then the polled account counts as the receiver). */
  receiverVban: string | null;
}

/** Amounts compared to the cent. */
function cents(amount: number): number {
  return Math.round(amount * 100);
}

/** True for money coming into the account of `vban`: positive, received by it (or by the polled account when the receiver is not named), not sent by it. */
export function isIncoming(t: SeenTransaction, vban: string): boolean {
  return t.amount > 0 && (t.receiverVban === null || t.receiverVban === vban) && t.senderVban !== vban;
}

/** The sum of a request's transfers, to the cent. */
export function paidAmount(request: Pick<StoredRequest, 'transfers'>): number {
  return request.transfers.reduce((sum, t) => sum + cents(t.amount), 0) / 100;
}

/** The status a sum gives: PENDING (nothing), PARTIALLY_PAID (less), PAID (equal to the cent), OVERPAID (more). */
export function statusOf(amount: number, paid: number): PaymentStatus {
  if (cents(paid) <= 0) return PaymentStatus.PENDING;
  if (cents(paid) < cents(amount)) return PaymentStatus.PARTIALLY_PAID;
  return cents(paid) === cents(amount) ? PaymentStatus.PAID : PaymentStatus.OVERPAID;
}

/**
 * The request a transfer pays among `candidates` (requests on its account): one whose
 * reference the transfer's reference holds, that a transfer can still change (open, or
 * PAID, which a further transfer makes OVERPAID). Null when none does.
 */
export function requestFor(transfer: StoredTransfer, candidates: readonly StoredRequest[]): StoredRequest | null {
  return candidates.find((r) => (isOpen(r.status) || r.status === PaymentStatus.PAID || r.status === PaymentStatus.OVERPAID) && referenceHolds(transfer.reference, r.reference)) ?? null;
}

/**
 * The request with a transfer added, and the event of its new status: PARTIALLY_PAID, PAID
 * or OVERPAID; null while the sum is still below a cent (transfers of less than half a cent
 * round to nothing). A request paid in full is closed at `observedAt`.
 */
export function withTransfer(request: StoredRequest, transfer: StoredTransfer, observedAt: number): { request: StoredRequest; event: StoredEvent | null } {
  const transfers = [...request.transfers, transfer].sort((a, b) => a.timestamp - b.timestamp);
  const status = statusOf(request.amount, paidAmount({ transfers }));
  const settled = status === PaymentStatus.PAID || status === PaymentStatus.OVERPAID;
  const next: StoredRequest = { ...request, transfers, status, settledAt: settled ? (request.settledAt ?? observedAt) : null, ...(settled ? { closedAt: request.closedAt ?? observedAt } : {}) };
  return { request: next, event: status === PaymentStatus.PENDING ? null : { kind: status as StoredEvent['kind'], request: next, observedAt } };
}

/** The request expired at `now` when it is still open and past `expiresAt`, else null. */
export function expired(request: StoredRequest, now: number): StoredRequest | null {
  return isOpen(request.status) && request.expiresAt !== null && request.expiresAt <= now ? { ...request, status: PaymentStatus.EXPIRED, closedAt: now } : null;
}
