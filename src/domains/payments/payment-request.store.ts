/**
 * Where payment requests live: the gateway's own store, never the upstream. A file
 * (`PAYMENTS_FILE`, default `.data/payments.json`, mode 0600) by default, Redis
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
import { EventEmitter } from 'node:events';
import { appendFile, readFile } from 'node:fs/promises';
import type { RecordMac } from '../../vault';
import { writePrivateFile } from '../../vault/storage';
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
/** Identities kept per owner and account in the file store (far more than the 225 transfers one poll can see). */
const SEEN_KEPT = 2000;
/** The MAC kind of a payment request. */
export const REQUEST_MAC = 'payment-request';
/** The MAC kind of an outbox entry. */
export const OUTBOX_MAC = 'outbox';

/** The identity a transfer is counted by (sender, reference, amount, timestamp): identical transfers share it, so the store counts occurrences. */
export function transferFingerprint(t: StoredTransfer): string {
  return JSON.stringify([t.senderVban, t.reference ?? '', t.amount, t.timestamp]);
}

/** What a newly seen transfer changes: the request it pays (as it is afterwards), or the company's unmatched transfers. */
export type TransferChange = { readonly kind: 'request'; readonly request: StoredRequest } | { readonly kind: 'unmatched'; readonly factoryId: string; readonly transfer: StoredTransfer } | { readonly kind: 'none' };

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
   * @param occurrence - which occurrence of the identity on the poll (1 for the first)
   * @returns true when applied; false when that occurrence was counted before (by any replica), nothing changed
   */
  recordTransfer(owner: string, bankAccountId: string, fingerprint: string, occurrence: number, change: TransferChange, outbox?: readonly OutboxEntry[]): Promise<boolean>;
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
type Signed<T> = T & { mac: string };

