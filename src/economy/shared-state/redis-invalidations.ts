import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ChangedResource, InvalidationHandler } from './shared-state';

/** What {@link RedisInvalidations} needs of the main Redis connection. */
export interface RedisLink {
  /** The main connection (commands, the invalidation log). */
  readonly redis: Redis;
  /** The subscriber connection (the invalidation channel); its own, because a subscribed connection runs no other commands. */
  readonly subscriber: Redis;
  /** Whether the main connection answers now. */
  isUp(): boolean;
  /** Reports a failed command (the connection is then treated as down). */
  fail(error: Error): void;
}

/**
 * Invalidation messages between replicas over Redis: a pub/sub channel for replicas that
 * are connected, and a stream that logs every message for those that are not (they catch
 * up from it when back). Tracks whether this replica may have missed a message
 * ({@link inDoubt}) from a disconnection until it has re-sent its own and caught up.
 *
 * When to use: {@link RedisSharedState} owns one; nothing else talks to the channel.
 */
export class RedisInvalidations {
  private handlers: InvalidationHandler[] = [];
  private reconnectHandlers: Array<() => Promise<void>> = [];
  /** False from a disconnection until missed invalidations are caught up. */
  private inSync = false;
  /** False until the first connection is in sync: what comes before it is a start, not an outage. */
  private everInSync = false;
  /** Local time the current outage began (catch-up reads the log from a little before it). */
  private outOfSyncSince = Date.now();
  private resyncing: Promise<void> | null = null;
  private syncWaiters: Array<() => void> = [];
  private outOfSyncWaiters: Array<() => void> = [];

  /**
   * @param link - the connections and the main connection's health
   * @param names - the channel and the stream's Redis keys (both with the prefix)
   * @param logger - one line when this replica is in sync again
   */
  constructor(
    private readonly link: RedisLink,
    private readonly names: { channel: string; log: string },
    private readonly logger: Logger,
  ) {
    const subscriber = link.subscriber;
    // While the subscriber is away, messages are lost: catch up from the log when back.
    subscriber.on('close', () => this.markOutOfSync());
    subscriber.on('ready', () => {
      subscriber.subscribe(names.channel).then(
        () => this.resync(),
        () => undefined,
      );
    });
    subscriber.on('message', (_channel: string, message: string) => this.dispatch(message));
  }

  /** True while this replica may have missed other replicas' invalidations. */
  inDoubt(): boolean {
    return !this.inSync;
  }

  /** Resolves when this replica holds every invalidation (at once when it does now). */
  whenInSync(): Promise<void> {
    if (this.inSync) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** Resolves when this replica has noticed that it may miss invalidations (at once when it has). */
  whenOutOfSync(): Promise<void> {
    if (!this.inSync) return Promise.resolve();
    return new Promise((resolve) => this.outOfSyncWaiters.push(resolve));
  }

  /** Registers work to do each time Redis is back, before missed invalidations are caught up. */
  onReconnect(handler: () => Promise<void>): void {
    this.reconnectHandlers.push(handler);
  }

  /** Registers the handler of invalidation messages (from any replica, also those caught up). */
  onInvalidation(handler: InvalidationHandler): void {
    this.handlers.push(handler);
  }

  /**
   * Logs the message in the stream (first, so a replica that is away now finds it when it
   * catches up), then publishes it. A message of `changed` resources is only published:
   * a replica that misses it keeps its answer until it expires, as without replicas.
   *
   * @throws the Redis error when either command fails (the caller's guard reports it)
   */
  async publish(keyId: string, factoryId: string | null, changed?: readonly ChangedResource[]): Promise<void> {
    if (changed) {
      await this.link.redis.publish(this.names.channel, JSON.stringify({ keyId, factoryId, changed }));
      return;
    }
    await this.link.redis.xadd(
      this.names.log,
      'MAXLEN',
      '~',
      '10000',
      '*',
      'keyId',
      keyId,
      'factoryId',
      factoryId ?? '',
    );
    await this.link.redis.publish(this.names.channel, JSON.stringify({ keyId, factoryId }));
  }

  /** This replica may miss messages from now on (a disconnection or a failed command). */
  markOutOfSync(): void {
    if (this.inSync) this.outOfSyncSince = Date.now();
    this.inSync = false;
    for (const resolve of this.outOfSyncWaiters.splice(0)) resolve();
  }

  /**
   * After an outage: re-send what this replica could not publish (the reconnect
   * handlers), then apply what other replicas logged meanwhile. Runs once at a time;
   * a failure leaves the replica out of sync until the next reconnection or probe.
   */
  resync(): Promise<void> {
    if (this.inSync || !this.link.isUp() || this.link.subscriber.status !== 'ready') return Promise.resolve();
    this.resyncing ??= (async () => {
      try {
        const since = this.outOfSyncSince;
        for (const handler of this.reconnectHandlers) await handler();
        // Replicas' clocks differ a little; applying an invalidation twice is harmless.
        const entries = await this.link.redis.xrange(this.names.log, String(Math.max(0, since - 5000)), '+');
        for (const [, fields] of entries) {
          const record: Record<string, string> = {};
          for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] ?? ''] = fields[i + 1] ?? '';
          if (record.keyId)
            for (const handler of this.handlers) handler(record.keyId, record.factoryId ? record.factoryId : null);
        }
        if (!this.link.isUp()) return;
        this.inSync = true;
        for (const resolve of this.syncWaiters.splice(0)) resolve();
        // The first connection is no outage: only a later resync says "after the redis outage".
        if (this.everInSync)
          this.logger.info(
            { redis: 'in sync', caughtUp: entries.length },
            'invalidations re-sent and caught up after the redis outage',
          );
        else this.logger.debug({ redis: 'in sync' }, 'invalidations in sync: connected to redis');
        this.everInSync = true;
      } catch (error) {
        this.link.fail(error instanceof Error ? error : new Error(String(error)));
      } finally {
        this.resyncing = null;
      }
    })();
    return this.resyncing;
  }

  /** Forgets every handler (at shutdown). */
  close(): void {
    this.handlers = [];
    this.reconnectHandlers = [];
  }

  private dispatch(message: string): void {
    try {
      const value = JSON.parse(message) as { keyId?: unknown; factoryId?: unknown; changed?: unknown };
      if (typeof value.keyId !== 'string') return;
      const factoryId = typeof value.factoryId === 'string' ? value.factoryId : null;
      const changed = Array.isArray(value.changed) ? changedResources(value.changed) : undefined;
      for (const handler of this.handlers) handler(value.keyId, factoryId, changed);
    } catch {
      // not ours
    }
  }
}

/** The well-formed entries of a message's `changed` list. */
function changedResources(list: unknown[]): ChangedResource[] {
  return list.flatMap((each): ChangedResource[] => {
    const record = each && typeof each === 'object' ? (each as { key?: unknown; digest?: unknown }) : {};
    return typeof record.key === 'string' && typeof record.digest === 'string'
      ? [{ key: record.key, digest: record.digest }]
      : [];
  });
}
