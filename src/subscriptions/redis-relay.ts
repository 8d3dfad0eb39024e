import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayErrorCode } from '../errors/gateway-error';

/** What the polling replica sends the others about one (key, resource). */
export type RelayMessage =
  | { events: unknown[]; state: unknown }
  | { error: { code: GatewayErrorCode; message: string; extensions: Record<string, unknown> }; final: boolean };

/**
 * How replicas share one poller per (key, resource): a lease decides who polls, and
 * the poller's events (with its new state, for a takeover) reach every replica.
 */
export interface PollRelay {
  /** Starts receiving the messages of a poller id. */
  join(pollerId: string, handler: (message: RelayMessage) => void): Promise<void>;
  /** Stops receiving them. */
  leave(pollerId: string): Promise<void>;
  /** Takes or renews the lease of a poller id; true when this replica polls it. */
  lead(pollerId: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease up (the last subscriber here left), so another replica takes over at once. */
  resign(pollerId: string): Promise<void>;
  /** Sends a message to every replica that joined the id (this one's handler ignores it: it leads). */
  publish(pollerId: string, message: RelayMessage): Promise<void>;
  /** Stops every subscription of this replica and closes its connections. */
  close(): Promise<void>;
}

/**
 * How a `Date` travels in a relay message: `{"$date": "<ISO 8601>"}`, whatever field holds
 * it, so the relay needs to know no event's or state's fields. Plain strings stay strings,
 * even when they look like dates.
 */
const DATE_TAG = '$date';

/** A `JSON.stringify` replacer that tags dates (it sees the holder's own value, before `toJSON`). */
function tagDates(this: unknown, key: string, value: unknown): unknown {
  const own = (this as Record<string, unknown>)[key];
  return own instanceof Date ? { [DATE_TAG]: Number.isNaN(own.getTime()) ? null : own.toISOString() } : value;
}

/** A `JSON.parse` reviver that turns tagged dates back into `Date`s. */
function revive(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== DATE_TAG) return value;
  const text = (value as Record<string, unknown>)[DATE_TAG];
  return new Date(typeof text === 'string' ? text : Number.NaN);
}

const LEAD = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

const RESIGN = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * {@link PollRelay} over Redis: the lease is a key set with `NX PX` and renewed by its
 * holder on every turn (a Lua compare-and-set, so only the holder renews or deletes
 * it); messages go through pub/sub on one channel per poller id. Ids contain hashed
 * keys only. When Redis does not answer, every replica polls for itself (events stay
 * correct; only the sharing is lost) until it answers again.
 */
export class RedisPollRelay implements PollRelay {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly replica = randomUUID();
  private readonly handlers = new Map<string, (message: RelayMessage) => void>();

  constructor(
    private readonly options: {
      url: string;
      prefix: string;
      commandTimeoutMs: number;
      logger?: Logger;
      onError?: () => void;
    },
  ) {
    // disconnectTimeout 0: close() leaves no ioredis timer (2 s by default) behind, also
    // for a connection waiting to reconnect.
    const common = { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false, disconnectTimeout: 0 };
    this.redis = new Redis(options.url, { ...common, commandTimeout: options.commandTimeoutMs });
    this.subscriber = new Redis(options.url, { ...common, enableOfflineQueue: true });
    this.redis.on('error', () => options.onError?.());
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, payload: string) => this.dispatch(channel, payload));
  }

  private channel(pollerId: string): string {
    return `${this.options.prefix}subs:events:${pollerId}`;
  }

  private leaseKey(pollerId: string): string {
    return `${this.options.prefix}subs:lease:${pollerId}`;
  }

  /** Subscribes to the poller's channel (`<prefix>subs:events:<pollerId>`); a Redis failure is reported through `onError`, not thrown. */
  async join(pollerId: string, handler: (message: RelayMessage) => void): Promise<void> {
    this.handlers.set(this.channel(pollerId), handler);
    await this.subscriber.subscribe(this.channel(pollerId)).catch(() => this.options.onError?.());
  }

  /** Unsubscribes from the poller's channel; never rejects. */
  async leave(pollerId: string): Promise<void> {
    this.handlers.delete(this.channel(pollerId));
    await this.subscriber.unsubscribe(this.channel(pollerId)).catch(() => undefined);
  }

  /**
   * Takes or renews the lease key `<prefix>subs:lease:<pollerId>` for `leaseMs` ms (a Lua compare-and-set); resolves true when this replica holds it, and true when Redis fails (then every replica polls for itself).
   */
  async lead(pollerId: string, leaseMs: number): Promise<boolean> {
    try {
      const result = await this.redis.eval(LEAD, 1, this.leaseKey(pollerId), this.replica, String(Math.ceil(leaseMs)));
      return result === 1;
    } catch {
      this.options.onError?.();
      return true; // without Redis, poll here rather than not at all
    }
  }

  /** Deletes the lease when this replica holds it, so another one takes over at its next turn; never rejects. */
  async resign(pollerId: string): Promise<void> {
    await this.redis.eval(RESIGN, 1, this.leaseKey(pollerId), this.replica).catch(() => undefined);
  }

  /**
   * Publishes a message as JSON on the poller's channel (a `Date` is tagged as `{"$date": ISO}` and revived on receipt); a Redis failure is reported through `onError`, not thrown.
   */
  async publish(pollerId: string, message: RelayMessage): Promise<void> {
    await this.redis
      .publish(this.channel(pollerId), JSON.stringify(message, tagDates))
      .catch(() => this.options.onError?.());
  }

  private dispatch(channel: string, payload: string): void {
    const handler = this.handlers.get(channel);
    if (!handler) return;
    try {
      handler(JSON.parse(payload, (key, value: unknown) => revive(key, value)) as RelayMessage);
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'ignored a malformed subscription relay message');
    }
  }

  /** Drops every handler and disconnects both Redis connections at once (no wait for pending commands). */
  async close(): Promise<void> {
    this.handlers.clear();
    this.redis.disconnect();
    this.subscriber.disconnect();
  }
}
