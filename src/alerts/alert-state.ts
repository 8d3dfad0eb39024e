/**
 * Where rules keep what they last saw (see alert-conditions.ts), so that a restart neither
 * repeats nor misses an event: a file beside the vault (`<VAULT_FILE>.alerts-state`, mode
 * 0600, written whole and renamed into place) or a Redis hash under `REDIS_PREFIX` when
 * `REDIS_URL` is set (every replica reads the same state; only the replica that polls a
 * resource evaluates its rules). Nothing here is a secret: amounts seen, digests of transfer
 * identities, auction and tenant keys.
 */
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { writePrivateFile } from '../vault/storage';
import type { RuleState } from './alert-conditions';

/** The rules' states by `<rule id>|<resource>`. */
export interface AlertStateStore {
  /** The state kept for a rule and resource, or null (a rule not polled yet). */
  get(key: string): Promise<RuleState | null>;
  /** Replaces it. */
  set(key: string, state: RuleState): Promise<void>;
  /** Forgets every state of a rule (deleted). */
  forget(ruleId: string): Promise<void>;
  /** Closes its connections. */
  close(): Promise<void>;
}

/** States in memory only (tests, and a gateway without a vault file). */
export class MemoryAlertState implements AlertStateStore {
  /** The states, by key. */
  protected readonly states = new Map<string, RuleState>();

  /** See {@link AlertStateStore.get}. */
  get(key: string): Promise<RuleState | null> {
    return Promise.resolve(this.states.get(key) ?? null);
  }

  /** See {@link AlertStateStore.set}. */
  set(key: string, state: RuleState): Promise<void> {
    this.states.set(key, state);
    return Promise.resolve();
  }

  /** See {@link AlertStateStore.forget}. */
  forget(ruleId: string): Promise<void> {
    for (const key of [...this.states.keys()]) if (key.startsWith(`${ruleId}|`)) this.states.delete(key);
    return Promise.resolve();
  }

  /** Nothing to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** States in one file, read at open and written whole after each change (one write at a time). */
export class FileAlertState extends MemoryAlertState {
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string) {
    super();
  }

  /** Opens the file (none yet, or one that does not parse: no state). */
  static async open(path: string): Promise<FileAlertState> {
    const store = new FileAlertState(path);
    try {
      const value = JSON.parse(await readFile(path, 'utf8')) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        for (const [key, state] of Object.entries(value))
          if (state && typeof state === 'object') store.states.set(key, state as RuleState);
    } catch {
      // No file yet (or not JSON): every rule starts from its first poll.
    }
    return store;
  }

  /** See {@link AlertStateStore.set}: written before it resolves. */
  override async set(key: string, state: RuleState): Promise<void> {
    await super.set(key, state);
    await this.flush();
  }

  /** See {@link AlertStateStore.forget}. */
  override async forget(ruleId: string): Promise<void> {
    await super.forget(ruleId);
    await this.flush();
  }

  private flush(): Promise<void> {
    const text = JSON.stringify(Object.fromEntries(this.states));
    this.writing = this.writing.catch(() => undefined).then(() => writePrivateFile(this.path, text));
    return this.writing;
  }
}

/** States in a Redis hash, shared by replicas. */
export class RedisAlertState implements AlertStateStore {
  private readonly redis: Redis;
  private readonly key: string;

  /** @param prefix - `REDIS_PREFIX` */
  constructor(url: string, prefix: string) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
    this.redis.on('error', () => undefined);
    this.key = `${prefix}alerts:state`;
  }

  /** See {@link AlertStateStore.get}. */
  async get(key: string): Promise<RuleState | null> {
    const text = await this.redis.hget(this.key, key);
    if (text === null) return null;
    try {
      return JSON.parse(text) as RuleState;
    } catch {
      return null;
    }
  }

  /** See {@link AlertStateStore.set}. */
  async set(key: string, state: RuleState): Promise<void> {
    await this.redis.hset(this.key, key, JSON.stringify(state));
  }

  /** See {@link AlertStateStore.forget}. */
  async forget(ruleId: string): Promise<void> {
    const keys = (await this.redis.hkeys(this.key)).filter((each) => each.startsWith(`${ruleId}|`));
    if (keys.length > 0) await this.redis.hdel(this.key, ...keys);
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
