/**
 * Where the console's sign-in codes, sessions and audit log are kept: beside the vault,
 * in its storage (a folder next to `VAULT_FILE`, or Redis keys under `REDIS_PREFIX` when
 * `REDIS_URL` is set), so every replica sees them. Nothing here is a secret in clear:
 * codes and sessions are stored by the SHA-256 of their random value, and each record
 * carries a MAC (`RecordMac`) checked by `ConsoleAuth`, not here.
 */
import { randomBytes } from 'node:crypto';
import { readFile, readdir, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { writePrivateFile } from '../vault/storage';

/** A stored record: its fields, and the MAC over them (see `RecordMac`). */
export interface StoredRecord {
  /** The record's JSON fields (no secret). */
  readonly fields: Readonly<Record<string, string | number | null>>;
  /** `RecordMac.sign(kind, fields)`. */
  readonly mac: string;
}

/** The console's storage: codes, sessions and audit entries, shared by every replica. */
export interface ConsoleStore {
  /** Stores a sign-in code's record under its hash, for `ttlMs`. */
  putCode(hash: string, record: StoredRecord, ttlMs: number): Promise<void>;
  /** Takes a code's record away (atomically: of two replicas taking the same code, one gets it), or null. */
  takeCode(hash: string): Promise<StoredRecord | null>;
  /** Stores (or replaces) a session's record under its hash. */
  putSession(hash: string, record: StoredRecord): Promise<void>;
  /** A session's record, or null. */
  getSession(hash: string): Promise<StoredRecord | null>;
  /** Removes every session; returns how many there were. */
  removeSessions(): Promise<number>;
  /** Adds an audit entry (the newest first; the oldest beyond {@link AUDIT_KEPT} are dropped). */
  appendAudit(record: StoredRecord): Promise<void>;
  /** The newest `first` audit entries, newest first. */
  audit(first: number): Promise<StoredRecord[]>;
  /** Stores what the gateway learned of a character (its companies), under the hash of its name. */
  putCharacter(hash: string, record: StoredRecord): Promise<void>;
  /** What was learned of a character, or null. */
  getCharacter(hash: string): Promise<StoredRecord | null>;
  /** Closes its connections (Redis). */
  close(): Promise<void>;
}

/** Audit entries kept, newest first. */
export const AUDIT_KEPT = 1000;

function parseRecord(text: string | null): StoredRecord | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object') return null;
    const { fields, mac } = value as { fields?: unknown; mac?: unknown };
    if (!fields || typeof fields !== 'object' || Array.isArray(fields) || typeof mac !== 'string') return null;
    return { fields: fields as StoredRecord['fields'], mac };
  } catch {
    return null;
  }
}

