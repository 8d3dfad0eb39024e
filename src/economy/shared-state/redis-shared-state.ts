import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CacheEntry } from '../cache/cache-entry';
import { deserializeEntry, serializeEntry } from './entry-json';
import { keyLimitsValue, parseKeyLimits } from './key-limits-value';
import { RedisHealth } from './redis-health';
import { RedisInvalidations } from './redis-invalidations';
import { settleWindowSlot, takeWindowSlot } from './redis-window-log';
import { releaseWriteLock, takeWriteLock } from './redis-write-lock';
import type {
  ChangedResource,
  InvalidationHandler,
  LearnedAllowance,
  SharedKeyLimits,
  SharedState,
} from './shared-state';

/** Settings of {@link RedisSharedState}. */
export interface RedisStateOptions {
  /** `REDIS_URL`, e.g. `redis://127.0.0.1:6379/0`. */
  url: string;
  /** Longest wait for one Redis command before it counts as failed, ms (`REDIS_TIMEOUT_MS`). */
  commandTimeoutMs: number;
  /** Prefix of every Redis key (`REDIS_PREFIX`). */
  prefix: string;
  /** Longest cooldown stored or believed, ms (`RETRY_AFTER_MAX_SECONDS`); default one hour. */
  maxCooldownMs?: number;
  /** Logs one line per Redis incident and one when it is back. */
  logger: Logger;
  /** Counts failed Redis operations (metrics). */
  onError?: () => void;
  /** Reports the connection state (metrics). */
  onState?: (up: boolean) => void;
}

/**
 * {@link SharedState} in Redis through `ioredis`, with a Lua sliding-window log for the
 * shared budget. Commands never queue while Redis is away (`enableOfflineQueue: false`)
 * and time out after `commandTimeoutMs`, so a dead or slow Redis costs each operation
 * at most that long once, then nothing until it is back; ioredis reconnects by itself.
 * Every Redis key starts with the prefix and holds only hashed API keys; every value
 * carries its TTL in Redis.
 */
export class RedisSharedState implements SharedState {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly invalidations: RedisInvalidations;
  private readonly health: RedisHealth;

