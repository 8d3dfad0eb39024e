/**
 * The payment desk: creates, reads and cancels payment requests in their store, matches
 * the transfers the account pollers see, expires what is due, and tells subscribers
 * (and webhooks) of every status change. One per gateway process.
 *
 * Polling is not its own: the desk asks the poll hub (through {@link AccountPolling},
 * attached by `src/subscriptions/`) to watch each account with open requests, with the
 * `transactionAdded` feed, so an account has one poller per key whether clients
 * subscribe to its transactions, wait for payments, or both. The hub calls back with
 * each page it polled; an account without open requests is not watched (it costs nothing).
 */
import { EventEmitter } from 'node:events';
import type { UpstreamSession } from '../../economy';
import { GatewayError } from '../../errors/gateway-error';
import type { Feed } from '../feeds/feed';
import { transactionsFeed } from '../bank-accounts/bank-account.subscription';
import type { TransactionPage } from '../shared/bank-account.type';
import { eventStream } from './payment-event.stream';
import { newReference, normaliseReference } from './payment-reference';
import { expired } from './payment-request.matching';
import { OPEN_REQUESTS_MAX } from './payment-desk.types';
import { VISIBLE_WINDOW } from '../bank-accounts/transaction-window';
import type {
  AccountPolling,
  NewRequest,
  PaymentCaller,
  PaymentDeskOptions,
  PaymentWarning,
} from './payment-desk.types';
import { isOpen } from './payment-request.store';
import type { OutboxEntry, PaymentStore, StoredEvent, StoredRequest, StoredTransfer } from './payment-request.store';
import { matchPage } from './payment-request.page-matching';
import type { PageMatching } from './payment-request.page-matching';
import { PaymentStatus } from './payment-request.type';

/** Expiries handled per sweep (a second apart): a backlog is worked off over a few sweeps, never in one long turn. */
const EXPIRIES_PER_SWEEP = 200;

/** How often the held keys' open requests are checked again, ms (a watch whose first poll failed starts again). */
const HELD_KEYS_EVERY_MS = 60_000;

/** See the module comment. */
export class PaymentDesk {
  /** Emits `matched(bankAccountId)` after each polled page was matched, and `listening(factoryId)` when a subscriber's event stream opens (tests and tools wait for them instead of sleeping). */
  readonly activity = new EventEmitter();
  private polling: AccountPolling | null = null;
  private readonly watches = new Map<string, Promise<(() => void) | null>>();
  private readonly bus = new EventEmitter();
  private stopEvents: (() => void) | null = null;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;
  private heldCheckedAt = -Infinity;
  private outboxFor: ((event: StoredEvent) => OutboxEntry[]) | null = null;
  private readonly closers: Array<() => Promise<void>> = [];
  /** Serialises matching per owner and account (a page is matched whole before the next). */
  private readonly matching = new Map<string, Promise<void>>();

  constructor(
    /** Where requests are kept. */
    readonly store: PaymentStore,
    private readonly options: PaymentDeskOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.bus.setMaxListeners(0);
  }

  /**
   * Writes the webhook deliveries of each status change (a transfer's, an expiry) into the
   * outbox in the same atomic step as the change (the webhook dispatcher's `entries`), so a
   * crash right after that step loses no delivery; such events are published `outboxed`.
   */
  outboxWith(entries: (event: StoredEvent) => OutboxEntry[]): void {
    this.outboxFor = entries;
  }

  /** Starts listening to the store's events (with Redis: its channel) once: at {@link attach}, or at the first event stream. */
  private listen(): void {
    this.stopEvents ??= this.store.onEvent((event) => this.bus.emit('event', event));
  }

  /** Lets the desk poll through the hub, resumes the held keys' open requests, and expires due requests every second. */
  attach(polling: AccountPolling): void {
    this.polling = polling;
    this.listen();
    const background = (work: Promise<void>): void =>
      void work.catch((error: unknown) => this.options.onError?.(error));
    background(this.resumeHeld());
    this.sweeper = setInterval(() => {
      background(this.sweep());
      if (this.now() - this.heldCheckedAt >= HELD_KEYS_EVERY_MS) background(this.resumeHeld());
    }, 1000);
    this.sweeper.unref();
  }

  /**
   * Watches the accounts with open requests of every character whose key the gateway holds
   * (the vault's: requests made through an access token, or by a webhook's character), so
   * that after a restart they are polled again without a call. With Redis every replica
   * does so, and the pollers' sharing polls each account once. Requests made with a key the
   * gateway does not hold wait for their owner's next call (see {@link resume}).
   */
  async resumeHeld(): Promise<void> {
    this.heldCheckedAt = this.now();
    const held = this.options.heldKeys?.() ?? [];
    if (held.length === 0 || !this.polling) return;
    const owners = new Set(await this.store.owners());
    await Promise.all(held.filter((caller) => owners.has(caller.keyId)).map((caller) => this.resume(caller)));
  }

