import { Redis } from 'ioredis';
import type { VaultStorage } from './storage';

/** How often a Redis vault is re-read even without a change message, ms (a message lost while the subscriber reconnected). */
const REDIS_RECHECK_MS = 1000;

/**
 * The vault in Redis (`REDIS_URL`): one string key `<prefix>vault`, and a change message on
 * the channel `<prefix>vault:changed` after each write, so every replica reloads within 1 s.
 * Its connections are its own and close with {@link RedisVaultStorage.close}.
 */
export class RedisVaultStorage implements VaultStorage {
  private readonly redis: Redis;
  private subscriber: Redis | null = null;
  private readonly key: string;
  private readonly channel: string;

  /**
   * @param url - `REDIS_URL`
   * @param prefix - `REDIS_PREFIX`
   */
  constructor(
    private readonly url: string,
    prefix: string,
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    this.key = `${prefix}vault`;
    this.channel = `${prefix}vault:changed`;
  }

  /** The key, never the URL (it may hold a password). */
  get where(): string {
    return `redis key ${this.key}`;
  }

  /** The stored text, or null. */
  async read(): Promise<string | null> {
    return this.redis.get(this.key);
  }

  /** Stores the text and tells every replica. */
  async write(text: string): Promise<void> {
    await this.redis.set(this.key, text);
    await this.redis.publish(this.channel, 'changed');
  }

  /** Last uses from the hash `<prefix>vault:usage`. */
  async readUsage(): Promise<Record<string, string>> {
    return this.redis.hgetall(`${this.key}:usage`);
  }

  /** Records last uses in the hash `<prefix>vault:usage` (replicas' times are within moments of each other: the last write wins). */
  async recordUsage(uses: Readonly<Record<string, string>>): Promise<void> {
    if (Object.keys(uses).length > 0) await this.redis.hset(`${this.key}:usage`, uses);
  }

  /** Listens on the change channel, and re-reads every second in case a message was lost. */
  watch(changed: () => void): () => void {
    const subscriber = new Redis(this.url, { lazyConnect: false });
    this.subscriber = subscriber;
    subscriber.on('ready', () => void subscriber.subscribe(this.channel).catch(() => undefined));
    subscriber.on('message', () => changed());
    subscriber.on('error', () => undefined);
    let last: string | null = null;
    const timer = setInterval(() => {
      void this.redis.get(this.key).then(
        (text) => {
          if (last !== null && text !== last) changed();
          last = text ?? '';
        },
        () => undefined,
      );
    }, REDIS_RECHECK_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
      subscriber.disconnect();
    };
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => undefined);
  }
}