/** A hash as a file name: hex only (anything else is refused, so no path can be built from input). */
function safeName(hash: string): string {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error('A console hash is 64 hex digits.');
  return hash;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The console's records in a folder `<VAULT_FILE>.console/` (mode 0700, files 0600): one
 * file per code (taken by renaming it, which only one process can do), one per session,
 * and `audit.json`. Code expiry is checked by the caller against the record's time.
 */
export class FileConsoleStore implements ConsoleStore {
  private auditQueue: Promise<void> = Promise.resolve();

  /** @param folder - the folder (`<VAULT_FILE>.console`) */
  constructor(private readonly folder: string) {}

  /** Writes the code's file (its expiry is in the record). */
  async putCode(hash: string, record: StoredRecord): Promise<void> {
    await writePrivateFile(join(this.folder, 'codes', `${safeName(hash)}.json`), JSON.stringify(record));
  }

  /** Renames the code's file to a name of its own, then reads and deletes it: a second taker finds nothing. */
  async takeCode(hash: string): Promise<StoredRecord | null> {
    const path = join(this.folder, 'codes', `${safeName(hash)}.json`);
    const taken = `${path}.${randomBytes(6).toString('hex')}.taken`;
    try {
      await rename(path, taken);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const text = await readText(taken);
    await unlink(taken).catch(() => undefined);
    return parseRecord(text);
  }

  /** Writes the session's file. */
  async putSession(hash: string, record: StoredRecord): Promise<void> {
    await writePrivateFile(join(this.folder, 'sessions', `${safeName(hash)}.json`), JSON.stringify(record));
  }

  /** Reads the session's file. */
  async getSession(hash: string): Promise<StoredRecord | null> {
    return parseRecord(await readText(join(this.folder, 'sessions', `${safeName(hash)}.json`)));
  }

  /** Deletes the sessions folder. */
  async removeSessions(): Promise<number> {
    const folder = join(this.folder, 'sessions');
    const names = await readdir(folder).catch(() => [] as string[]);
    await rm(folder, { recursive: true, force: true });
    return names.filter((name) => name.endsWith('.json')).length;
  }

  /** Rewrites `audit.json` with the entry first (one write at a time in this process). */
  appendAudit(record: StoredRecord): Promise<void> {
    const write = this.auditQueue.then(async () => {
      const entries = await this.readAudit();
      await writePrivateFile(
        join(this.folder, 'audit.json'),
        JSON.stringify([record, ...entries].slice(0, AUDIT_KEPT)),
      );
    });
    this.auditQueue = write.catch(() => undefined);
    return write;
  }

  /** The first entries of `audit.json`. */
  async audit(first: number): Promise<StoredRecord[]> {
    await this.auditQueue;
    return (await this.readAudit()).slice(0, first);
  }

  private async readAudit(): Promise<StoredRecord[]> {
    const text = await readText(join(this.folder, 'audit.json'));
    if (text === null) return [];
    try {
      const value = JSON.parse(text) as unknown;
      return Array.isArray(value)
        ? value.map((each) => parseRecord(JSON.stringify(each))).filter((each): each is StoredRecord => each !== null)
        : [];
    } catch {
      return [];
    }
  }

  /** Writes `characters/<hash>.json`. */
  async putCharacter(hash: string, record: StoredRecord): Promise<void> {
    await writePrivateFile(join(this.folder, 'characters', `${safeName(hash)}.json`), JSON.stringify(record));
  }

  /** Reads `characters/<hash>.json`. */
  async getCharacter(hash: string): Promise<StoredRecord | null> {
    return parseRecord(await readText(join(this.folder, 'characters', `${safeName(hash)}.json`)));
  }

  /** Nothing to close. */
  async close(): Promise<void> {}
}

/**
 * The console's records in Redis: `<prefix>console:code:<hash>` (expiring with the code,
 * taken with GETDEL), the hash `<prefix>console:sessions` and the list `<prefix>console:audit`.
 */
export class RedisConsoleStore implements ConsoleStore {
  private readonly redis: Redis;

  /**
   * @param url - `REDIS_URL`
   * @param prefix - `REDIS_PREFIX`
   */
  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    this.redis.on('error', () => undefined);
  }

  /** SET with an expiry. */
  async putCode(hash: string, record: StoredRecord, ttlMs: number): Promise<void> {
    await this.redis.set(
      `${this.prefix}console:code:${safeName(hash)}`,
      JSON.stringify(record),
      'PX',
      Math.max(1, Math.ceil(ttlMs)),
    );
  }

  /** GETDEL: atomic across replicas. */
  async takeCode(hash: string): Promise<StoredRecord | null> {
    return parseRecord(await this.redis.getdel(`${this.prefix}console:code:${safeName(hash)}`));
  }

  /** HSET in the sessions hash. */
  async putSession(hash: string, record: StoredRecord): Promise<void> {
    await this.redis.hset(`${this.prefix}console:sessions`, safeName(hash), JSON.stringify(record));
  }

  /** HGET from the sessions hash. */
  async getSession(hash: string): Promise<StoredRecord | null> {
    return parseRecord(await this.redis.hget(`${this.prefix}console:sessions`, safeName(hash)));
  }

  /** Deletes the sessions hash. */
  async removeSessions(): Promise<number> {
    const key = `${this.prefix}console:sessions`;
    const count = await this.redis.hlen(key);
    await this.redis.del(key);
    return count;
  }

  /** LPUSH and LTRIM. */
  async appendAudit(record: StoredRecord): Promise<void> {
    const key = `${this.prefix}console:audit`;
    await this.redis
      .multi()
      .lpush(key, JSON.stringify(record))
      .ltrim(key, 0, AUDIT_KEPT - 1)
      .exec();
  }

  /** LRANGE of the newest. */
  async audit(first: number): Promise<StoredRecord[]> {
    const texts = await this.redis.lrange(`${this.prefix}console:audit`, 0, Math.max(0, first - 1));
    return texts.map((text) => parseRecord(text)).filter((each): each is StoredRecord => each !== null);
  }

  /** HSET in `<prefix>console:characters`. */
  async putCharacter(hash: string, record: StoredRecord): Promise<void> {
    await this.redis.hset(`${this.prefix}console:characters`, safeName(hash), JSON.stringify(record));
  }

  /** HGET from `<prefix>console:characters`. */
  async getCharacter(hash: string): Promise<StoredRecord | null> {
    return parseRecord(await this.redis.hget(`${this.prefix}console:characters`, safeName(hash)));
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

/** The console's store for a configuration: Redis when `REDIS_URL` is set, else the folder `<VAULT_FILE>.console`. */
export function consoleStore(config: {
  readonly redisUrl: string | null;
  readonly redisPrefix: string;
  readonly vaultFile: string;
}): ConsoleStore {
  return config.redisUrl
    ? new RedisConsoleStore(config.redisUrl, config.redisPrefix)
    : new FileConsoleStore(`${config.vaultFile}.console`);
}
