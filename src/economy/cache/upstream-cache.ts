import { LRUCache } from 'lru-cache';
import { compactBytes, compactJson, keyBytes, parseCompactJson } from './compact-json';
import type { CompactJson } from './compact-json';
import { sharedKey } from './cache-entry';
import type { AnswerMemo, CacheEntry, UpstreamFailure } from './cache-entry';

/** Settings of {@link UpstreamCache}. */
export interface UpstreamCacheOptions {
  /** Upper bound of what the cache holds in memory, bytes (texts, keys and bookkeeping). */
  maxBytes: number;
  /** Clock, epoch ms. */
  now?: () => number;
  /**
   * Most bytes of JSON text whose decoded bodies (and their mapped results, see `AnswerMemo`)
   * are kept for the next reads (default: a sixteenth of `maxBytes`, at most 1 MiB; 0 = none).
   */
  decodedMaxBytes?: number;
}

/** A stored body decoded: the parsed JSON and its memo, shared by the reads that follow. */
interface Decoded {
  /** The entry every read of it gets (one object, not one per read: readers never change it). */
  readonly entry: CacheEntry & { kind: 'body' };
  /** Bytes of its JSON text. */
  readonly bytes: number;
}

/** The default bound of decoded bodies: {@link UpstreamCacheOptions.decodedMaxBytes}. */
const DECODED_MAX_BYTES = 1024 * 1024;

/**
 * An entry as the cache keeps it: a body as compact JSON text (parsed on use), or a
 * failure as a shared frozen record (the same 404 text recurs for every key).
 */
export type StoredEntry =
  | { storedAt: number; json: CompactJson; failure?: undefined }
  | { storedAt: number; json?: undefined; failure: UpstreamFailure };

/** One entry of {@link UpstreamCache.records}: what a cache file keeps of it. */
export interface CacheRecord {
  /** The cache key (`<hashed key>|<path>`). */
  key: string;
  /** The stored answer (JSON text or failure record) and when it was fetched. */
  entry: StoredEntry;
  /** Epoch ms (on the cache's clock) after which the entry is dropped. */
  expiresAt: number;
}

/** Bookkeeping per entry: the record object, lru-cache's index slots and TTL record, bytes. */
const ENTRY_OVERHEAD_BYTES = 96;
/** Most distinct failure records shared between entries. */
const FAILURE_RECORDS = 1024;

/**
 * The cross-request cache of upstream GET answers, bounded with `lru-cache` by the bytes
 * it really holds. Keys are `<hashed key>|<path>`: never the API key in clear, and never
 * shared between keys. An entry lives as long as the longer of its freshness and the
 * stale window; freshness is decided by the caller, which knows the endpoint's TTL.
 *
 * Bodies are kept as their JSON text (see `compact-json.ts`): a parsed answer costs
 * several times its text on the V8 heap. Only the most recently decoded bodies are kept
 * parsed, together with a memo for their mapped results (`AnswerMemo`), up to
 * `decodedMaxBytes` of text, first decoded first dropped: the reads of a hot answer then
 * parse and map it once, not once each. Such a body is shared by the reads that get it:
 * callers must not change it.
 */
export class UpstreamCache {
  private readonly lru: LRUCache<string, StoredEntry>;
  private readonly failures = new LRUCache<string, UpstreamFailure>({ max: FAILURE_RECORDS });
  private readonly now: () => number;
  private changeCount = 0;
  /** Decoded bodies by stored entry, in the order they were decoded (a Map keeps it). */
  private readonly decoded = new Map<StoredEntry, Decoded>();
  private decodedBytes = 0;
  private readonly decodedMaxBytes: number;