  /**
   * Refuses a new request of `owner`'s company when it has its most open requests.
   *
   * @throws GatewayError `CONFLICT` at `PAYMENT_OPEN_REQUESTS_MAX` open requests
   */
  async checkRoom(owner: string, factoryId: string): Promise<void> {
    const max = this.options.openMax ?? OPEN_REQUESTS_MAX;
    if ((await this.store.openCount(owner, 'company', factoryId)) >= max) {
      throw new GatewayError(
        'CONFLICT',
        `The company ${factoryId} has ${max} open payment requests, the most allowed (PAYMENT_OPEN_REQUESTS_MAX): cancel some, or wait until they are paid or expire.`,
      );
    }
  }

  /**
   * Stores a new request with a fresh reference, and starts watching its account (without
   * waiting for the first poll: a poll may wait for the key's budget, the answer does not).
   *
   * @throws GatewayError `CONFLICT` when the company has its most open requests ({@link checkRoom}); Error from the store
   */
  async create(caller: PaymentCaller, input: NewRequest): Promise<StoredRequest> {
    await this.checkRoom(caller.keyId, input.factoryId);
    const now = this.now();
    let reference = this.newReference();
    while (await this.store.get(caller.keyId, reference)) reference = this.newReference();
    const request: StoredRequest = {
      owner: caller.keyId,
      reference,
      factoryId: input.factoryId,
      bankAccountId: input.bankAccountId,
      vban: input.vban,
      amount: input.amount,
      status: PaymentStatus.PENDING,
      transfers: [],
      note: input.note,
      createdAt: now,
      expiresAt: input.expiresInSeconds === null ? null : now + input.expiresInSeconds * 1000,
      settledAt: null,
    };
    const state = await this.store.account(caller.keyId, input.bankAccountId);
    if (state.since === null)
      await this.store.setAccount(caller.keyId, input.bankAccountId, {
        ...state,
        since: now,
        factoryId: input.factoryId,
      });
    await this.store.put(request);
    void this.watch(caller, request.bankAccountId, request.vban);
    return request;
  }

  /**
   * Cancels an open request.
   *
   * @throws GatewayError `NOT_FOUND` for an unknown reference, `CONFLICT` when it is no longer open
   */
  async cancel(owner: string, reference: string): Promise<StoredRequest> {
    const request = await this.get(owner, reference);
    if (!request) throw new GatewayError('NOT_FOUND', `No payment request ${reference} of this character.`);
    if (!isOpen(request.status))
      throw new GatewayError(
        'CONFLICT',
        `The payment request ${request.reference} is ${request.status}: only PENDING or PARTIALLY_PAID requests can be cancelled.`,
      );
    const cancelled = { ...request, status: PaymentStatus.CANCELLED, closedAt: this.now() };
    await this.store.put(cancelled);
    await this.release(owner, request.bankAccountId);
    return cancelled;
  }

  /** The request of `owner` with this reference (normalised: case, separators, look-alikes), expired when due; null if unknown. */
  async get(owner: string, reference: string): Promise<StoredRequest | null> {
    const found = await this.store.get(owner, normaliseReference(reference));
    return found ? this.expireIfDue(found) : null;
  }

  /** The requests of `owner`'s company, newest first, optionally of one status. */
  async list(owner: string, factoryId: string, status: PaymentStatus | null): Promise<StoredRequest[]> {
    const all = await this.store.list(owner, factoryId);
    const current = await Promise.all(all.map((r) => this.expireIfDue(r)));
    return current.filter((r) => status === null || r.status === status).sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The incoming transfers of `owner`'s company that matched no request, newest first. */
  unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]> {
    return this.store.unmatched(owner, factoryId);
  }

  /** The warning of an account whose transfers may have been missed (`WINDOW_OVERRUN`), or null. */
  async warningFor(owner: string, bankAccountId: string): Promise<PaymentWarning | null> {
    const state = await this.store.account(owner, bankAccountId);
    if (state.overrunAt === null) return null;
    return {
      code: 'WINDOW_OVERRUN',
      message: `More than ${VISIBLE_WINDOW} transactions arrived on account ${bankAccountId} between two polls: the upstream shows only the newest ${VISIBLE_WINDOW}, so transfers may be missing.`,
      bankAccountId,
      at: new Date(state.overrunAt).toISOString(),
    };
  }

