import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import writeFileAtomic from 'write-file-atomic';
import { keyId } from '../key-id';
import { compactText, compactUtf8 } from './compact-json';
import type { UpstreamFailure } from './cache-entry';
import type { CacheRecord, StoredEntry } from './upstream-cache';

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
  setAsidePath?: string;
}

/** First line of every cache file, then the format version. */
export const CACHE_FILE_MAGIC = 'statev-gateway-upstream-cache';
/** The format this code reads and writes. A file of another version is set aside, never guessed at. */
export const CACHE_FILE_VERSION = 1;

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
        this.options.logger.warn({ cacheFile: this.path, err: (error as Error).message }, 'cache file cannot be read; starting with an empty cache');
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
    const chunks: Buffer[] = [Buffer.from(`${CACHE_FILE_MAGIC} ${CACHE_FILE_VERSION}\n${JSON.stringify({ writtenAt: this.now(), secretTag: this.secretTag, entries: records.length })}\n`)];
    for (const { key, entry, expiresAt } of records) {
      const head = JSON.stringify([key, entry.storedAt, Math.round(expiresAt), entry.failure ? 'f' : 'b']);
      chunks.push(Buffer.from(`${head}\t`), entry.failure ? Buffer.from(JSON.stringify(entry.failure)) : compactUtf8(entry.json), NEWLINE);
    }
    const hash = createHash('sha256');
    for (const chunk of chunks) hash.update(chunk);
    chunks.push(Buffer.from(`#end ${hash.digest('hex')}\n`));
    await this.ensureFolder();
    await writeFileAtomic(this.path, Buffer.concat(chunks), { mode: 0o600 });
    await chmod(this.path, 0o600); // also when the file existed with wider permissions
    this.writtenChanges = changes;
    this.options.logger.debug({ cacheFile: this.path, entries: records.length }, 'upstream cache written to the cache file');
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
      this.options.logger.warn({ cacheFile: this.path, setAsideAs: target, reason, detail }, 'cache file set aside; starting with an empty cache');
    } catch (error) {
      this.options.logger.warn({ cacheFile: this.path, reason, detail, err: (error as Error).message }, 'cache file unusable and cannot be set aside; starting with an empty cache');
    }
    return { loaded: 0, dropped: 0, setAside: reason, setAsidePath: target };
  }
}

const NEWLINE = Buffer.from('\n');

type Parsed = { ok: true; records: CacheRecord[] } | { ok: false; reason: 'corrupt' | 'other-version' | 'other-secret'; detail: string };

/** Reads a cache file's content, checking its format line, checksum, header and every entry. */
export function parseCacheFile(content: Buffer, secretTag: string): Parsed {
  const corrupt = (detail: string): Parsed => ({ ok: false, reason: 'corrupt', detail });
  const firstEnd = content.indexOf(0x0a);
  const first = content.subarray(0, firstEnd < 0 ? Math.min(content.length, 200) : firstEnd).toString('utf8');
  const magic = /^statev-gateway-upstream-cache (\S+)$/.exec(first);
  if (!magic) return corrupt('not a gateway cache file');
  if (magic[1] !== String(CACHE_FILE_VERSION)) return { ok: false, reason: 'other-version', detail: `format ${magic[1]}, this gateway reads ${CACHE_FILE_VERSION}` };

  const endAt = content.lastIndexOf('\n#end ', content.length - 2);
  if (endAt < 0 || content[content.length - 1] !== 0x0a) return corrupt('incomplete (no end line)');
  const expected = content.subarray(endAt + 6, content.length - 1).toString('latin1');
  const actual = createHash('sha256').update(content.subarray(0, endAt + 1)).digest('hex');
  if (expected !== actual) return corrupt('checksum mismatch');

  const lines = splitLines(content.subarray(firstEnd + 1, endAt));
  const headerLine = lines.shift();
  let header: unknown;
  try {
    header = JSON.parse(headerLine?.toString('utf8') ?? '');
  } catch {
    return corrupt('header is not JSON');
  }
  if (!isRecord(header) || typeof header.secretTag !== 'string' || header.entries !== lines.length) return corrupt('bad header');
  if (header.secretTag !== secretTag) return { ok: false, reason: 'other-secret', detail: 'written under another KEY_HASH_SECRET' };

  const records: CacheRecord[] = [];
  for (const line of lines) {
    const record = parseRecord(line);
    if (!record) return corrupt('bad entry');
    records.push(record);
  }
  return { ok: true, records };
}

function parseRecord(line: Buffer): CacheRecord | null {
  const tab = line.indexOf(0x09);
  if (tab < 0) return null;
  let head: unknown;
  try {
    head = JSON.parse(line.subarray(0, tab).toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(head) || head.length !== 4) return null;
  const [key, storedAt, expiresAt, kind] = head as unknown[];
  if (typeof key !== 'string' || !key.includes('|') || !Number.isFinite(storedAt) || !Number.isFinite(expiresAt)) return null;
  const payload = line.subarray(tab + 1);
  let entry: StoredEntry;
  if (kind === 'b') {
    entry = { storedAt: storedAt as number, json: compactText(payload) };
  } else if (kind === 'f') {
    const failure = parseFailure(payload);
    if (!failure) return null;
    entry = { storedAt: storedAt as number, failure };
  } else {
    return null;
  }
  return { key, entry, expiresAt: expiresAt as number };
}

function parseFailure(payload: Buffer): UpstreamFailure | null {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.code !== 'string' || !isRecord(value.upstream) || !isRecord(value.extra)) return null;
  const upstream = value.upstream;
  if (typeof upstream.endpoint !== 'string' || typeof upstream.message !== 'string' || !(upstream.status === null || typeof upstream.status === 'number')) return null;
  return value as unknown as UpstreamFailure;
}

function splitLines(content: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  while (start < content.length) {
    let end = content.indexOf(0x0a, start);
    if (end < 0) end = content.length;
    lines.push(content.subarray(start, end));
    start = end + 1;
  }
  return lines;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

  constructor(
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
      this.logger.warn({ cacheFile: this.file.path, err: (error as Error).message }, 'cache file could not be written; will try again');
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
