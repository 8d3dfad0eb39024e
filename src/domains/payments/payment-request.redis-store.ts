/**
 * The payment store in Redis (`REDIS_URL`), shared by replicas (see payment-request.store.ts
 * for what is stored).
 */
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { NO_ACCOUNT, UNMATCHED_KEPT, isOpen } from './payment-request.store';
import type { AccountState, OutboxEntry, PaymentStore, StoredEvent, StoredRequest, StoredTransfer, TransferChange } from './payment-request.store';

/**
 * A transfer seen for the first time, what it changes and its webhook deliveries,
 * atomically. KEYS: the seen set, the owner's requests, the owners, the company's
 * unmatched list, the outbox; ARGV: the fingerprint, the change's kind, the request's
 * reference, the JSON (request or transfer), the owner, the last index of the unmatched
 * list kept, then pairs of outbox entry id and JSON. Returns 1 when applied, 0 when seen before.
 */
const RECORD_TRANSFER = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[2] == 'request' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  redis.call('SADD', KEYS[3], ARGV[5])
elseif ARGV[2] == 'unmatched' then
  redis.call('LPUSH', KEYS[4], ARGV[4])
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[6]))
end
for i = 7, #ARGV, 2 do
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1])
end
return 1
`;

/**
 * The store in Redis, shared by replicas: a hash of requests per owner
 * (`<prefix>payments:requests:<owner>`), a set of owners with open requests, a set of
 * seen fingerprints per owner and account (`SADD` decides which replica counts a
 * transfer), a capped list of unmatched transfers, and changes on the channel
 * `<prefix>payments:events`.
 */
export class RedisPaymentStore implements PaymentStore {
  private readonly redis: Redis;
  private subscriber: Redis | null = null;
  private readonly events = new EventEmitter();

  /**
   * @param url - `REDIS_URL`
   * @param prefix - `REDIS_PREFIX`
   */
  constructor(
    private readonly url: string,
    private readonly prefix: string,
  ) {
    // Connects on first use: a gateway nobody asks for payments opens no connection.
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    this.redis.on('error', () => undefined);
  }

  /** Never the URL (it may hold a password). */
  get where(): string {
    return `redis ${this.prefix}payments:*`;
  }

  private key(...parts: string[]): string {
    return `${this.prefix}payments:${parts.join(':')}`;
  }

  /** See {@link PaymentStore.get}. */
  async get(owner: string, reference: string): Promise<StoredRequest | null> {
    const text = await this.redis.hget(this.key('requests', owner), reference);
    return text ? (JSON.parse(text) as StoredRequest) : null;
  }

  /** See {@link PaymentStore.list}. */
  async list(owner: string): Promise<StoredRequest[]> {
    return Object.values(await this.redis.hgetall(this.key('requests', owner))).map((text) => JSON.parse(text) as StoredRequest);
  }

  /** See {@link PaymentStore.owners}. */
  async owners(): Promise<string[]> {
    const owners = await this.redis.smembers(this.key('owners'));
    const open: string[] = [];
    for (const owner of owners) if ((await this.list(owner)).some((r) => isOpen(r.status))) open.push(owner);
    return open;
  }

  /** See {@link PaymentStore.put}: one MULTI, so the request and its deliveries land together. */
  async put(request: StoredRequest, outbox: readonly OutboxEntry[] = []): Promise<void> {
    const step = this.redis.multi().hset(this.key('requests', request.owner), request.reference, JSON.stringify(request)).sadd(this.key('owners'), request.owner);
    for (const entry of outbox) step.hset(this.key('outbox'), entry.id, JSON.stringify(entry));
    await step.exec();
  }

  /** See {@link PaymentStore.markSeen}. */
  async markSeen(owner: string, bankAccountId: string, fingerprint: string): Promise<boolean> {
    return (await this.redis.sadd(this.key('seen', owner, bankAccountId), fingerprint)) === 1;
  }

  /** See {@link PaymentStore.recordTransfer}: one Lua script, so the fingerprint, the change and the deliveries land together or not at all. */
  async recordTransfer(owner: string, bankAccountId: string, fingerprint: string, change: TransferChange, outbox: readonly OutboxEntry[] = []): Promise<boolean> {
    const keys = [this.key('seen', owner, bankAccountId), this.key('requests', owner), this.key('owners'), this.key('unmatched', owner, change.kind === 'unmatched' ? change.factoryId : ''), this.key('outbox')];
    const args = [
      fingerprint,
      change.kind,
      change.kind === 'request' ? change.request.reference : '',
      change.kind === 'request' ? JSON.stringify(change.request) : change.kind === 'unmatched' ? JSON.stringify(change.transfer) : '',
      owner,
      String(UNMATCHED_KEPT - 1),
      ...outbox.flatMap((entry) => [entry.id, JSON.stringify(entry)]),
    ];
    return (await this.redis.eval(RECORD_TRANSFER, keys.length, ...keys, ...args)) === 1;
  }

  /** See {@link PaymentStore.unmatched}. */
  async unmatched(owner: string, factoryId: string): Promise<StoredTransfer[]> {
    return (await this.redis.lrange(this.key('unmatched', owner, factoryId), 0, -1)).map((text) => JSON.parse(text) as StoredTransfer);
  }

  /** See {@link PaymentStore.account}. */
  async account(owner: string, bankAccountId: string): Promise<AccountState> {
    const text = await this.redis.get(this.key('account', owner, bankAccountId));
    return text ? (JSON.parse(text) as AccountState) : NO_ACCOUNT;
  }

  /** See {@link PaymentStore.setAccount}. */
  async setAccount(owner: string, bankAccountId: string, state: AccountState): Promise<void> {
    await this.redis.set(this.key('account', owner, bankAccountId), JSON.stringify(state));
  }

  /** See {@link PaymentStore.putOutbox}. */
  async putOutbox(entry: OutboxEntry): Promise<void> {
    await this.redis.hset(this.key('outbox'), entry.id, JSON.stringify(entry));
  }

  /** See {@link PaymentStore.outbox}. */
  async outbox(): Promise<OutboxEntry[]> {
    return Object.values(await this.redis.hgetall(this.key('outbox'))).map((text) => JSON.parse(text) as OutboxEntry);
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
      subscriber.on('message', (_channel: string, text: string) => this.events.emit('event', JSON.parse(text) as StoredEvent));
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
