/**
 * Where payment requests live: the gateway's own store, never the upstream. A JSON file
 * (`PAYMENTS_FILE`, default `.data/payments.json`, mode 0600, written whole and renamed
 * into place as the vault file is) by default, Redis (`REDIS_URL`, payment-request.redis-store.ts)
 * when replicas share it. Everything is scoped by the owner: the hashed key (`keyId`) of the character that
 * created the request. Transfers seen are remembered per owner and account by
 * fingerprint (sender, reference, amount, timestamp), so a transfer counts once across
 * restarts and replicas.
 */
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
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
}

/** What the gateway keeps about one watched account of one owner. */
export interface AccountState {
  /** The account's total of transactions at the last poll, or null before the first. */
  lastTotal: number | null;
  /** When more transfers arrived between two polls than the window shows (25 + skip 200), or null. */
  overrunAt: number | null;
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
/** Fingerprints kept per owner and account (far more than the 225 transfers one poll can see). */
const SEEN_KEPT = 2000;

/** The fingerprint a transfer is counted once by. */
export function transferFingerprint(t: StoredTransfer): string {
  return JSON.stringify([t.senderVban, t.reference ?? '', t.amount, t.timestamp]);
}

/** What a newly seen transfer changes: the request it pays (as it is afterwards), or the company's unmatched transfers. */
export type TransferChange = { readonly kind: 'request'; readonly request: StoredRequest } | { readonly kind: 'unmatched'; readonly factoryId: string; readonly transfer: StoredTransfer } | { readonly kind: 'none' };

/** The store of payment requests (see the module comment). */
export interface PaymentStore {
  /** Where it is, for messages (a path or `redis`, never a password). */
  readonly where: string;
  /** The request of `owner` with this reference, or null. */
  get(owner: string, reference: string): Promise<StoredRequest | null>;
  /** Every request of `owner`. */
  list(owner: string): Promise<StoredRequest[]>;
  /** Every owner with a request that is still open (PENDING or PARTIALLY_PAID). */
  owners(): Promise<string[]>;
  /** Creates or replaces a request, adding the webhook deliveries of its status change (`outbox`) in the same atomic step. */
  put(request: StoredRequest, outbox?: readonly OutboxEntry[]): Promise<void>;
  /** Records a transfer as seen on an account; true the first time, false when it was seen before (by any replica). */
  markSeen(owner: string, bankAccountId: string, fingerprint: string): Promise<boolean>;
  /**
   * Records a transfer as seen on an account and, the first time only, applies what it
   * changes (the request it pays, or the unmatched list) and adds the webhook deliveries of
   * the status change it causes (`outbox`) in the same atomic step: a crash never leaves a
   * transfer seen but not counted, nor counted without its deliveries.
   *
   * @returns true when applied; false when it was seen before (by any replica), nothing changed
   */
  recordTransfer(owner: string, bankAccountId: string, fingerprint: string, change: TransferChange, outbox?: readonly OutboxEntry[]): Promise<boolean>;
  /** The unmatched transfers of `owner`'s company, newest first. */
  unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]>;
  /** What is known of an account of `owner`. */
  account(owner: string, bankAccountId: string): Promise<AccountState>;
  /** Replaces what is known of an account of `owner`. */
  setAccount(owner: string, bankAccountId: string, state: AccountState): Promise<void>;
  /** Adds or replaces an outbox entry. */
  putOutbox(entry: OutboxEntry): Promise<void>;
  /** Every outbox entry. */
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

interface FileDocument {
  requests: Record<string, Record<string, StoredRequest>>;
  seen: Record<string, string[]>;
  unmatched: Record<string, StoredTransfer[]>;
  accounts: Record<string, AccountState>;
  outbox: Record<string, OutboxEntry>;
}

/** What is known of an account never polled. */
export const NO_ACCOUNT: AccountState = { lastTotal: null, overrunAt: null };

/** True for the statuses a transfer can still change. */
export function isOpen(status: PaymentStatus): boolean {
  return status === 'PENDING' || status === 'PARTIALLY_PAID';
}

/**
 * The store in one JSON file, held in memory and written whole after each change (a
 * temporary file of mode 0600 renamed into place; writes are serialised). For one
 * gateway process: replicas share Redis instead.
 */
export class FilePaymentStore implements PaymentStore {
  private doc: FileDocument = { requests: {}, seen: {}, unmatched: {}, accounts: {}, outbox: {} };
  private writing: Promise<void> = Promise.resolve();
  private readonly events = new EventEmitter();

  private constructor(private readonly path: string | null) {}