  /** Connects (both connections start at once; see the class comment). */
  constructor(private readonly options: RedisStateOptions) {
    const common = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs * 10),
      retryStrategy: (times: number) => Math.min(100 * times, 2000),
      lazyConnect: false,
      disconnectTimeout: 0, // close() ends at once: no ioredis timer outlives it waiting for a gone socket
    };
    this.redis = new Redis(options.url, common);
    this.subscriber = new Redis(options.url, { ...common, enableOfflineQueue: true, commandTimeout: undefined });
    this.health = new RedisHealth(options, {
      ping: () => this.redis.ping(),
      // A command failed: this replica's own invalidations may not have gone out either.
      down: () => this.invalidations.markOutOfSync(),
      up: () => void this.invalidations.resync(),
    });
    this.invalidations = new RedisInvalidations(
      {
        redis: this.redis,
        subscriber: this.subscriber,
        isUp: () => this.health.up,
        fail: (error) => this.health.markDown(error),
      },
      { channel: `${options.prefix}invalidate`, log: `${options.prefix}invalidations` },
      options.logger,
    );
    this.redis.on('ready', () => this.health.markUp());
    this.redis.on('error', (error: Error) => this.health.markDown(error));
    this.redis.on('end', () => this.health.markDown(new Error('connection closed')));
    this.subscriber.on('error', () => undefined); // reported through the main connection
  }

  /** Whether the last Redis command or connection event succeeded. */
  get healthy(): boolean {
    return this.health.up;
  }

  /** Resolves when Redis answers (at once when it does now); for start-up and tests. */
  whenUp(): Promise<void> {
    return this.health.whenUp();
  }

  /** Resolves when this replica holds every invalidation (connected, pending writes re-sent, missed messages caught up); for tests and start-up. */
  whenInSync(): Promise<void> {
    return this.invalidations.whenInSync();
  }

  /** Resolves when this replica has noticed that it may miss invalidations (for tests). */
  whenOutOfSync(): Promise<void> {
    return this.invalidations.whenOutOfSync();
  }

  /** See {@link SharedState.invalidationsInDoubt}. */
  invalidationsInDoubt(): boolean {
    return this.invalidations.inDoubt();
  }

  /** See {@link SharedState.onReconnect}. */
  onReconnect(handler: () => Promise<void>): void {
    this.invalidations.onReconnect(handler);
  }

  /** Runs one Redis command; on failure reports the incident and returns `fallback`. */
  private guard<T>(command: () => Promise<T>, fallback: T): Promise<T> {
    return this.health.guard(command, fallback);
  }

  private get maxCooldownMs(): number {
    return this.options.maxCooldownMs ?? 3_600_000;
  }

  private key(kind: string, name: string): string {
    return `${this.options.prefix}${kind}:${name}`;
  }

  /** See {@link SharedState.getEntry}; a value that does not parse is a miss. */
  async getEntry(key: string): Promise<CacheEntry | undefined> {
    const text = await this.guard(() => this.redis.get(this.key('c', key)), null);
    if (text === null) return undefined;
    try {
      return deserializeEntry(text);
    } catch {
      return undefined;
    }
  }

  /** See {@link SharedState.setEntry}. */
  async setEntry(key: string, entry: CacheEntry, lifetimeMs: number): Promise<void> {
    await this.guard(
      () => this.redis.set(this.key('c', key), serializeEntry(entry), 'PX', Math.max(1, Math.round(lifetimeMs))),
      null,
    );
  }

  /** See {@link SharedState.deleteEntries}. */
  async deleteEntries(keys: readonly string[]): Promise<boolean> {
    if (keys.length === 0) return true;
    return this.guard(async () => {
      await this.redis.del(...keys.map((key) => this.key('c', key)));
      return true;
    }, false);
  }

  /** See {@link SharedState.keyLimits}; a cooldown is believed only up to `maxCooldownMs`. */
  async keyLimits(keyId: string): Promise<SharedKeyLimits> {
    const text = await this.guard(() => this.redis.get(this.key('cd', keyId)), null);
    return parseKeyLimits(text, Date.now() + this.maxCooldownMs);
  }

  /** See {@link SharedState.setCooldown}; capped at `maxCooldownMs`. */
  async setCooldown(keyId: string, untilMs: number, learned?: LearnedAllowance): Promise<void> {
    const { value, ttl } = keyLimitsValue(untilMs, Date.now(), this.maxCooldownMs, learned);
    await this.guard(() => this.redis.set(this.key('cd', keyId), value, 'PX', ttl), null);
  }

  /** See {@link SharedState.takeWindowSlot} (the Lua script of `redis-window-log.ts`). */
  async takeWindowSlot(
    keyId: string,
    allowance: number,
    windowMs: number,
    now: number,
    member: string,
    writeIntent?: string,
  ): Promise<number | null> {
    return this.guard(
      () =>
        takeWindowSlot(
          this.redis,
          this.key('w', keyId),
          this.key('wi', keyId),
          allowance,
          windowMs,
          now,
          member,
          writeIntent,
        ),
      null,
    );
  }

  /** See {@link SharedState.settleWindowSlot}. */
  async settleWindowSlot(keyId: string, member: string, at: number, windowMs: number): Promise<void> {
    await this.guard(() => settleWindowSlot(this.redis, this.key('w', keyId), member, at, windowMs), undefined);
  }

  /** See {@link SharedState.takeWriteLock}. */
  takeWriteLock(name: string, token: string, commitAt: number, ttlMs: number): Promise<number | null> {
    return this.guard(() => takeWriteLock(this.redis, this.key('wl', name), token, commitAt, ttlMs), null);
  }

  /** See {@link SharedState.releaseWriteLock}. */
  async releaseWriteLock(name: string, token: string): Promise<void> {
    await this.guard(() => releaseWriteLock(this.redis, this.key('wl', name), token), undefined);
  }

  /** See {@link SharedState.tryLock}. */
  async tryLock(key: string, ttlMs: number): Promise<boolean> {
    const result = await this.guard(
      () => this.redis.set(this.key('lk', key), '1', 'PX', Math.max(1, ttlMs), 'NX'),
      'OK',
    );
    return result === 'OK';
  }

  /** See {@link SharedState.unlock}. */
  async unlock(key: string): Promise<void> {
    await this.guard(() => this.redis.del(this.key('lk', key)), 0);
  }

  /** See {@link SharedState.publishInvalidation} (see `RedisInvalidations`). */
  async publishInvalidation(
    keyId: string,
    factoryId: string | null,
    changed?: readonly ChangedResource[],
  ): Promise<boolean> {
    return this.guard(async () => {
      await this.invalidations.publish(keyId, factoryId, changed);
      return true;
    }, false);
  }

  /** See {@link SharedState.onInvalidation}. */
  onInvalidation(handler: InvalidationHandler): void {
    this.invalidations.onInvalidation(handler);
  }

  /** Closes both connections and forgets every handler. */
  async close(): Promise<void> {
    this.invalidations.close();
    this.health.close();
    this.redis.disconnect();
    this.subscriber.disconnect();
  }
}
