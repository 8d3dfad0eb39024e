/**
 * The payment store in Redis (`REDIS_URL`), shared by replicas (see payment-request.store.ts
 * for what is stored, its bounds, its MACs and how transfers are counted).
 */
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import {
  NO_ACCOUNT,
  OUTBOX_MAC,
  REQUEST_MAC,
  RecordSeal,
  UNMATCHED_KEPT,
  isOpen,
  transferFingerprint,
} from './payment-request.store';
import type {
  AccountState,
  DueRequest,
  OutboxEntry,
  PaymentStore,
  PaymentStoreOptions,
  StoredEvent,
  StoredRequest,
  StoredTransfer,
  TransferChange,
} from './payment-request.store';

/**
 * One request and its indexes (a Lua function shared by both scripts). KEYS from `base`:
 * the owner's requests, the owners with open requests, the owner's open references, the
 * account's open references, the company's open references, the expiry index, the
 * company's closed references (scored by closing time); ARGV from `arg`: the reference, the
 * signed JSON, the owner, 1 when open, expiresAt or '', closedAt, the closed kept, the
 * expiry member.
 */
const PUT_REQUEST = `
local function put_request(base, arg)
  local ref = ARGV[arg]
  redis.call('HSET', KEYS[base], ref, ARGV[arg + 1])
  if ARGV[arg + 3] == '1' then
    redis.call('SADD', KEYS[base + 1], ARGV[arg + 2])
    redis.call('SADD', KEYS[base + 2], ref)
    redis.call('SADD', KEYS[base + 3], ref)
    redis.call('SADD', KEYS[base + 4], ref)
    if ARGV[arg + 4] ~= '' then redis.call('ZADD', KEYS[base + 5], tonumber(ARGV[arg + 4]), ARGV[arg + 7]) end
    return
  end
  redis.call('SREM', KEYS[base + 2], ref)
  redis.call('SREM', KEYS[base + 3], ref)
  redis.call('SREM', KEYS[base + 4], ref)
  redis.call('ZREM', KEYS[base + 5], ARGV[arg + 7])
  if redis.call('SCARD', KEYS[base + 2]) == 0 then redis.call('SREM', KEYS[base + 1], ARGV[arg + 2]) end
  if redis.call('ZSCORE', KEYS[base + 6], ref) then return end
  redis.call('ZADD', KEYS[base + 6], tonumber(ARGV[arg + 5]), ref)
  local extra = redis.call('ZCARD', KEYS[base + 6]) - tonumber(ARGV[arg + 6])
  if extra > 0 then
    for _, old in ipairs(redis.call('ZRANGE', KEYS[base + 6], 0, extra - 1)) do redis.call('HDEL', KEYS[base], old) end
    redis.call('ZREMRANGEBYRANK', KEYS[base + 6], 0, extra - 1)
  end
end
`;

/** A request and its deliveries. KEYS: the outbox, then the request's seven; ARGV: the request's eight, then pairs of outbox entry id and signed JSON. */
const PUT = `${PUT_REQUEST}
put_request(2, 1)
for i = 9, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`;

/**
 * One more occurrence of a transfer identity, what it changes and its webhook deliveries,
 * atomically. KEYS: the seen hash (identity → most occurrences one poll showed), the
 * company's unmatched list, the outbox, then the request's seven; ARGV: the identity, the
 * occurrence, the change's kind, the unmatched transfer's JSON, the last index of the
 * unmatched list kept, then the request's eight (when the kind is `request`), then pairs of
 * outbox entry id and signed JSON. Returns 1 when applied, 0 when that occurrence was counted before.
 * An `assigned` change removes the unmatched transfer's JSON (ARGV[4]) from the list instead of counting (0 when it is gone).
 */
const RECORD_TRANSFER = `${PUT_REQUEST}
if ARGV[3] == 'assigned' then
  if redis.call('LREM', KEYS[2], 1, ARGV[4]) == 0 then return 0 end
  put_request(4, 6)
  for i = 14, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
  return 1
end
local counted = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if counted >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == 'request' then
  put_request(4, 6)
elseif ARGV[3] == 'unmatched' then
  redis.call('LPUSH', KEYS[2], ARGV[4])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]))
end
for i = 14, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
return 1
`;

/**
 * The store in Redis, shared by replicas: a hash of signed requests per owner
 * (`<prefix>payments:requests:<owner>`) with sets of open references per owner, account and
 * company, a sorted set of expiries and one of closed references per company (pruned
 * oldest first), a hash of transfer identities per owner and account (the script decides
 * which replica counts an occurrence), a capped list of unmatched transfers, a hash of
 * signed outbox entries, and changes on the channel `<prefix>payments:events`.
 */
