/**
 * The shapes the payment desk (payment-request.service.ts) is used through: its caller, the
 * poll hub it watches accounts with, its options, a new request and a warning (the bounds
 * of the upstream's transaction window are bank-accounts/transaction-window.ts's).
 */
import type { UpstreamSession } from '../../economy';
import type { Feed } from '../feeds/feed';
import type { TransactionPage } from '../shared/bank-account.type';

/** Who polls an account: the key (sent upstream) and its hash (the owner of the requests). */
export interface PaymentCaller {
  /** The bearer key; kept in memory only while its accounts are watched, never stored. */
  apiKey: string;
  /** The hashed key: the owner of the requests. */
  keyId: string;
}

/** The poll hub as the desk uses it (implemented in `src/subscriptions/`). */
export interface AccountPolling {
  /**
   * Joins (or starts) the poller of the feed's resource for the caller's key and calls
   * `observer` with each state that poller reads itself (the first one included), with
   * the session it polled through (for further pages), and each changed state another
   * replica's poller relays (session null). Resolves once the first poll answered.
   *
   * @returns the function that leaves the poller again
   * @throws GatewayError when the first poll failed definitively
   */
  watch(
    caller: PaymentCaller,
    feed: Feed<TransactionPage, unknown>,
    observer: (state: TransactionPage, session: UpstreamSession | null) => Promise<void>,
  ): Promise<() => void>;
}

/** A warning about the requests of an account, for `extensions.warnings`. */
export interface PaymentWarning {
  /** `WINDOW_OVERRUN`: more transfers arrived between two polls than the upstream lets the gateway see. */
  code: 'WINDOW_OVERRUN';
  /** What it means, in a sentence. */
  message: string;
  /** The account. */
  bankAccountId: string;
  /** When it was noticed (ISO 8601). */
  at: string;
}

/** What a new request asks for (checked by the resolver). */
export interface NewRequest {
  /** The company. */
  factoryId: string;
  /** The company bank account. */
  bankAccountId: string;
  /** Its VBAN. */
  vban: string;
  /** Greater than 0. */
  amount: number;
  /** Seconds until it expires, or null. */
  expiresInSeconds: number | null;
  /** At most 200 characters, or null. */
  note: string | null;
}

/** The desk's options. */
export interface PaymentDeskOptions {
  /** The time, ms (default `Date.now`). */
  now?: () => number;
  /** Where failures of background work go (a poll's matching, an expiry sweep). */
  onError?: (error: unknown) => void;
  /** A reference generator (tests). */
  reference?: () => string;
  /**
   * The keys the gateway holds itself (the vault's): the open requests of their characters
   * are watched from the start (and checked again every minute), without waiting for a call.
   */
  heldKeys?: () => readonly PaymentCaller[];
  /** Open requests one owner may have per company (`PAYMENT_OPEN_REQUESTS_MAX`, default {@link OPEN_REQUESTS_MAX}). */
  openMax?: number;
}

/** The default bound on open requests per owner and company. */
export const OPEN_REQUESTS_MAX = 1000;