  /**
   * Opens the file (an empty store when it does not exist yet); `null`: process memory only (`PAYMENTS_FILE=off`).
   *
   * @throws Error when the file exists but does not parse
   */
  static async open(path: string | null): Promise<FilePaymentStore> {
    const store = new FilePaymentStore(path);
    if (path === null) return store;
    try {
      store.doc = { ...store.doc, ...(JSON.parse(await readFile(path, 'utf8')) as Partial<FileDocument>) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return store;
  }

  /** The file's path (or `memory`). */
  get where(): string {
    return this.path ?? 'memory';
  }

  /** See {@link PaymentStore.get}. */
  get(owner: string, reference: string): Promise<StoredRequest | null> {
    return Promise.resolve(this.doc.requests[owner]?.[reference] ?? null);
  }

  /** See {@link PaymentStore.list}. */
  list(owner: string): Promise<StoredRequest[]> {
    return Promise.resolve(Object.values(this.doc.requests[owner] ?? {}));
  }

  /** See {@link PaymentStore.owners}. */
  owners(): Promise<string[]> {
    return Promise.resolve(Object.keys(this.doc.requests).filter((owner) => Object.values(this.doc.requests[owner] ?? {}).some((r) => isOpen(r.status))));
  }

  /** See {@link PaymentStore.put}. */
  put(request: StoredRequest, outbox: readonly OutboxEntry[] = []): Promise<void> {
    (this.doc.requests[request.owner] ??= {})[request.reference] = request;
    for (const entry of outbox) this.doc.outbox[entry.id] = entry;
    return this.save();
  }

  /** See {@link PaymentStore.markSeen}. */
  async markSeen(owner: string, bankAccountId: string, fingerprint: string): Promise<boolean> {
    const seen = (this.doc.seen[`${owner}|${bankAccountId}`] ??= []);
    if (seen.includes(fingerprint)) return false;
    seen.push(fingerprint);
    if (seen.length > SEEN_KEPT) seen.splice(0, seen.length - SEEN_KEPT);
    await this.save();
    return true;
  }

  /** See {@link PaymentStore.recordTransfer}: every change in memory, then one write of the whole file. */
  recordTransfer(owner: string, bankAccountId: string, fingerprint: string, change: TransferChange, outbox: readonly OutboxEntry[] = []): Promise<boolean> {
    const seen = (this.doc.seen[`${owner}|${bankAccountId}`] ??= []);
    if (seen.includes(fingerprint)) return Promise.resolve(false);
    seen.push(fingerprint);
    if (seen.length > SEEN_KEPT) seen.splice(0, seen.length - SEEN_KEPT);
    if (change.kind === 'request') (this.doc.requests[change.request.owner] ??= {})[change.request.reference] = change.request;
    if (change.kind === 'unmatched') this.unshiftUnmatched(owner, change.factoryId, change.transfer);
    for (const entry of outbox) this.doc.outbox[entry.id] = entry;
    return this.save().then(() => true);
  }

  /** Adds a transfer to the unmatched ones of `owner`'s company (newest first, {@link UNMATCHED_KEPT} kept). */
  private unshiftUnmatched(owner: string, factoryId: string, transfer: StoredTransfer): void {
    const list = (this.doc.unmatched[`${owner}|${factoryId}`] ??= []);
    list.unshift(transfer);
    list.splice(UNMATCHED_KEPT);
  }

  /** See {@link PaymentStore.unmatched}. */
  unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]> {
    return Promise.resolve([...(this.doc.unmatched[`${owner}|${factoryId}`] ?? [])]);
  }

  /** See {@link PaymentStore.account}. */
  account(owner: string, bankAccountId: string): Promise<AccountState> {
    return Promise.resolve(this.doc.accounts[`${owner}|${bankAccountId}`] ?? NO_ACCOUNT);
  }

  /** See {@link PaymentStore.setAccount}. */
  setAccount(owner: string, bankAccountId: string, state: AccountState): Promise<void> {
    this.doc.accounts[`${owner}|${bankAccountId}`] = state;
    return this.save();
  }

  /** See {@link PaymentStore.putOutbox}. */
  putOutbox(entry: OutboxEntry): Promise<void> {
    this.doc.outbox[entry.id] = entry;
    return this.save();
  }

  /** See {@link PaymentStore.outbox}. */
  outbox(): Promise<OutboxEntry[]> {
    return Promise.resolve(Object.values(this.doc.outbox));
  }

  /** See {@link PaymentStore.removeOutbox}. */
  removeOutbox(id: string): Promise<void> {
    delete this.doc.outbox[id];
    return this.save();
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

  private save(): Promise<void> {
    const path = this.path;
    if (path === null) return Promise.resolve();
    const text = JSON.stringify(this.doc);
    this.writing = this.writing.then(() => writePrivateFile(path, text));
    return this.writing;
  }
}
