/**
 * Where payment requests live: the gateway's own store, never the upstream. A file
 * (`PAYMENTS_FILE`, default `.data/payments.json`, mode 0600, payment-request.file-store.ts) by default, Redis
 * (`REDIS_URL`, payment-request.redis-store.ts) when replicas share it. Everything is scoped
 * by the owner: the hashed key (`keyId`) of the character that created the request.
 *
 * Bounded and written per change:
 * - at most `openMax` open (PENDING, PARTIALLY_PAID) requests per owner and company
 *   (`PAYMENT_OPEN_REQUESTS_MAX`, checked by the desk) and as many closed ones: the oldest
 *   closed request of a company is pruned when one more closes;
 * - the file is a journal, one JSON line per change appended, compacted (rewritten from
 *   memory, in slices) once it holds more than twice the live records; Redis keeps one hash
 *   field per request;
 * - indexes answer what polls and sweeps ask (the open requests of an account, of a company,
 *   the requests by reference, the next expiries) without reading every request.
 *
 * Authenticated: each request and outbox entry is stored with a MAC ({@link RecordMac}, kind
 * `payment-request` or `outbox`); one whose MAC does not verify is refused (never used, never
 * delivered), reported to `onRefused` and left as it is.
 *
 * Transfers are counted as a multiset: per owner and account the store keeps, per identity
 * (sender, reference, amount, timestamp), the most occurrences any one poll saw; a poll that
 * shows an identity more often than that counts the difference, so two identical transfers
 * on one page count twice and a transfer seen again on a later poll counts once, across
 * restarts and replicas.
 */
import type { RecordMac } from '../../vault';
import type { PaymentStatus } from './payment-request.type';

/** One transfer as stored (times in ms since the epoch). */
export interface StoredTransfer {
  /** Amount, as the upstream booked it. */
  amount: number;
  /** The payer's VBAN, or null. */
  senderVban: string | null;
  /** The reference text, or null. */
  reference: string | null;
  /** Booking time, ms since the epoch. */
  timestamp: number;
}

/** One payment request as stored (times in ms since the epoch). */
export interface StoredRequest {
  /** The hashed key (`keyId`) of the character that created it: its scope. */
  owner: string;
  /** The reference (normalised form, as generated). */
  reference: string;
  /** The company. */
  factoryId: string;
  /** The company bank account. */
  bankAccountId: string;
  /** The account's VBAN at creation. */
  vban: string;
  /** The amount asked for. */
  amount: number;
  /** The status. */
  status: PaymentStatus;
  /** The matched transfers, oldest first. */
  transfers: StoredTransfer[];
  /** The creator's note, or null. */
  note: string | null;
  /** Creation time. */
  createdAt: number;
  /** Expiry time, or null. */
  expiresAt: number | null;
  /** When it became PAID or OVERPAID, or null. */
  settledAt: number | null;
  /** When it stopped being open (paid, expired, cancelled), ms; absent while open. Closed requests are pruned oldest first. */
  closedAt?: number;
}

/** What the gateway keeps about one watched account of one owner. */
export interface AccountState {
  /** The account's total of transactions at the last poll, or null before the first. */
  lastTotal: number | null;
  /** When more transfers arrived between two polls than the window shows (25 + skip 200), or null. */
  overrunAt: number | null;
  /** When the first request on the account was created, ms (transfers booked before it are never listed as unmatched), or null. */
  since: number | null;
  /** The company of the account (set with `since`), or null. */
  factoryId: string | null;
}

/** A status change, as published to every replica (JSON). */
export interface StoredEvent {
  /** The status moved to. */
  kind: 'PARTIALLY_PAID' | 'PAID' | 'OVERPAID' | 'EXPIRED';
  /** The request after the change. */
  request: StoredRequest;
  /** When it was seen, ms. */
  observedAt: number;
  /**
   * True when its webhook deliveries were written to the outbox together with the change
   * (one atomic step, see {@link PaymentStore.recordTransfer}): dispatchers do not enqueue it again.
   */
  outboxed?: boolean;
}

/** One webhook delivery waiting in the outbox. */
export interface OutboxEntry {
  /** The message id (`webhook-id`): the same for every attempt, so receivers can drop repeats. */
  id: string;
  /** The webhook (`whk_…`). */
  webhookId: string;
  /** Where it goes. */
  url: string;
  /** The JSON body. */
  payload: string;
  /** Attempts made so far. */
  attempts: number;
  /** When it was enqueued, ms (delivery gives up 24 h later). */
  firstAt: number;
  /** When the next attempt is due, ms. */
  nextAt: number;
}