  /** @param options - the bound in bytes and a clock */
  constructor(options: UpstreamCacheOptions) {
    this.now = options.now ?? Date.now;
    this.decodedMaxBytes = options.decodedMaxBytes ?? Math.min(DECODED_MAX_BYTES, Math.floor(options.maxBytes / 16));
    this.lru = new LRUCache<string, StoredEntry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => storedBytes(key, entry),
      ttlAutopurge: false,
      perf: { now: () => this.now() },
      // A replaced, deleted or evicted entry's decoded body goes with it.
      dispose: (entry) => this.forgetDecoded(entry),
    });
  }

  /** The entry, fresh or not, or undefined (also when a body read from a cache file is not JSON). */
  get(key: string): CacheEntry | undefined {
    const stored = this.lru.get(key);
    if (stored === undefined) return undefined;
    if (stored.failure)
      return { kind: 'failure', failure: stored.failure, storedAt: stored.storedAt, bytes: storedBytes(key, stored) };
    const known = this.decoded.get(stored);
    if (known) return known.entry;
    let body: unknown;
    try {
      body = parseCompactJson(stored.json);
    } catch {
      this.lru.delete(key);
      return undefined;
    }
    return this.keepDecoded(stored, body, storedBytes(key, stored));
  }

  /** Keeps a decoded body for the next reads (dropping the first decoded beyond the bound); its entry, with a memo when it is kept. */
  private keepDecoded(stored: StoredEntry & { json: CompactJson }, body: unknown, entryBytes: number): CacheEntry {
    const bytes = compactBytes(stored.json);
    if (bytes > this.decodedMaxBytes) return { kind: 'body', body, storedAt: stored.storedAt, bytes: entryBytes };
    const memo: AnswerMemo = {};
    const entry = { kind: 'body' as const, body, storedAt: stored.storedAt, bytes: entryBytes, memo };
    this.decoded.set(stored, { entry, bytes });
    this.decodedBytes += bytes;
    for (const [first, { bytes: firstBytes }] of this.decoded) {
      if (this.decodedBytes <= this.decodedMaxBytes) break;
      this.decoded.delete(first);
      this.decodedBytes -= firstBytes;
    }
    return entry;
  }

  private forgetDecoded(stored: StoredEntry): void {
    const known = this.decoded.get(stored);
    if (!known) return;
    this.decoded.delete(stored);
    this.decodedBytes -= known.bytes;
  }

  /** Stores an entry for `lifetimeMs` (its TTL or the stale window, whichever is longer). */
  set(key: string, entry: CacheEntry, lifetimeMs: number): void {
    const stored: StoredEntry =
      entry.kind === 'body'
        ? { storedAt: entry.storedAt, json: compactJson(entry.body) }
        : { storedAt: entry.storedAt, failure: this.shared(entry.failure) };
    this.store(key, stored, lifetimeMs);
  }

  /** Forgets one entry. */
  delete(key: string): void {
    if (this.lru.delete(key)) this.changeCount += 1;
  }

  /** A number that changes with every store and delete (a cache file skips unchanged caches). */
  get changes(): number {
    return this.changeCount;
  }

  /** Number of entries (for metrics and tests). */
  get size(): number {
    return this.lru.size;
  }

  /** Bytes held (for metrics and tests). */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  /** Every live entry with its expiry, least recently used first (for a cache file). */
  records(): CacheRecord[] {
    const now = this.now();
    const records: CacheRecord[] = [];
    // lru-cache's dump() lists entries most recent first; its `start` is wall-clock based,
    // so the remaining lifetime is ttl - (Date.now() - start) whatever clock this cache uses.
    for (const [key, item] of this.lru.dump()) {
      const remaining =
        item.ttl !== undefined && item.start !== undefined ? item.ttl - (Date.now() - item.start) : Infinity;
      if (remaining > 0) records.unshift({ key, entry: item.value, expiresAt: now + remaining });
    }
    return records;
  }

  /** Takes an entry read from a cache file (its failure record shared again). */
  restore(record: CacheRecord): void {
    const { entry } = record;
    this.store(
      record.key,
      entry.failure ? { storedAt: entry.storedAt, failure: this.shared(entry.failure) } : entry,
      record.expiresAt - this.now(),
    );
  }

  private store(key: string, stored: StoredEntry, lifetimeMs: number): void {
    if (lifetimeMs <= 0) return;
    if (storedBytes(key, stored) > this.lru.maxSize) return; // larger than the whole cache: not worth evicting everything
    // Kept as its shared copy (see sharedKey); a key already held keeps the copy it has.
    this.lru.set(sharedKey(key), stored, { ttl: Math.max(1, lifetimeMs) });
    this.changeCount += 1;
  }

  /** One frozen record per distinct failure, shared by every entry that has it. */
  private shared(failure: UpstreamFailure): UpstreamFailure {
    const id = JSON.stringify(failure);
    const known = this.failures.get(id);
    if (known) return known;
    const record = Object.freeze({
      code: failure.code,
      upstream: Object.freeze({ ...failure.upstream }),
      extra: Object.freeze({ ...failure.extra }),
    });
    this.failures.set(id, record);
    return record;
  }
}

/** What an entry costs in memory: its text (or a share of a failure record), its key and bookkeeping, bytes. */
function storedBytes(key: string, entry: StoredEntry): number {
  return keyBytes(key) + ENTRY_OVERHEAD_BYTES + (entry.json === undefined ? 0 : compactBytes(entry.json));
}