export class RedisPaymentStore implements PaymentStore {
  private readonly redis: Redis;
  private subscriber: Redis | null = null;
  private readonly events = new EventEmitter();
  private readonly seal: RecordSeal;

  /**
   * @param url - `REDIS_URL`
   * @param prefix - `REDIS_PREFIX`
   * @param options - the MAC, the bound and where refused records are reported
   */
  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly options: PaymentStoreOptions,
  ) {
    // Connects on first use: a gateway nobody asks for payments opens no connection.
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    this.redis.on('error', () => undefined);
    this.seal = new RecordSeal(options);
  }

  /** Never the URL (it may hold a password). */
  get where(): string {
    return `redis ${this.prefix}payments:*`;
  }

  private key(...parts: string[]): string {
    return `${this.prefix}payments:${parts.join(':')}`;
  }

  /** The request in a stored text, when its MAC verifies. */
  private request(text: string | null | undefined, owner: string, reference: string): StoredRequest | null {
    if (!text) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return this.seal.open<StoredRequest>(REQUEST_MAC, parsed, `${reference} of ${owner.slice(0, 8)}…`);
  }

  /** See {@link PaymentStore.get}. */
  async get(owner: string, reference: string): Promise<StoredRequest | null> {
    return this.request(await this.redis.hget(this.key('requests', owner), reference), owner, reference);
  }

  /** See {@link PaymentStore.getMany}: one HMGET. */
  async getMany(owner: string, references: readonly string[]): Promise<StoredRequest[]> {
    if (references.length === 0) return [];
    const texts = await this.redis.hmget(this.key('requests', owner), ...references);
    return texts.flatMap((text, i) => this.request(text, owner, references[i] ?? '') ?? []);
  }

  /** See {@link PaymentStore.list}. */
  async list(owner: string, factoryId: string): Promise<StoredRequest[]> {
    const [open, closed] = await Promise.all([
      this.redis.smembers(this.key('open-company', owner, factoryId)),
      this.redis.zrange(this.key('closed', owner, factoryId), 0, -1),
    ]);
    return this.getMany(owner, [...open, ...closed]);
  }

  /** See {@link PaymentStore.open}. */
  async open(owner: string): Promise<StoredRequest[]> {
    return this.getMany(owner, await this.redis.smembers(this.key('open', owner)));
  }

  /** See {@link PaymentStore.openCount}. */
  openCount(owner: string, kind: 'account' | 'company', id: string): Promise<number> {
    return this.redis.scard(this.key(kind === 'account' ? 'open-account' : 'open-company', owner, id));
  }

  /** See {@link PaymentStore.owners}. */
  owners(): Promise<string[]> {
    return this.redis.smembers(this.key('owners'));
  }

  /** See {@link PaymentStore.due}. */
  async due(now: number, limit: number): Promise<DueRequest[]> {
    const members = await this.redis.zrangebyscore(this.key('expiring'), '-inf', now, 'LIMIT', 0, limit);
    return members.map((member) => {
      const [owner = '', reference = ''] = member.split('\n');
      return { owner, reference };
    });
  }

  /** The seven keys and eight arguments of a request for {@link PUT_REQUEST}. */
  private requestParts(request: StoredRequest): { keys: string[]; args: string[] } {
    const { owner, reference } = request;
    return {
      keys: [
        this.key('requests', owner),
        this.key('owners'),
        this.key('open', owner),
        this.key('open-account', owner, request.bankAccountId),
        this.key('open-company', owner, request.factoryId),
        this.key('expiring'),
        this.key('closed', owner, request.factoryId),
      ],
      args: [
        reference,
        JSON.stringify(this.seal.sign(REQUEST_MAC, request)),
        owner,
        isOpen(request.status) ? '1' : '0',
        request.expiresAt === null ? '' : String(request.expiresAt),
        String(request.closedAt ?? request.settledAt ?? request.createdAt),
        String(this.options.keptPerCompany),
        `${owner}\n${reference}`,
      ],
    };
  }

  private outboxArgs(outbox: readonly OutboxEntry[]): string[] {
    return outbox.flatMap((entry) => [entry.id, JSON.stringify(this.seal.sign(OUTBOX_MAC, entry))]);
  }

  /** See {@link PaymentStore.put}: one script, so the request, its indexes and its deliveries land together. */
  async put(request: StoredRequest, outbox: readonly OutboxEntry[] = []): Promise<void> {
    const { keys, args } = this.requestParts(request);
    await this.redis.eval(PUT, keys.length + 1, this.key('outbox'), ...keys, ...args, ...this.outboxArgs(outbox));
  }

  /** See {@link PaymentStore.markSeen}. */
  async markSeen(owner: string, scope: string, mark: string): Promise<boolean> {
    return (await this.redis.sadd(this.key('seen', owner, scope), mark)) === 1;
  }

  /** See {@link PaymentStore.recordTransfer}: one Lua script, so the count, the change and the deliveries land together or not at all. */
  async recordTransfer(
    owner: string,
    bankAccountId: string,
    fingerprint: string,
    occurrence: number,
    change: TransferChange,
    outbox: readonly OutboxEntry[] = [],
  ): Promise<boolean> {
    const request =
      change.kind === 'request' || change.kind === 'assigned'
        ? this.requestParts(change.request)
        : {
            keys: Array.from({ length: 7 }, () => this.key('requests', owner)),
            args: Array.from({ length: 8 }, () => ''),
          };
    const list =
      change.kind === 'unmatched' || change.kind === 'assigned'
        ? this.key('unmatched', owner, change.factoryId)
        : this.key('unmatched', owner, '');
    // An assigned transfer is removed as the list holds it (its JSON as written, found by its identity).
    const assigned =
      change.kind === 'assigned'
        ? (await this.redis.lrange(list, 0, -1)).find(
            (text) => transferFingerprint(JSON.parse(text) as StoredTransfer) === transferFingerprint(change.transfer),
          )
        : undefined;
    if (change.kind === 'assigned' && assigned === undefined) return false;
    const keys = [this.key('counted', owner, bankAccountId), list, this.key('outbox'), ...request.keys];
    const args = [
      fingerprint,
      String(occurrence),
      change.kind,
      change.kind === 'unmatched' ? JSON.stringify(change.transfer) : (assigned ?? ''),
      String(UNMATCHED_KEPT - 1),
      ...request.args,
      ...this.outboxArgs(outbox),
    ];
    return (await this.redis.eval(RECORD_TRANSFER, keys.length, ...keys, ...args)) === 1;
  }

  /** See {@link PaymentStore.unmatched}. */
  async unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]> {
    return (await this.redis.lrange(this.key('unmatched', owner, factoryId), 0, -1)).map(
      (text) => JSON.parse(text) as StoredTransfer,
    );
  }

  /** See {@link PaymentStore.account}. */
  async account(owner: string, bankAccountId: string): Promise<AccountState> {
    const text = await this.redis.get(this.key('account', owner, bankAccountId));
    return text ? { ...NO_ACCOUNT, ...(JSON.parse(text) as Partial<AccountState>) } : NO_ACCOUNT;
  }

  /** See {@link PaymentStore.setAccount}. */
  async setAccount(owner: string, bankAccountId: string, state: AccountState): Promise<void> {
    await this.redis.set(this.key('account', owner, bankAccountId), JSON.stringify(state));
  }

  /** See {@link PaymentStore.putOutbox}. */
  async putOutbox(entry: OutboxEntry): Promise<void> {
    await this.redis.hset(this.key('outbox'), entry.id, JSON.stringify(this.seal.sign(OUTBOX_MAC, entry)));
  }

  /** See {@link PaymentStore.outbox}: entries whose MAC does not verify are left in Redis, unused. */
  async outbox(): Promise<OutboxEntry[]> {
    const stored = await this.redis.hgetall(this.key('outbox'));
    return Object.entries(stored).flatMap(([id, text]) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      return this.seal.open<OutboxEntry>(OUTBOX_MAC, parsed, id) ?? [];
    });
  }

  /** See {@link PaymentStore.removeOutbox}. */
  async removeOutbox(id: string): Promise<void> {
    await this.redis.hdel(this.key('outbox'), id);
  }

  /** Publishes on `<prefix>payments:events`; every replica's listeners get it (this one's through Redis too). */
  async publish(event: StoredEvent): Promise<void> {
    await this.redis.publish(this.key('events'), JSON.stringify(event));
  }

  /** See {@link PaymentStore.onEvent}; subscribes to the channel on first use. */
  onEvent(listener: (event: StoredEvent) => void): () => void {
    if (!this.subscriber) {
      // Subscribed on every 'ready' by us, not by ioredis's auto-resubscribe: its internal
      // SUBSCRIBE after a reconnection has no handler, so a close while it is on its way was
      // an unhandled rejection ("Connection is closed").
      const subscriber = new Redis(this.url, { lazyConnect: false, autoResubscribe: false });
      subscriber.on('error', () => undefined);
      subscriber.on('message', (_channel: string, text: string) =>
        this.events.emit('event', JSON.parse(text) as StoredEvent),
      );
      subscriber.on('ready', () => void subscriber.subscribe(this.key('events')).catch(() => undefined));
      this.subscriber = subscriber;
    }
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  /**
   * Closes the connections. QUIT only on a connection that is up: on one that never
   * connected (a Redis that does not answer) it would connect first, retrying forever and
   * holding the process; `disconnect` then stops any reconnecting.
   */
  async close(): Promise<void> {
    this.subscriber?.disconnect();
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => undefined);
    this.redis.disconnect();
  }
}
