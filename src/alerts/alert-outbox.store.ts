/**
 * Where the alerts' outbox lives: beside the vault, as the vault and the payment store
 * choose. A file `<VAULT_FILE>.alerts-outbox.json` (mode 0600, rewritten whole and renamed
 * into place on each change, so a `kill -9` leaves the last change or the one before, never
 * half a file) by default; a Redis hash `<REDIS_PREFIX>alerts:outbox` when `REDIS_URL` is
 * set, so replicas share it. The store keeps each delivery as the JSON text the outbox gives
 * it (a record with its MAC, its target sealed); it reads nothing into it.
 */
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import type { GatewayConfig } from '../config';
import { writePrivateFile } from '../vault/storage';

/** The store of the alerts' outbox: delivery id → the delivery's JSON text. */
export interface AlertOutboxStore {
  /** Where it is, for messages (a path or `redis`, never a password). */
  readonly where: string;
  /** Adds a delivery unless one of that id is there (atomically, across replicas); true when added. */
  add(id: string, text: string): Promise<boolean>;
  /** Replaces a delivery. */
  put(id: string, text: string): Promise<void>;
  /** A delivery's text, or null. */
  get(id: string): Promise<string | null>;
  /** Every delivery. */
  all(): Promise<Array<[id: string, text: string]>>;
  /** Removes deliveries (the oldest finished ones, beyond what is kept). */
  remove(ids: readonly string[]): Promise<void>;
  /** Records a mark once (an attempt's number, so one replica makes it); true the first time. */
  claim(mark: string): Promise<boolean>;
  /** Writes what is pending and closes connections. */
  close(): Promise<void>;
}

/** The outbox in one file (or only in memory, with no path: tests). */
export class FileAlertOutboxStore implements AlertOutboxStore {
  private readonly claims = new Set<string>();
  private writing: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;

  private constructor(
    private readonly path: string | null,
    private readonly deliveries: Map<string, string>,
  ) {}

  /**
   * Reads the file (none yet: an empty outbox).
   *
   * @throws when the file exists but is not an outbox
   */
  static async open(path: string | null): Promise<FileAlertOutboxStore> {
    const deliveries = new Map<string, string>();
    let text: string | null = null;
    try {
      if (path !== null) text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== null) {
      const parsed = JSON.parse(text) as { version?: unknown; deliveries?: unknown };
      if (parsed.version !== 1 || parsed.deliveries === null || typeof parsed.deliveries !== 'object')
        throw new Error(`${path ?? ''} is not an alerts outbox.`);
      for (const [id, value] of Object.entries(parsed.deliveries))
        if (typeof value === 'string') deliveries.set(id, value);
    }
    return new FileAlertOutboxStore(path, deliveries);
  }

  /** The file's path, or `memory`. */
  get where(): string {
    return this.path ?? 'memory';
  }

  /** See {@link AlertOutboxStore.add}. */
  add(id: string, text: string): Promise<boolean> {
    if (this.deliveries.has(id)) return Promise.resolve(false);
    this.deliveries.set(id, text);
    return this.persist().then(() => true);
  }

  /** See {@link AlertOutboxStore.put}. */
  put(id: string, text: string): Promise<void> {
    this.deliveries.set(id, text);
    return this.persist();
  }

  /** See {@link AlertOutboxStore.get}. */
  get(id: string): Promise<string | null> {
    return Promise.resolve(this.deliveries.get(id) ?? null);
  }

  /** See {@link AlertOutboxStore.all}. */
  all(): Promise<Array<[string, string]>> {
    return Promise.resolve([...this.deliveries]);
  }

  /** See {@link AlertOutboxStore.remove}. */
  remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.deliveries.delete(id);
    return this.persist();
  }

  /** See {@link AlertOutboxStore.claim}: one process owns the file, so every mark is in memory. */
  claim(mark: string): Promise<boolean> {
    if (this.claims.has(mark)) return Promise.resolve(false);
    if (this.claims.size > 100_000) this.claims.clear();
    this.claims.add(mark);
    return Promise.resolve(true);
  }

  /** Waits for the last write. */
  async close(): Promise<void> {
    await this.writing;
  }

  /** Writes the outbox after the write under way (changes made meanwhile share one write); resolves once a write that holds them is done. */
  private persist(): Promise<void> {
    const path = this.path;
    if (path === null) return Promise.resolve();
    if (this.next) return this.next;
    const next = this.writing
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return writePrivateFile(path, JSON.stringify({ version: 1, deliveries: Object.fromEntries(this.deliveries) }));
      });
    this.next = next;
    this.writing = next;
    return next;
  }
}

/** The outbox in Redis, shared by replicas. */
export class RedisAlertOutboxStore implements AlertOutboxStore {
  private readonly redis: Redis;
  /** The hash of deliveries. */
  private readonly key: string;
  /** The prefix of the attempt marks. */
  private readonly marks: string;

  /** @param config - `REDIS_URL` and `REDIS_PREFIX` */
  constructor(config: { readonly redisUrl: string; readonly redisPrefix: string }) {
    this.key = `${config.redisPrefix}alerts:outbox`;
    this.marks = `${config.redisPrefix}alerts:attempt:`;
    this.redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }); // connects on first use
    this.redis.on('error', () => undefined);
  }

  /** Never the URL (it may hold a password). */
  get where(): string {
    return `redis ${this.key}`;
  }

  /** See {@link AlertOutboxStore.add}: HSETNX. */
  async add(id: string, text: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.key, id, text)) === 1;
  }

  /** See {@link AlertOutboxStore.put}. */
  async put(id: string, text: string): Promise<void> {
    await this.redis.hset(this.key, id, text);
  }

  /** See {@link AlertOutboxStore.get}. */
  get(id: string): Promise<string | null> {
    return this.redis.hget(this.key, id);
  }

  /** See {@link AlertOutboxStore.all}. */
  async all(): Promise<Array<[string, string]>> {
    return Object.entries(await this.redis.hgetall(this.key));
  }

  /** See {@link AlertOutboxStore.remove}. */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.hdel(this.key, ...ids);
  }

  /** See {@link AlertOutboxStore.claim}: SET NX, kept a day and a half (longer than any delivery is tried). */
  async claim(mark: string): Promise<boolean> {
    return (await this.redis.set(`${this.marks}${mark}`, '1', 'PX', 36 * 3_600_000, 'NX')) === 'OK';
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** The outbox store of a configuration: Redis when `REDIS_URL` is set, else the file beside `VAULT_FILE`. */
export async function alertOutboxStore(
  config: Pick<GatewayConfig, 'redisUrl' | 'redisPrefix' | 'vaultFile'>,
): Promise<AlertOutboxStore> {
  return config.redisUrl
    ? new RedisAlertOutboxStore({ redisUrl: config.redisUrl, redisPrefix: config.redisPrefix })
    : FileAlertOutboxStore.open(`${config.vaultFile}.alerts-outbox.json`);
}
