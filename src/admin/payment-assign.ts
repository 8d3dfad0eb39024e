/**
 * Assigning an unmatched transfer by hand (the console's Payments page, as a bank's queue of
 * unmatched transfers): moves it onto an open payment request of its company through the
 * payment store's own recording step ({@link PaymentStore.recordTransfer}, change `assigned`),
 * so the request's status, its event and its `payment.*` webhook deliveries are those of a
 * transfer that matched, and the transfer leaves the unmatched list once across restarts and
 * replicas. No upstream request.
 */
import { createHash } from 'node:crypto';
import { expired, withTransfer } from '../domains/payments/payment-request.matching';
import { normaliseReference } from '../domains/payments/payment-reference';
import { isOpen, transferFingerprint } from '../domains/payments/payment-request.store';
import type { PaymentStore, StoredRequest, StoredTransfer } from '../domains/payments/payment-request.store';
import { GatewayError } from '../errors/gateway-error';

/** A transfer's id in the administration graph (`trf_…`): derived from its identity (sender, reference, amount, booking time), so stable across reads, restarts and replicas. */
export function transferId(transfer: StoredTransfer): string {
  return `trf_${createHash('sha256').update(transferFingerprint(transfer)).digest('base64url').slice(0, 22)}`;
}

/** Which transfer goes onto which request. */
export interface Assignment {
  /** The hashed key of the character (the payment store's owner). */
  readonly owner: string;
  /** The company. */
  readonly factoryId: string;
  /** The unmatched transfer's id ({@link transferId}). */
  readonly transferId: string;
  /** The request's reference (as written; normalised here). */
  readonly reference: string;
}

/**
 * Moves an unmatched transfer of a company onto an open request of the same company, then
 * publishes its status change (dispatchers put its webhook deliveries into the outbox once
 * across replicas).
 *
 * @returns the request as it is afterwards
 * @throws GatewayError `NOT_FOUND` when the company has no such unmatched transfer (or it was just assigned) or no such request; `CONFLICT` when the request is no longer open
 */
export async function assignTransfer(store: PaymentStore, assignment: Assignment, now: number): Promise<StoredRequest> {
  const { owner, factoryId } = assignment;
  const transfer = (await store.unmatched(owner, factoryId)).find((each) => transferId(each) === assignment.transferId);
  if (!transfer)
    throw new GatewayError(
      'NOT_FOUND',
      `The company ${factoryId} has no unmatched transfer "${assignment.transferId}" (see unmatchedTransfers: it may have been assigned already).`,
    );
  const reference = normaliseReference(assignment.reference);
  const found = await store.get(owner, reference);
  if (!found || found.factoryId !== factoryId)
    throw new GatewayError('NOT_FOUND', `The company ${factoryId} has no payment request "${reference}".`);
  const request = expired(found, now) ?? found;
  if (!isOpen(request.status))
    throw new GatewayError(
      'CONFLICT',
      `The payment request ${reference} is ${request.status}, no longer open: a transfer can be assigned only to a PENDING or PARTIALLY_PAID request.`,
    );
  const paid = withTransfer(request, transfer, now);
  const change = { kind: 'assigned', factoryId, transfer, request: paid.request } as const;
  if (!(await store.recordTransfer(owner, request.bankAccountId, transferFingerprint(transfer), 0, change))) {
    throw new GatewayError(
      'NOT_FOUND',
      `The company ${factoryId} has no unmatched transfer "${assignment.transferId}" any more: it was assigned at the same time.`,
    );
  }
  if (paid.event) await store.publish({ ...paid.event, outboxed: false });
  return paid.request;
}
