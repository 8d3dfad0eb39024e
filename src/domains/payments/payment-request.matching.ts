/**
 * The rules of matching, as pure functions: which transfers are incoming, which
 * request a transfer pays, and the status a sum of transfers gives.
 */
import type { TransactionPage } from '../shared/bank-account.type';
import { REFERENCE_BODY_LENGTH, isValidReference, normaliseReference, referenceHolds } from './payment-reference';
import type { StoredEvent, StoredRequest, StoredTransfer } from './payment-request.store';
import { isOpen, transferFingerprint } from './payment-request.store';
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
  return (
    candidates.find(
      (r) =>
        (isOpen(r.status) || r.status === PaymentStatus.PAID || r.status === PaymentStatus.OVERPAID) &&
        referenceHolds(transfer.reference, r.reference),
    ) ?? null
  );
}

/**
 * The request with a transfer added, and the event of its new status: PARTIALLY_PAID, PAID
 * or OVERPAID; null while the sum is still below a cent (transfers of less than half a cent
 * round to nothing). A request paid in full is closed at `observedAt`.
 */
export function withTransfer(
  request: StoredRequest,
  transfer: StoredTransfer,
  observedAt: number,
): { request: StoredRequest; event: StoredEvent | null } {
  const transfers = [...request.transfers, transfer].sort((a, b) => a.timestamp - b.timestamp);
  const status = statusOf(request.amount, paidAmount({ transfers }));
  const settled = status === PaymentStatus.PAID || status === PaymentStatus.OVERPAID;
  const next: StoredRequest = {
    ...request,
    transfers,
    status,
    settledAt: settled ? (request.settledAt ?? observedAt) : null,
    ...(settled ? { closedAt: request.closedAt ?? observedAt } : {}),
  };
  return {
    request: next,
    event: status === PaymentStatus.PENDING ? null : { kind: status as StoredEvent['kind'], request: next, observedAt },
  };
}

/** The request expired at `now` when it is still open and past `expiresAt`, else null. */
export function expired(request: StoredRequest, now: number): StoredRequest | null {
  return isOpen(request.status) && request.expiresAt !== null && request.expiresAt <= now
    ? { ...request, status: PaymentStatus.EXPIRED, closedAt: now }
    : null;
}

/** The longest text of a transfer's reference searched for codes, characters (after normalising). */
const REFERENCE_TEXT_MAX = 256;

/** An incoming transfer of a poll, with which occurrence of its identity on the poll it is (1 for the first). */
export interface Occurrence {
  /** The transfer. */
  readonly transfer: StoredTransfer;
  /** Its identity ({@link transferFingerprint}). */
  readonly fingerprint: string;
  /** Which occurrence of the identity on this poll it is. */
  readonly occurrence: number;
}

/** Every reference a transfer's text could hold: each run of reference length, normalised, that is a valid reference (its check character). */
export function referencesIn(text: string | null): string[] {
  if (!text) return [];
  const normal = normaliseReference(text).slice(0, REFERENCE_TEXT_MAX);
  const length = REFERENCE_BODY_LENGTH + 1;
  const found = new Set<string>();
  for (let i = 0; i + length <= normal.length; i += 1) {
    const candidate = normal.slice(i, i + length);
    if (isValidReference(candidate)) found.add(candidate);
  }
  return [...found];
}

/**
 * The incoming transfers of a poll, oldest first (so partial payments add up in booking
 * order), each with its occurrence number among the transfers of the same identity.
 */
export function incomingOccurrences(
  transactions: readonly TransactionPage['transactions'][number][],
  vban: string,
): Occurrence[] {
  const counts = new Map<string, number>();
  const result: Occurrence[] = [];
  for (const t of [...transactions].sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime())) {
    const transfer: StoredTransfer = {
      amount: t.amount,
      senderVban: t.senderVban,
      reference: t.reference,
      timestamp: t.timestamp.getTime(),
    };
    if (!isIncoming({ ...transfer, receiverVban: t.receiverVban }, vban)) continue;
    const fingerprint = transferFingerprint(transfer);
    const occurrence = (counts.get(fingerprint) ?? 0) + 1;
    counts.set(fingerprint, occurrence);
    result.push({ transfer, fingerprint, occurrence });
  }
  return result;
}
