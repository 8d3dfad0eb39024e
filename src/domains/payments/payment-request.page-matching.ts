/**
 * Matching one polled page of an account (for the payment desk, payment-request.service.ts), in
 * its jobs: read the window of transfers the poll can see ({@link readWindow}), read the requests
 * they may pay once ({@link candidates}), and count each new occurrence ({@link count}).
 */
import type { UpstreamSession } from '../../economy';
import { fetchFactoryTransactions } from '../factories/factories.api';
import { PAGE, transactionWindow, VISIBLE_WINDOW } from '../bank-accounts/transaction-window';
import type { TransactionPage } from '../shared/bank-account.type';
import { expired, incomingOccurrences, referencesIn, requestFor, withTransfer } from './payment-request.matching';
import type { Occurrence } from './payment-request.matching';
import type {
  AccountState,
  OutboxEntry,
  PaymentStore,
  StoredEvent,
  StoredRequest,
  TransferChange,
} from './payment-request.store';

/** What matching a page needs of the desk. */
export interface PageMatching {
  /** Where requests are kept. */
  readonly store: PaymentStore;
  /** The clock, ms. */
  readonly now: () => number;
  /** The webhook deliveries of a status change, written in the same step (null: none are). */
  readonly outboxFor: ((event: StoredEvent) => OutboxEntry[]) | null;
}

/** Matches one polled page of an account (see the module comment): each incoming transfer once. */
export async function matchPage(
  desk: PageMatching,
  owner: string,
  bankAccountId: string,
  vban: string,
  page: TransactionPage,
  session: UpstreamSession | null,
): Promise<void> {
  const { transactions, state } = await readWindow(desk, owner, bankAccountId, page, session);
  const transfers = incomingOccurrences(transactions, vban);
  const requests = await candidates(desk, owner, bankAccountId, transfers);
  await count(desk, owner, bankAccountId, transfers, requests, state);
}

/**
 * The transactions a poll can see: its page and, when the page shows that more arrived
 * since the last poll than it holds, the further pages up to skip 200; notes an overrun
 * (more arrived than the window shows) and the account's new total.
 */
async function readWindow(
  desk: PageMatching,
  owner: string,
  bankAccountId: string,
  page: TransactionPage,
  session: UpstreamSession | null,
): Promise<{ transactions: TransactionPage['transactions']; state: AccountState }> {
  const state = await desk.store.account(owner, bankAccountId);
  const { transactions, arrived } = await transactionWindow(
    page,
    state.lastTotal,
    session ? async (skip) => fetchFactoryTransactions(session, { id: bankAccountId, limit: PAGE, skip }) : null,
  );
  const next: AccountState = {
    ...state,
    lastTotal: page.totalTransactions,
    overrunAt: arrived > VISIBLE_WINDOW ? desk.now() : state.overrunAt,
  };
  await desk.store.setAccount(owner, bankAccountId, next);
  return { transactions, state: next };
}

/** The requests on the account the transfers' references name, read from the store once per poll (by reference, never every request). */
async function candidates(
  desk: PageMatching,
  owner: string,
  bankAccountId: string,
  transfers: readonly Occurrence[],
): Promise<Map<string, StoredRequest>> {
  const references = new Set(transfers.flatMap((each) => referencesIn(each.transfer.reference)));
  const found = await desk.store.getMany(owner, [...references]);
  return new Map(found.filter((r) => r.bankAccountId === bankAccountId).map((r) => [r.reference, r]));
}

/**
 * Counts each occurrence no poll counted before: adds it to the request whose reference it
 * holds (kept current in `requests` for the next transfer), or to the company's unmatched
 * transfers (when booked after the account's first request), with the webhook deliveries
 * of the status change in the same step, then publishes the change.
 */
async function count(
  desk: PageMatching,
  owner: string,
  bankAccountId: string,
  transfers: readonly Occurrence[],
  requests: Map<string, StoredRequest>,
  account: AccountState,
): Promise<void> {
  const observedAt = desk.now();
  for (const { transfer, fingerprint, occurrence } of transfers) {
    const target = requestFor(
      transfer,
      [...requests.values()].map((r) => expired(r, observedAt) ?? r),
    );
    const paid = target ? withTransfer(target, transfer, observedAt) : null;
    // Unmatched only when booked since the account's first request (older transfers are not the gateway's business).
    const company = account.since !== null && transfer.timestamp >= account.since ? account.factoryId : null;
    const change: TransferChange = paid
      ? { kind: 'request', request: paid.request }
      : company
        ? { kind: 'unmatched', factoryId: company, transfer }
        : { kind: 'none' };
    const event = paid?.event ? { ...paid.event, outboxed: desk.outboxFor !== null } : null;
    // Counted and its webhook deliveries queued in one step (an occurrence another replica or an earlier poll counted changes nothing).
    if (
      !(await desk.store.recordTransfer(
        owner,
        bankAccountId,
        fingerprint,
        occurrence,
        change,
        event && desk.outboxFor ? desk.outboxFor(event) : [],
      ))
    )
      continue;
    if (paid) requests.set(paid.request.reference, paid.request);
    if (event) await desk.store.publish(event);
  }
}
