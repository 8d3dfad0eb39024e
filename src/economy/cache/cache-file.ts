import { chmod, mkdir, readFile, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import writeFileAtomic from 'write-file-atomic';
import { keyId } from '../key-id';
import { CACHE_FILE_MAGIC, encodeCacheFile, parseCacheFile } from './cache-file-format';
import type { CacheRecord } from './upstream-cache';

/** What a cache file is written from and read into (the economy's process cache). */
export interface PersistableCache {
  /** Every live entry, least recently used first. */
  records(): CacheRecord[];
  /** Takes one entry read from the file. */
  restore(record: CacheRecord): void;
  /** A number that changes whenever the cache does (an unchanged cache is not written again). */
  readonly changes: number;
}

/** Settings of {@link CacheFile}. */
export interface CacheFileOptions {
  /** `CACHE_FILE`: the file's path (its folder is created 0700, the file 0600). */
  path: string;
  /** `KEY_HASH_SECRET`: a file written under another secret holds ids that can never match. */
  keyHashSecret: string;
  /** Warnings about files set aside; a line per load and save at debug/info. */
  logger: Logger;
  /** Clock, epoch ms (the cache's clock). */
  now?: () => number;
}

/** What {@link CacheFile.load} did. */
export interface CacheFileLoad {
  /** Entries taken into the cache. */
  loaded: number;
  /** Entries dropped: expired, or stored "in the future" (the clock went back). */
  dropped: number;
  /** Why the file was set aside, if it was; its new name is `setAsidePath`. */
  setAside?: 'corrupt' | 'other-version' | 'other-secret';
  /** The set-aside file's new path, when it was set aside. */
  setAsidePath?: string;
}

/**
 * The upstream cache's local persistent level, for a gateway without Redis: a snapshot
 * of the process cache in one file, written atomically (`write-file-atomic`: a temporary
 * file, fsync, rename), read back at start.
 *
 * Format (version 1, UTF-8 lines): `statev-gateway-upstream-cache 1`; a JSON header
 * (`writtenAt`, `secretTag`, `entries`); one line per entry, least recently used first:
 * `["<hashed key>|<path>",storedAt,expiresAt,"b"|"f"]`, a tab, and the body's JSON text
 * (`b`) or the failure record (`f`); last `#end <sha-256 of everything before>`. Keys are
 * the same HMAC ids as in memory and Redis: the file holds no API key, secret or key hash
 * secret (only an HMAC tag of the latter, to notice a changed secret).
 *
 * At load, ages stay wall-clock ages: `storedAt` is kept as written, so data is never
 * fresher than it is; entries past their expiry, or stored after "now", are dropped. A
 * file that is torn, edited, of another version or written under another
 * `KEY_HASH_SECRET` is renamed to `<file>.<reason>-<time>` with a warning and the gateway
 * starts empty: loading never throws.
 */
export class CacheFile {
  private readonly now: () => number;
  private readonly secretTag: string;
  private writtenChanges: number | null = null;
  private writing: Promise<void> = Promise.resolve();

  /** @param options - the path, the key hash secret (for its tag), a logger and a clock */
  constructor(private readonly options: CacheFileOptions) {
    this.now = options.now ?? Date.now;
    this.secretTag = keyId(`${CACHE_FILE_MAGIC} secret tag`, options.keyHashSecret);
  }

  /** The file's path. */
  get path(): string {
    return this.options.path;
  }

  /** Reads the file (if any) into `cache`. Never throws: a bad file is set aside. */
  async load(cache: PersistableCache): Promise<CacheFileLoad> {
    let content: Buffer;
    try {
      content = await readFile(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.options.logger.warn(
          { cacheFile: this.path, err: (error as Error).message },
          'cache file cannot be read; starting with an empty cache',
        );
      }
      return { loaded: 0, dropped: 0 };
    }
    const parsed = parseCacheFile(content, this.secretTag);
    if (!parsed.ok) return this.setAside(parsed.reason, parsed.detail);
    const now = this.now();
    let loaded = 0;
    let dropped = 0;
    for (const record of parsed.records) {
      if (record.entry.storedAt > now || record.expiresAt <= now) {
        dropped += 1;
        continue;
      }
      cache.restore(record);
      loaded += 1;
    }
    this.writtenChanges = cache.changes;
    this.options.logger.info({ cacheFile: this.path, loaded, dropped }, 'upstream cache loaded from the cache file');
    return { loaded, dropped };
  }

  /**
   * Writes the cache to the file atomically, unless nothing changed since the last load
   * or save. Saves never overlap: a call during a save waits for it.
   *
   * @throws Error when the folder or the file cannot be written (callers log it and go on).
   */
  async save(cache: PersistableCache): Promise<boolean> {
    const run = this.writing.then(() => this.write(cache));
    this.writing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async write(cache: PersistableCache): Promise<boolean> {
    const changes = cache.changes;
    if (changes === this.writtenChanges) return false;
    const records = cache.records();
    const content = encodeCacheFile(records, this.now(), this.secretTag);
    await this.ensureFolder();
    await writeFileAtomic(this.path, content, { mode: 0o600 });
    await chmod(this.path, 0o600); // also when the file existed with wider permissions
    this.writtenChanges = changes;
    this.options.logger.debug(
      { cacheFile: this.path, entries: records.length },
      'upstream cache written to the cache file',
    );
    return true;
  }

  /** Creates the folder 0700; narrows an existing folder this gateway created by default. */
  private async ensureFolder(): Promise<void> {
    const folder = dirname(this.path);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const info = await stat(folder);
    if ((info.mode & 0o077) !== 0 && folder.endsWith('.data')) await chmod(folder, 0o700);
  }

  private async setAside(reason: NonNullable<CacheFileLoad['setAside']>, detail: string): Promise<CacheFileLoad> {
    const target = `${this.path}.${reason}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      await rename(this.path, target);
      this.options.logger.warn(
        { cacheFile: this.path, setAsideAs: target, reason, detail },
        'cache file set aside; starting with an empty cache',
      );
    } catch (error) {
      this.options.logger.warn(
        { cacheFile: this.path, reason, detail, err: (error as Error).message },
        'cache file unusable and cannot be set aside; starting with an empty cache',
      );
    }
    return { loaded: 0, dropped: 0, setAside: reason, setAsidePath: target };
  }
}

/**
 * Keeps a cache file current: loads it once at start, writes it every `intervalMs`
 * (only when the cache changed) and a last time at shutdown. Failed writes are logged
 * and retried at the next turn; they never stop the gateway.
 *
 * When to use: one per process without Redis (with Redis, Redis is the persistent level).
 */
export class CacheSnapshots {
  private timer: NodeJS.Timeout | undefined;
  private loaded = false;

  /**
   * @param file - the cache file
   * @param cache - the process cache it snapshots
   * @param intervalMs - ms between writes (0 = only at shutdown)
   * @param logger - warnings about failed writes
   */
  constructor(
    /** The file kept current. */
    readonly file: CacheFile,
    private readonly cache: PersistableCache,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Loads the file into the cache (see {@link CacheFile.load}); writes happen only after it. */
  async load(): Promise<CacheFileLoad> {
    const result = await this.file.load(this.cache);
    this.loaded = true;
    return result;
  }

  /** Starts the periodic writes (0 = only at shutdown). The timer does not keep the process alive. */
  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.save(), this.intervalMs);
    this.timer.unref();
  }

  /** Writes the cache now if it changed; false when nothing was written. Never throws. */
  async save(): Promise<boolean> {
    if (!this.loaded) return false; // a gateway that failed to start must not overwrite the last snapshot
    try {
      return await this.file.save(this.cache);
    } catch (error) {
      this.logger.warn(
        { cacheFile: this.file.path, err: (error as Error).message },
        'cache file could not be written; will try again',
      );
      return false;
    }
  }

  /** Stops the timer and writes the last snapshot (call after requests have drained). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.save();
  }
}