/** Splits a stored record into the record and its MAC. */
function unsign<T extends object>(signed: T & { mac?: unknown }): { record: T; mac: unknown } {
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

/** One line of the file store's journal. */
type JournalLine =
  | { op: 'request'; v: Signed<StoredRequest> }
  | { op: 'drop'; owner: string; ref: string }
  | { op: 'seen'; key: string; fp: string; n: number }
  | { op: 'mark'; key: string }
  | { op: 'unmatched'; key: string; v: StoredTransfer }
  | { op: 'account'; key: string; v: AccountState }
  | { op: 'outbox'; v: Signed<OutboxEntry> }
  | { op: 'sent'; id: string };

/** Marks (expiries, enqueued deliveries, attempts) kept by the file store; the oldest are forgotten beyond this. */
const MARKS_KEPT = 100_000;

/** Adds `value` to the set at `key` of `map`. */
function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

/** Removes `value` from the set at `key` of `map` (and the set once empty). */
function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/**
 * The store in one file for one gateway process: held in memory with its indexes, each
 * change appended to the file as one JSON line (serialised; mode 0600), compacted from memory
 * once the file holds more than twice the live records (see the module comment). Replicas
 * share Redis instead.
 */
export class FilePaymentStore implements PaymentStore {
  private readonly requests = new Map<string, Map<string, StoredRequest>>();
  private readonly openByAccount = new Map<string, Set<string>>();
  private readonly openByCompany = new Map<string, Set<string>>();
  private readonly openByOwner = new Map<string, Set<string>>();
  /** Closed references per owner and company, in closing order (the first is pruned first). */
  private readonly closedByCompany = new Map<string, Set<string>>();
  /** `owner\nreference` → expiresAt, for open requests that expire. */
  private readonly expiring = new Map<string, number>();
  /** No entry of {@link expiring} is due before this (a lower bound: a sweep before it reads nothing). */
  private nextExpiry = Infinity;
  private readonly seen = new Map<string, Map<string, number>>();
  private readonly marks = new Set<string>();
  private readonly unmatchedLists = new Map<string, StoredTransfer[]>();
  private readonly accounts = new Map<string, AccountState>();
  private readonly outboxEntries = new Map<string, Signed<OutboxEntry>>();
  /** Lines whose record was refused: kept as they are, through compactions. */
  private readonly refusedLines: string[] = [];
  private readonly seal: RecordSeal;
  private writing: Promise<void> = Promise.resolve();
  private lines = 0;
  private compacting = false;
  private readonly events = new EventEmitter();

  private constructor(
    private readonly path: string | null,
    private readonly options: PaymentStoreOptions,
  ) {
    this.seal = new RecordSeal(options);
  }

  /**
   * Opens the file (an empty store when it does not exist yet); `null`: process memory only
   * (`PAYMENTS_FILE=off`). A line that does not parse or whose record's MAC does not verify
   * (an edit, or a file of an older version, written whole without MACs) is refused, reported
   * and kept as it is.
   *
   * @throws Error when the file cannot be read
   */
  static async open(path: string | null, options: PaymentStoreOptions): Promise<FilePaymentStore> {
    const store = new FilePaymentStore(path, options);
    if (path === null) return store;
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      store.lines += 1;
      if (!store.replay(line)) store.refusedLines.push(line);
    }
    return store;
  }

  /** Applies one journal line; false when it does not parse or its record is refused. */
  private replay(text: string): boolean {
    let line: JournalLine;
    try {
      line = JSON.parse(text) as JournalLine;
    } catch {
      this.options.onRefused?.('a line of the payments file that does not parse');
      return false;
    }
    switch (line.op) {
      case 'request': {
        const request = this.seal.open<StoredRequest>(REQUEST_MAC, line.v, `${String(line.v?.reference)}`);
        if (!request) return false;
        this.apply(request);
        return true;
      }
      case 'drop':
        this.drop(line.owner, line.ref);
        return true;
      case 'seen':
        this.setSeen(line.key, line.fp, line.n);
        return true;
      case 'mark':
        this.mark(line.key);
        return true;
      case 'unmatched':
        this.unshiftUnmatched(line.key, line.v);
        return true;
      case 'account':
        this.accounts.set(line.key, line.v);
        return true;
      case 'outbox': {
        if (!this.seal.open<OutboxEntry>(OUTBOX_MAC, line.v, String(line.v?.id))) return false;
        this.outboxEntries.set(line.v.id, line.v);
        return true;
      }
      case 'sent':
        this.outboxEntries.delete(line.id);
        return true;
      default:
        this.options.onRefused?.('a line of the payments file of no known kind (a file written whole by an older version?)');
        return false;
    }
  }

  /** The file's path (or `memory`). */
  get where(): string {
    return this.path ?? 'memory';
  }

  /** See {@link PaymentStore.get}. */
  get(owner: string, reference: string): Promise<StoredRequest | null> {
    return Promise.resolve(this.requests.get(owner)?.get(reference) ?? null);
  }

  /** See {@link PaymentStore.getMany}. */
  getMany(owner: string, references: readonly string[]): Promise<StoredRequest[]> {
    const mine = this.requests.get(owner);
    return Promise.resolve(references.flatMap((reference) => mine?.get(reference) ?? []));
  }

  /** See {@link PaymentStore.list}. */
  list(owner: string, factoryId: string): Promise<StoredRequest[]> {
    return Promise.resolve([...(this.requests.get(owner)?.values() ?? [])].filter((r) => r.factoryId === factoryId));
  }

  /** See {@link PaymentStore.open}. */
  open(owner: string): Promise<StoredRequest[]> {
    return this.getMany(owner, [...(this.openByOwner.get(owner) ?? [])]);
  }

  /** See {@link PaymentStore.openCount}. */
  openCount(owner: string, kind: 'account' | 'company', id: string): Promise<number> {
    return Promise.resolve((kind === 'account' ? this.openByAccount : this.openByCompany).get(`${owner}|${id}`)?.size ?? 0);
  }

  /** See {@link PaymentStore.owners}. */
  owners(): Promise<string[]> {
    return Promise.resolve([...this.openByOwner.keys()]);
  }

  /** See {@link PaymentStore.due}. */
  due(now: number, limit: number): Promise<DueRequest[]> {
    const found: DueRequest[] = [];
    if (now < this.nextExpiry) return Promise.resolve(found);
    let next = Infinity;
    for (const [key, at] of this.expiring) {
      if (at > now || found.length >= limit) {
        next = Math.min(next, at);
        continue;
      }
      const [owner = '', reference = ''] = key.split('\n');
      found.push({ owner, reference });
    }
    // What is found stays due until it is expired (then it leaves the index): keep the bound at now.
    this.nextExpiry = found.length > 0 ? now : next;
    return Promise.resolve(found);
  }

  /** See {@link PaymentStore.put}. */
  put(request: StoredRequest, outbox: readonly OutboxEntry[] = []): Promise<void> {
    return this.write([...this.applyRequest(request), ...outbox.map((entry) => this.addOutbox(entry))]);
  }

  /** See {@link PaymentStore.markSeen}. */
  markSeen(owner: string, scope: string, mark: string): Promise<boolean> {
    const key = `${owner}|${scope}|${mark}`;
    if (this.marks.has(key)) return Promise.resolve(false);
    this.mark(key);
    return this.write([{ op: 'mark', key }]).then(() => true);
  }

  /** See {@link PaymentStore.recordTransfer}: every change in memory, then their lines appended in one write. */
  recordTransfer(owner: string, bankAccountId: string, fingerprint: string, occurrence: number, change: TransferChange, outbox: readonly OutboxEntry[] = []): Promise<boolean> {
    const key = `${owner}|${bankAccountId}`;
    if ((this.seen.get(key)?.get(fingerprint) ?? 0) >= occurrence) return Promise.resolve(false);
    this.setSeen(key, fingerprint, occurrence);
    const lines: JournalLine[] = [{ op: 'seen', key, fp: fingerprint, n: occurrence }];
    if (change.kind === 'request') lines.push(...this.applyRequest(change.request));
    if (change.kind === 'unmatched') {
      this.unshiftUnmatched(`${owner}|${change.factoryId}`, change.transfer);
      lines.push({ op: 'unmatched', key: `${owner}|${change.factoryId}`, v: change.transfer });
    }
    lines.push(...outbox.map((entry) => this.addOutbox(entry)));
    return this.write(lines).then(() => true);
  }

  /** See {@link PaymentStore.unmatched}. */
  unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]> {
    return Promise.resolve([...(this.unmatchedLists.get(`${owner}|${factoryId}`) ?? [])]);
  }

  /** See {@link PaymentStore.account}. */
  account(owner: string, bankAccountId: string): Promise<AccountState> {
    return Promise.resolve({ ...NO_ACCOUNT, ...this.accounts.get(`${owner}|${bankAccountId}`) });
  }

  /** See {@link PaymentStore.setAccount}. */
  setAccount(owner: string, bankAccountId: string, state: AccountState): Promise<void> {
    this.accounts.set(`${owner}|${bankAccountId}`, state);
    return this.write([{ op: 'account', key: `${owner}|${bankAccountId}`, v: state }]);
  }

  /** See {@link PaymentStore.putOutbox}. */
  putOutbox(entry: OutboxEntry): Promise<void> {
    return this.write([this.addOutbox(entry)]);
  }

  /** See {@link PaymentStore.outbox}. */
  outbox(): Promise<OutboxEntry[]> {
    return Promise.resolve([...this.outboxEntries.values()].map((signed) => unsign<OutboxEntry>(signed).record));
  }

  /** See {@link PaymentStore.removeOutbox}. */
  removeOutbox(id: string): Promise<void> {
    this.outboxEntries.delete(id);
    return this.write([{ op: 'sent', id }]);
  }

  /** In this process only (a file store serves one process). */
  publish(event: StoredEvent): Promise<void> {
    this.events.emit('event', event);
    return Promise.resolve();
  }

  /** See {@link PaymentStore.onEvent}. */
  onEvent(listener: (event: StoredEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  /** Waits for the last write. */
  async close(): Promise<void> {
    await this.writing;
  }

  /** Live records the file would hold after a compaction. */
  private liveRecords(): number {
    let count = this.outboxEntries.size + this.accounts.size + this.refusedLines.length;
    for (const mine of this.requests.values()) count += mine.size;
    for (const ids of this.seen.values()) count += ids.size;
    for (const list of this.unmatchedLists.values()) count += list.length;
    return count + this.marks.size;
  }

  private addOutbox(entry: OutboxEntry): JournalLine {
    const signed = this.seal.sign(OUTBOX_MAC, entry);
    this.outboxEntries.set(entry.id, signed);
    return { op: 'outbox', v: signed };
  }

  /** Applies a request in memory; its journal lines (the request, and the requests its company's bound prunes). */
  private applyRequest(request: StoredRequest): JournalLine[] {
    const pruned = this.apply(request);
    return [{ op: 'request', v: this.seal.sign(REQUEST_MAC, request) }, ...pruned.map((ref): JournalLine => ({ op: 'drop', owner: request.owner, ref }))];
  }

  /** Applies a request and its indexes in memory; returns the references pruned. */
  private apply(request: StoredRequest): string[] {
    const { owner, reference } = request;
    let mine = this.requests.get(owner);
    if (!mine) this.requests.set(owner, (mine = new Map()));
    mine.set(reference, request);
    const company = `${owner}|${request.factoryId}`;
    const timed = `${owner}\n${reference}`;
    if (isOpen(request.status)) {
      addTo(this.openByAccount, `${owner}|${request.bankAccountId}`, reference);
      addTo(this.openByCompany, company, reference);
      addTo(this.openByOwner, owner, reference);
      if (request.expiresAt !== null) {
        this.expiring.set(timed, request.expiresAt);
        this.nextExpiry = Math.min(this.nextExpiry, request.expiresAt);
      }
      return [];
    }
    removeFrom(this.openByAccount, `${owner}|${request.bankAccountId}`, reference);
    removeFrom(this.openByCompany, company, reference);
    removeFrom(this.openByOwner, owner, reference);
    this.expiring.delete(timed);
    const closed = this.closedByCompany.get(company) ?? new Set<string>();
    this.closedByCompany.set(company, closed);
    if (closed.has(reference)) return [];
    closed.add(reference);
    const pruned: string[] = [];
    for (const oldest of closed) {
      if (closed.size <= this.options.keptPerCompany) break;
      pruned.push(oldest);
      this.drop(owner, oldest);
    }
    return pruned;
  }

  /** Forgets a closed request (pruned). */
  private drop(owner: string, reference: string): void {
    const request = this.requests.get(owner)?.get(reference);
    if (!request) return;
    this.requests.get(owner)?.delete(reference);
    if (this.requests.get(owner)?.size === 0) this.requests.delete(owner);
    removeFrom(this.closedByCompany, `${owner}|${request.factoryId}`, reference);
  }

  private setSeen(key: string, fingerprint: string, count: number): void {
    let ids = this.seen.get(key);
    if (!ids) this.seen.set(key, (ids = new Map()));
    ids.delete(fingerprint);
    ids.set(fingerprint, count);
    while (ids.size > SEEN_KEPT) {
      const oldest = ids.keys().next().value;
      if (oldest === undefined) break;
      ids.delete(oldest);
    }
  }

  private mark(key: string): void {
    this.marks.add(key);
    while (this.marks.size > MARKS_KEPT) {
      const oldest = this.marks.values().next().value;
      if (oldest === undefined) break;
      this.marks.delete(oldest);
    }
  }

  /** Adds a transfer to the unmatched ones of a company (newest first, {@link UNMATCHED_KEPT} kept). */
  private unshiftUnmatched(key: string, transfer: StoredTransfer): void {
    let list = this.unmatchedLists.get(key);
    if (!list) this.unmatchedLists.set(key, (list = []));
    list.unshift(transfer);
    list.splice(UNMATCHED_KEPT);
  }

  /** Appends the lines of one change (serialised), and compacts when the file holds more than twice the live records. */
  private write(lines: readonly JournalLine[]): Promise<void> {
    const path = this.path;
    if (path === null || lines.length === 0) return Promise.resolve();
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    this.lines += lines.length;
    this.writing = this.writing.then(() => appendFile(path, text, { mode: 0o600 }));
    if (!this.compacting && this.lines > Math.max(1000, 2 * this.liveRecords())) {
      this.compacting = true;
      this.writing = this.writing.then(() => this.compact(path)).finally(() => (this.compacting = false));
    }
    return this.writing;
  }

  /**
   * Rewrites the file from memory (runs in the write queue, so no append is lost): the text
   * is built in slices of a few hundred records with a turn of the event loop between them,
   * so a large store never holds the loop long.
   */
  private async compact(path: string): Promise<void> {
    const parts: string[] = [...this.refusedLines.map((line) => `${line}\n`)];
    const slice = async (lines: Iterable<JournalLine>): Promise<void> => {
      let batch = 0;
      for (const line of lines) {
        parts.push(`${JSON.stringify(line)}\n`);
        batch += 1;
        if (batch % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const requests = function* (store: FilePaymentStore): Generator<JournalLine> {
      // Closed first, in closing order, so that replaying prunes nothing that is still kept.
      for (const [company, refs] of store.closedByCompany) {
        const mine = store.requests.get(company.slice(0, company.lastIndexOf('|')));
        for (const ref of refs) {
          const request = mine?.get(ref);
          if (request) yield { op: 'request', v: store.seal.sign(REQUEST_MAC, request) };
        }
      }
      for (const mine of store.requests.values()) for (const request of mine.values()) if (isOpen(request.status)) yield { op: 'request', v: store.seal.sign(REQUEST_MAC, request) };
    };
    await slice(requests(this));
    await slice((function* (store: FilePaymentStore): Generator<JournalLine> {
      for (const [key, ids] of store.seen) for (const [fp, n] of ids) yield { op: 'seen', key, fp, n };
      for (const key of store.marks) yield { op: 'mark', key };
      for (const [key, list] of store.unmatchedLists) for (const v of [...list].reverse()) yield { op: 'unmatched', key, v };
      for (const [key, v] of store.accounts) yield { op: 'account', key, v };
      for (const v of store.outboxEntries.values()) yield { op: 'outbox', v };
    })(this));
    this.lines = parts.length;
    await writePrivateFile(path, parts.join(''));
  }
}
