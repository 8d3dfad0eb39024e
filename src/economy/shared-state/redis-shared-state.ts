import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CacheEntry, UpstreamFailure } from '../cache/cache-entry';
import type { SharedKeyLimits, SharedState } from './shared-state';

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
 * The sliding-window log in Redis, atomically: a sorted set of send times per key.
 * Drops what left the window, records the request when fewer than the allowance remain
 * (0), else answers the ms until the oldest request that keeps the window full leaves it.
 * KEYS[1] = the key's log; ARGV = now (ms), window (ms), allowance, a unique member.
 */
const TAKE_WINDOW_SLOT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local allowance = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < allowance then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local freeing = redis.call('ZRANGE', KEYS[1], count - allowance, count - allowance, 'WITHSCORES')
local wait = tonumber(freeing[2]) + window - now
if wait < 1 then wait = 1 end
return wait
`;

function serialize(entry: CacheEntry): string {
  return JSON.stringify(entry);
}

function deserialize(text: string): CacheEntry | undefined {
  const value: unknown = JSON.parse(text);
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.storedAt !== 'number' || typeof record.bytes !== 'number') return undefined;
  if (record.kind === 'body') return { kind: 'body', body: record.body, storedAt: record.storedAt, bytes: record.bytes };
  const failure = record.failure as UpstreamFailure | undefined;
  if (record.kind === 'failure' && failure && typeof failure.code === 'string' && failure.upstream) {
    return { kind: 'failure', failure, storedAt: record.storedAt, bytes: record.bytes };
  }
  return undefined;
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
  private readonly channel: string;
  private up = false;
  private incidentOpen = false;
  private probe: NodeJS.Timeout | undefined;
  private handlers: Array<(keyId: string, factoryId: string | null) => void> = [];
  private reconnectHandlers: Array<() => Promise<void>> = [];
  /** Key of the stream that logs invalidations for replicas that were away. */
  private readonly log: string;
  /** False from a disconnection until missed invalidations are caught up. */
  private inSync = false;
  /** Local time the current outage began (catch-up reads the log from a little before it). */
  private outOfSyncSince = Date.now();
  private resyncing: Promise<void> | null = null;
  private syncWaiters: Array<() => void> = [];
  private outOfSyncWaiters: Array<() => void> = [];

  constructor(private readonly options: RedisStateOptions) {
    const common = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs * 10),
      retryStrategy: (times: number) => Math.min(100 * times, 2000),
      lazyConnect: false,
      // close() ends at once: no ioredis timer (2 s by default) outlives it waiting for a
      // socket that is already gone (a connection waiting to reconnect).
      disconnectTimeout: 0,
    };
    this.redis = new Redis(options.url, common);
    this.subscriber = new Redis(options.url, { ...common, enableOfflineQueue: true, commandTimeout: undefined });
    this.channel = `${options.prefix}invalidate`;
    this.log = `${options.prefix}invalidations`;
    this.redis.on('ready', () => this.markUp());
    this.redis.on('error', (error: Error) => this.markDown(error));
    this.redis.on('end', () => this.markDown(new Error('connection closed')));
    this.subscriber.on('error', () => undefined); // reported through the main connection
    // While the subscriber is away, messages are lost: catch up from the log when back.
    this.subscriber.on('close', () => this.markOutOfSync());
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => this.resync(),
        () => undefined,
      );
    });
    this.subscriber.on('message', (_channel: string, message: string) => this.dispatch(message));
  }

  private waiters: Array<() => void> = [];

  /** Whether the last Redis command or connection event succeeded. */
  get healthy(): boolean {
    return this.up;
  }

  /** Resolves when Redis answers (at once when it does now); for start-up and tests. */
  whenUp(): Promise<void> {
    if (this.up) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Resolves when this replica holds every invalidation (connected, pending writes
   * re-sent, missed messages caught up); for tests and start-up.
   */
  whenInSync(): Promise<void> {
    if (this.inSync) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** Resolves when this replica has noticed that it may miss invalidations (for tests). */
  whenOutOfSync(): Promise<void> {
    if (!this.inSync) return Promise.resolve();
    return new Promise((resolve) => this.outOfSyncWaiters.push(resolve));
  }

  invalidationsInDoubt(): boolean {
    return !this.inSync;
  }

  onReconnect(handler: () => Promise<void>): void {
    this.reconnectHandlers.push(handler);
  }

  private markOutOfSync(): void {
    if (this.inSync) this.outOfSyncSince = Date.now();
    this.inSync = false;
    for (const resolve of this.outOfSyncWaiters.splice(0)) resolve();
  }

  /**
   * After an outage: re-send what this replica could not publish (the reconnect
   * handlers), then apply what other replicas logged meanwhile. Runs once at a time;
   * a failure leaves the replica out of sync until the next reconnection or probe.
   */
  private resync(): Promise<void> {
    if (this.inSync || !this.up || this.subscriber.status !== 'ready') return Promise.resolve();
    this.resyncing ??= (async () => {
      try {
        const since = this.outOfSyncSince;
        for (const handler of this.reconnectHandlers) await handler();
        // Replicas' clocks differ a little; applying an invalidation twice is harmless.
        const entries = await this.redis.xrange(this.log, String(Math.max(0, since - 5000)), '+');
        for (const [, fields] of entries) {
          const record: Record<string, string> = {};
          for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] ?? ''] = fields[i + 1] ?? '';
          if (record.keyId) for (const handler of this.handlers) handler(record.keyId, record.factoryId ? record.factoryId : null);
        }
        if (!this.up) return;
        this.inSync = true;
        for (const resolve of this.syncWaiters.splice(0)) resolve();
        this.options.logger.info({ redis: 'in sync', caughtUp: entries.length }, 'invalidations re-sent and caught up after the redis outage');
      } catch (error) {
        this.markDown(error instanceof Error ? error : new Error(String(error)));
      } finally {
        this.resyncing = null;
      }
    })();
    return this.resyncing;
  }

  private markUp(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
    this.up = true;
    this.options.onState?.(true);
    for (const resolve of this.waiters.splice(0)) resolve();
    void this.resync();
    if (this.incidentOpen) {
      this.incidentOpen = false;
      this.options.logger.info({ redis: 'up' }, 'redis is back; shared cache and limits resume');
    }
  }

  private markDown(error: Error): void {
    this.up = false;
    // A command failed: this replica's own invalidations may not have gone out either.
    this.markOutOfSync();
    // A slow Redis keeps its connection, so no 'ready' will come: probe until it answers.
    this.probe ??= setInterval(() => {
      this.redis.ping().then(
        () => {
          if (this.probe) clearInterval(this.probe);
          this.probe = undefined;
          this.markUp();
        },
        () => undefined,
      );
    }, 1000);
    this.probe.unref();
    this.options.onState?.(false);
    this.options.onError?.();
    if (!this.incidentOpen) {
      this.incidentOpen = true;
      this.options.logger.warn({ redis: 'down', err: error.message }, 'redis unavailable; answering from process memory and the upstream until it is back');
    }
  }

  /** Runs one Redis command; on failure reports the incident and returns `fallback`. */
  private async guard<T>(command: () => Promise<T>, fallback: T): Promise<T> {
    if (!this.up) return fallback;
    try {
      return await command();
    } catch (error) {
      this.markDown(error instanceof Error ? error : new Error(String(error)));
      return fallback;
    }
  }

  private get maxCooldownMs(): number {
    return this.options.maxCooldownMs ?? 3_600_000;
  }

  private key(kind: string, name: string): string {
    return `${this.options.prefix}${kind}:${name}`;
  }

  async getEntry(key: string): Promise<CacheEntry | undefined> {
    const text = await this.guard(() => this.redis.get(this.key('c', key)), null);
    if (text === null) return undefined;
    try {
      return deserialize(text);
    } catch {
      return undefined;
    }
  }

  async setEntry(key: string, entry: CacheEntry, lifetimeMs: number): Promise<void> {
    await this.guard(() => this.redis.set(this.key('c', key), serialize(entry), 'PX', Math.max(1, Math.round(lifetimeMs))), null);
  }

  async deleteEntries(keys: readonly string[]): Promise<boolean> {
    if (keys.length === 0) return true;
    return this.guard(async () => {
      await this.redis.del(...keys.map((key) => this.key('c', key)));
      return true;
    }, false);
  }

  async keyLimits(keyId: string): Promise<SharedKeyLimits> {
    const text = await this.guard(() => this.redis.get(this.key('cd', keyId)), null);
    // `until` alone (older replicas, or by hand), or `until:allowance:learnedAt`.
    const [untilText, allowanceText, learnedText] = (text ?? '0').split(':');
    const until = Number(untilText);
    const allowance = allowanceText === undefined ? null : Number(allowanceText);
    const learnedAt = Number(learnedText ?? 0);
    return {
      // A cooldown stored by another replica (or by hand) is believed only up to the maximum.
      cooldownUntil: Number.isFinite(until) ? Math.min(until, Date.now() + this.maxCooldownMs) : 0,
      allowance: allowance !== null && Number.isInteger(allowance) && allowance >= 1 && Number.isFinite(learnedAt) ? allowance : null,
      learnedAt: Number.isFinite(learnedAt) ? learnedAt : 0,
    };
  }

  async setCooldown(keyId: string, untilMs: number, learned?: { allowance: number; learnedAt: number; keepMs: number }): Promise<void> {
    const until = Math.min(untilMs, Date.now() + this.maxCooldownMs);
    const ttl = Math.max(1, Math.round(until - Date.now()), Math.round(learned?.keepMs ?? 0));
    const value = learned ? `${until}:${learned.allowance}:${learned.learnedAt}` : String(until);
    await this.guard(() => this.redis.set(this.key('cd', keyId), value, 'PX', ttl), null);
  }

  async takeWindowSlot(keyId: string, allowance: number, windowMs: number, now: number, member: string): Promise<number | null> {
    const result = await this.guard(
      () => this.redis.eval(TAKE_WINDOW_SLOT, 1, this.key('w', keyId), String(now), String(windowMs), String(Math.max(1, Math.floor(allowance))), member),
      null,
    );
    return typeof result === 'number' ? result : null;
  }

  async settleWindowSlot(keyId: string, member: string, at: number, windowMs: number): Promise<void> {
    const key = this.key('w', keyId);
    await this.guard(async () => {
      await this.redis.multi().zadd(key, at, member).pexpire(key, Math.max(1, Math.ceil(windowMs))).exec();
    }, undefined);
  }

  async tryLock(key: string, ttlMs: number): Promise<boolean> {
    const result = await this.guard(() => this.redis.set(this.key('lk', key), '1', 'PX', Math.max(1, ttlMs), 'NX'), 'OK');
    return result === 'OK';
  }

  async unlock(key: string): Promise<void> {
    await this.guard(() => this.redis.del(this.key('lk', key)), 0);
  }

  async publishInvalidation(keyId: string, factoryId: string | null): Promise<boolean> {
    return this.guard(async () => {
      // Logged first, so a replica that is away now finds it when it catches up.
      await this.redis.xadd(this.log, 'MAXLEN', '~', '10000', '*', 'keyId', keyId, 'factoryId', factoryId ?? '');
      await this.redis.publish(this.channel, JSON.stringify({ keyId, factoryId }));
      return true;
    }, false);
  }

  onInvalidation(handler: (keyId: string, factoryId: string | null) => void): void {
    this.handlers.push(handler);
  }

  private dispatch(message: string): void {
    try {
      const value = JSON.parse(message) as { keyId?: unknown; factoryId?: unknown };
      if (typeof value.keyId !== 'string') return;
      const factoryId = typeof value.factoryId === 'string' ? value.factoryId : null;
      for (const handler of this.handlers) handler(value.keyId, factoryId);
    } catch {
      // not ours
    }
  }

  async close(): Promise<void> {
    this.handlers = [];
    this.reconnectHandlers = [];
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
    this.redis.disconnect();
    this.subscriber.disconnect();
  }
}