  /** Watches every account of the caller that has open requests (after a restart, on the caller's next payments operation). */
  async resume(caller: PaymentCaller): Promise<void> {
    const open = await this.store.open(caller.keyId);
    const accounts = new Map(open.map((r) => [r.bankAccountId, r.vban]));
    await Promise.all([...accounts].map(([account, vban]) => this.watch(caller, account, vban)));
  }

  /** Status changes of `owner`'s company, as they happen; `return()` stops them. */
  events(owner: string, factoryId: string): AsyncIterableIterator<StoredEvent> {
    this.listen();
    const stream = eventStream(this.bus, owner, factoryId);
    this.activity.emit('listening', factoryId);
    return stream;
  }

  /**
   * Matches one polled page of an account (and, when the page shows that more arrived
   * than it holds, the further pages up to skip 200): each incoming transfer once, to
   * the request whose reference it holds, or to the unmatched ones.
   */
  observe(
    owner: string,
    bankAccountId: string,
    vban: string,
    page: TransactionPage,
    session: UpstreamSession | null,
  ): Promise<void> {
    const id = `${owner}|${bankAccountId}`;
    const run = (this.matching.get(id) ?? Promise.resolve()).then(async () => {
      await this.match(owner, bankAccountId, vban, page, session);
      this.activity.emit('matched', bankAccountId);
    });
    const settled = run.catch(() => undefined);
    this.matching.set(id, settled);
    void settled.then(() => {
      if (this.matching.get(id) === settled) this.matching.delete(id);
    });
    return run;
  }

  /** Expires the open requests that are due (once across replicas), with their events: read from the store's expiry index, at most a few hundred per sweep. */
  async sweep(): Promise<void> {
    for (const { owner, reference } of await this.store.due(this.now(), EXPIRIES_PER_SWEEP)) {
      const request = await this.store.get(owner, reference);
      if (request) await this.expireIfDue(request);
    }
  }

  /** Runs `close` (e.g. the webhook dispatcher's) before the desk closes its store. */
  closeWith(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Stops watching, expiring and listening. */
  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) await close();
    clearInterval(this.sweeper);
    this.stopEvents?.();
    for (const watch of this.watches.values()) (await watch)?.();
    this.watches.clear();
    await this.store.close();
  }

  private newReference(): string {
    return (this.options.reference ?? newReference)();
  }

  private async expireIfDue(request: StoredRequest): Promise<StoredRequest> {
    const due = expired(request, this.now());
    if (!due) return request;
    // Once across replicas: the first to mark it expires it and sends the event.
    if (await this.store.markSeen(request.owner, 'expired', request.reference)) {
      const event: StoredEvent = {
        kind: 'EXPIRED',
        request: due,
        observedAt: this.now(),
        outboxed: this.outboxFor !== null,
      };
      await this.store.put(due, this.outboxFor ? this.outboxFor(event) : []);
      await this.store.publish(event);
      await this.release(request.owner, request.bankAccountId);
    }
    return due;
  }

  /** Matches one poll of an account ({@link matchPage}), and stops watching an account left without open requests. */
  private async match(
    owner: string,
    bankAccountId: string,
    vban: string,
    page: TransactionPage,
    session: UpstreamSession | null,
  ): Promise<void> {
    const desk: PageMatching = { store: this.store, now: this.now, outboxFor: this.outboxFor };
    await matchPage(desk, owner, bankAccountId, vban, page, session);
    if ((await this.store.openCount(owner, 'account', bankAccountId)) === 0) await this.release(owner, bankAccountId);
  }

  private watch(caller: PaymentCaller, bankAccountId: string, vban: string): Promise<unknown> {
    const polling = this.polling;
    const id = `${caller.keyId}|${bankAccountId}`;
    if (!polling || this.watches.has(id)) return this.watches.get(id) ?? Promise.resolve();
    const watching = polling
      .watch(caller, transactionsFeed(bankAccountId) as Feed<TransactionPage, unknown>, (page, session) =>
        this.observe(caller.keyId, bankAccountId, vban, page, session).catch((error: unknown) =>
          this.options.onError?.(error),
        ),
      )
      .catch((error: unknown) => {
        this.watches.delete(id);
        this.options.onError?.(error);
        return null;
      });
    this.watches.set(id, watching);
    return watching;
  }

  private async release(owner: string, bankAccountId: string): Promise<void> {
    const id = `${owner}|${bankAccountId}`;
    const watch = this.watches.get(id);
    if (!watch) return;
    if ((await this.store.openCount(owner, 'account', bankAccountId)) > 0) return;
    this.watches.delete(id);
    (await watch)?.();
  }
}

declare module '../gateway-context' {
  interface DomainServices {
    /** The payment desk of the process (absent: payment requests are off in this context). */
    payments?: PaymentDesk;
  }
}
