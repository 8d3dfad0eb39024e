/**
 * The payment store in one file (`PAYMENTS_FILE`), for one gateway process: a journal of one
 * JSON line per change (see payment-request.store.ts for what is stored, its bounds, its MACs
 * and how transfers are counted). Replicas share Redis instead (payment-request.redis-store.ts).
 */
import { EventEmitter } from 'node:events';
import { PaymentJournal } from './payment-request.journal';
import {
  MARKS_KEPT,
  NO_ACCOUNT,
  OUTBOX_MAC,
  REQUEST_MAC,
  RecordSeal,
  UNMATCHED_KEPT,
  addTo,
  isOpen,
  removeFrom,
  removeTransfer,
  transferFingerprint,
  unsign,
} from './payment-request.store';
import type {
  AccountState,
  DueRequest,
  JournalLine,
  OutboxEntry,
  PaymentStore,
  PaymentStoreOptions,
  Signed,
  StoredEvent,
  StoredRequest,
  StoredTransfer,
  TransferChange,
} from './payment-request.store';

/** Identities kept per owner and account in the file store (far more than the 225 transfers one poll can see). */
const SEEN_KEPT = 2000;

/**
 * The store in one file for one gateway process: held in memory with its indexes, each
 * change appended to the file as one JSON line, compacted from memory once the file holds
 * more than twice the live records (payment-request.journal.ts). Replicas share Redis instead.
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
  private readonly seal: RecordSeal;
  private readonly journal: PaymentJournal | null;
  private readonly events = new EventEmitter();

  private constructor(
    private readonly path: string | null,
    private readonly options: PaymentStoreOptions,
  ) {
    this.seal = new RecordSeal(options);
    const memory = { liveRecords: () => this.liveRecords(), snapshot: () => [this.requestLines(), this.otherLines()] };
    this.journal = path === null ? null : new PaymentJournal(path, memory);
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
    await store.journal?.replay((line) => store.replay(line), options.onRefused);
    return store;
  }

  /** Applies one journal line; false when its record is refused. */
  private replay(line: JournalLine): boolean {
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
      case 'assigned':
        return removeTransfer(this.unmatchedLists.get(line.key), line.fp) || true;
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
        this.options.onRefused?.(
          'a line of the payments file of no known kind (a file written whole by an older version?)',
        );
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
    return Promise.resolve(
      (kind === 'account' ? this.openByAccount : this.openByCompany).get(`${owner}|${id}`)?.size ?? 0,
    );
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
  recordTransfer(
    owner: string,
    bankAccountId: string,
    fingerprint: string,
    occurrence: number,
    change: TransferChange,
    outbox: readonly OutboxEntry[] = [],
  ): Promise<boolean> {
    if (change.kind === 'assigned') {
      const [key, fp] = [`${owner}|${change.factoryId}`, transferFingerprint(change.transfer)];
      if (!removeTransfer(this.unmatchedLists.get(key), fp)) return Promise.resolve(false); // assigned before (or pruned)
      const lines: JournalLine[] = [{ op: 'assigned', key, fp }, ...this.applyRequest(change.request)];
      return this.write([...lines, ...outbox.map((entry) => this.addOutbox(entry))]).then(() => true);
    }
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
    await this.journal?.close();
  }

  /** Live records the file would hold after a compaction. */
  private liveRecords(): number {
    let count = this.outboxEntries.size + this.accounts.size;
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
    return [
      { op: 'request', v: this.seal.sign(REQUEST_MAC, request) },
      ...pruned.map((ref): JournalLine => ({ op: 'drop', owner: request.owner, ref })),
    ];
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

  /** Appends the lines of one change to the file (none in memory only). */
  private write(lines: readonly JournalLine[]): Promise<void> {
    return this.journal?.append(lines) ?? Promise.resolve();
  }

  /** The requests' lines, for a compaction: closed first, in closing order, so that replaying prunes nothing still kept. */
  private *requestLines(): Generator<JournalLine> {
    for (const [company, refs] of this.closedByCompany) {
      const mine = this.requests.get(company.slice(0, company.lastIndexOf('|')));
      for (const ref of refs) {
        const request = mine?.get(ref);
        if (request) yield { op: 'request', v: this.seal.sign(REQUEST_MAC, request) };
      }
    }
    for (const mine of this.requests.values())
      for (const request of mine.values())
        if (isOpen(request.status)) yield { op: 'request', v: this.seal.sign(REQUEST_MAC, request) };
  }

  /** The other records' lines, for a compaction. */
  private *otherLines(): Generator<JournalLine> {
    for (const [key, ids] of this.seen) for (const [fp, n] of ids) yield { op: 'seen', key, fp, n };
    for (const key of this.marks) yield { op: 'mark', key };
    for (const [key, list] of this.unmatchedLists)
      for (const v of [...list].reverse()) yield { op: 'unmatched', key, v };
    for (const [key, v] of this.accounts) yield { op: 'account', key, v };
    for (const v of this.outboxEntries.values()) yield { op: 'outbox', v };
  }
}