/** Transfers kept per owner and company in `unmatchedTransfers` (newest first). */
export const UNMATCHED_KEPT = 100;
/** The MAC kind of a payment request. */
export const REQUEST_MAC = 'payment-request';
/** The MAC kind of an outbox entry. */
export const OUTBOX_MAC = 'outbox';

/** The identity a transfer is counted by (sender, reference, amount, timestamp): identical transfers share it, so the store counts occurrences. */
export function transferFingerprint(t: StoredTransfer): string {
  return JSON.stringify([t.senderVban, t.reference ?? '', t.amount, t.timestamp]);
}

/**
 * What a newly seen transfer changes: the request it pays (as it is afterwards), or the company's unmatched transfers;
 * or (`assigned`) an unmatched transfer of the company moved by hand onto the request it now pays.
 */
export type TransferChange =
  | { readonly kind: 'request'; readonly request: StoredRequest }
  | { readonly kind: 'unmatched'; readonly factoryId: string; readonly transfer: StoredTransfer }
  | {
      readonly kind: 'assigned';
      readonly factoryId: string;
      readonly transfer: StoredTransfer;
      readonly request: StoredRequest;
    }
  | { readonly kind: 'none' };

/** A request due to expire: its owner and reference. */
export interface DueRequest {
  /** The owner. */
  readonly owner: string;
  /** The reference. */
  readonly reference: string;
}

/** Options of both stores. */
export interface PaymentStoreOptions {
  /** Signs and verifies requests and outbox entries (made from `VAULT_MASTER_KEY`). */
  readonly mac: RecordMac;
  /** Closed requests kept per owner and company (the oldest are pruned); the desk allows as many open ones (`PAYMENT_OPEN_REQUESTS_MAX`). */
  readonly keptPerCompany: number;
  /** Told of each record refused because its MAC does not verify (`what` names its kind and id, never its content). */
  readonly onRefused?: (what: string) => void;
}

/** The store of payment requests (see the module comment). */
export interface PaymentStore {
  /** Where it is, for messages (a path or `redis`, never a password). */
  readonly where: string;
  /** The request of `owner` with this reference, or null (also when its MAC does not verify). */
  get(owner: string, reference: string): Promise<StoredRequest | null>;
  /** The requests of `owner` with these references that exist (one read, whatever the number). */
  getMany(owner: string, references: readonly string[]): Promise<StoredRequest[]>;
  /** Every request of `owner`'s company (at most twice `keptPerCompany`). */
  list(owner: string, factoryId: string): Promise<StoredRequest[]>;
  /** The open requests of `owner` (for resuming its watches). */
  open(owner: string): Promise<StoredRequest[]>;
  /** How many open requests `owner` has on this account (`kind: 'account'`) or in this company (`kind: 'company'`). */
  openCount(owner: string, kind: 'account' | 'company', id: string): Promise<number>;
  /** Every owner with a request that is still open (PENDING or PARTIALLY_PAID). */
  owners(): Promise<string[]>;
  /** Open requests whose `expiresAt` is at or before `now`, at most `limit`. */
  due(now: number, limit: number): Promise<DueRequest[]>;
  /** Creates or replaces a request, adding the webhook deliveries of its status change (`outbox`) in the same atomic step; a request that closes may prune its company's oldest closed one. */
  put(request: StoredRequest, outbox?: readonly OutboxEntry[]): Promise<void>;
  /** Records a mark (an expiry, an enqueued delivery, an attempt) once; true the first time, false when it was made before (by any replica). */
  markSeen(owner: string, scope: string, mark: string): Promise<boolean>;
  /**
   * Records that a poll of an account showed a transfer identity `occurrence` times and, when
   * no poll had shown it that often before, applies what one more occurrence changes (the
   * request it pays, or the unmatched list) and adds the webhook deliveries of the status
   * change it causes (`outbox`) in the same atomic step: a crash never leaves a transfer
   * seen but not counted, nor counted without its deliveries.
   *
   * An `assigned` change is guarded by the unmatched list instead of the count (which it leaves
   * as it is, so later polls do not count the transfer again): it applies only while the
   * company's list holds the transfer, removing one copy of it, so it lands once across replicas.
   *
   * @param occurrence - which occurrence of the identity on the poll (1 for the first)
   * @returns true when applied; false when that occurrence was counted before (by any replica), or an assigned transfer is no longer unmatched: nothing changed
   */
  recordTransfer(
    owner: string,
    bankAccountId: string,
    fingerprint: string,
    occurrence: number,
    change: TransferChange,
    outbox?: readonly OutboxEntry[],
  ): Promise<boolean>;
  /** The unmatched transfers of `owner`'s company, newest first. */
  unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]>;
  /** What is known of an account of `owner`. */
  account(owner: string, bankAccountId: string): Promise<AccountState>;
  /** Replaces what is known of an account of `owner`. */
  setAccount(owner: string, bankAccountId: string, state: AccountState): Promise<void>;
  /** Adds or replaces an outbox entry. */
  putOutbox(entry: OutboxEntry): Promise<void>;
  /** Every outbox entry whose MAC verifies. */
  outbox(): Promise<OutboxEntry[]>;
  /** Removes an outbox entry (delivered, or given up). */
  removeOutbox(id: string): Promise<void>;
  /** Tells every replica (this one included) of a status change. */
  publish(event: StoredEvent): Promise<void>;
  /** Calls `listener` for every published change; returns the function that stops it. */
  onEvent(listener: (event: StoredEvent) => void): () => void;
  /** Closes connections; a file store writes what is pending first. */
  close(): Promise<void>;
}

/** What is known of an account never polled. */
export const NO_ACCOUNT: AccountState = { lastTotal: null, overrunAt: null, since: null, factoryId: null };

/** True for the statuses a transfer can still change. */
export function isOpen(status: PaymentStatus): boolean {
  return status === 'PENDING' || status === 'PARTIALLY_PAID';
}

/** A stored record and its MAC, as written. */
export type Signed<T> = T & { mac: string };

/** Splits a stored record into the record and its MAC. */
export function unsign<T extends object>(signed: T & { mac?: unknown }): { record: T; mac: unknown } {
  const { mac, ...record } = signed;
  return { record: record as T, mac };
}

/**
 * Signs and verifies records for both stores; a refused one is reported once per store
 * (a record read again and again is not logged again and again).
 */
export class RecordSeal {
  private readonly reported = new Set<string>();

  constructor(private readonly options: PaymentStoreOptions) {}

  /** The record with its MAC. */
  sign<T extends object>(kind: string, record: T): Signed<T> {
    return { ...record, mac: this.options.mac.sign(kind, record) };
  }

  /** The record when its MAC verifies, else null (reported under `what`). */
  open<T extends object>(kind: string, signed: unknown, what: string): T | null {
    if (signed === null || typeof signed !== 'object') return this.refuse(kind, what);
    const { record, mac } = unsign(signed as T & { mac?: unknown });
    if (this.options.mac.verify(kind, record, mac)) return record;
    return this.refuse(kind, what);
  }

  private refuse(kind: string, what: string): null {
    if (!this.reported.has(`${kind}|${what}`)) {
      if (this.reported.size > 10_000) this.reported.clear();
      this.reported.add(`${kind}|${what}`);
      this.options.onRefused?.(`${kind} ${what}`);
    }
    return null;
  }
}

/** One line of the file store's journal (payment-request.file-store.ts). */
export type JournalLine =
  | { op: 'request'; v: Signed<StoredRequest> }
  | { op: 'drop'; owner: string; ref: string }
  | { op: 'seen'; key: string; fp: string; n: number }
  | { op: 'mark'; key: string }
  | { op: 'unmatched'; key: string; v: StoredTransfer }
  | { op: 'assigned'; key: string; fp: string }
  | { op: 'account'; key: string; v: AccountState }
  | { op: 'outbox'; v: Signed<OutboxEntry> }
  | { op: 'sent'; id: string };

/** Marks (expiries, enqueued deliveries, attempts) kept by the file store; the oldest are forgotten beyond this. */
export const MARKS_KEPT = 100_000;

/** Adds `value` to the set at `key` of `map`. */
export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

/** Removes `value` from the set at `key` of `map` (and the set once empty). */
export function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/** Removes the newest transfer of this identity from an unmatched list (newest first); false when it holds none. */
export function removeTransfer(list: StoredTransfer[] | undefined, fingerprint: string): boolean {
  const at = list?.findIndex((each) => transferFingerprint(each) === fingerprint) ?? -1;
  if (at >= 0) list?.splice(at, 1);
  return at >= 0;
}
