import { LRUCache } from 'lru-cache';
import type { CacheEntry } from './cache-entry';

/** Settings of {@link UpstreamCache}. */
export interface UpstreamCacheOptions {
  /** Upper bound of the cached bodies' size, in bytes (of their JSON text). */
  maxBytes: number;
  /** Clock, epoch ms. */
  now?: () => number;
}

/**
 * The cross-request cache of upstream GET answers, bounded in memory with
 * `lru-cache`. Keys are `<hashed key>|<path>`: never the API key in clear, and never
 * shared between keys. An entry lives as long as the longer of its freshness and the
 * stale window; freshness is decided by the caller, which knows the endpoint's TTL.
 */
export class UpstreamCache {
  private readonly lru: LRUCache<string, CacheEntry>;
  private readonly now: () => number;

  constructor(options: UpstreamCacheOptions) {
    this.now = options.now ?? Date.now;
    this.lru = new LRUCache<string, CacheEntry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
      ttlAutopurge: false,
      perf: { now: () => this.now() },
    });
  }

  /** The entry, fresh or not, or undefined. */
  get(key: string): CacheEntry | undefined {
    return this.lru.get(key);
  }

  /** Stores an entry for `lifetimeMs` (its TTL or the stale window, whichever is longer). */
  set(key: string, entry: CacheEntry, lifetimeMs: number): void {
    if (entry.bytes > this.lru.maxSize) return; // larger than the whole cache: not worth evicting everything
    this.lru.set(key, entry, { ttl: Math.max(1, lifetimeMs) });
  }

  /** Forgets one entry. */
  delete(key: string): void {
    this.lru.delete(key);
  }

  /** Number of entries (for metrics and tests). */
  get size(): number {
    return this.lru.size;
  }

  /** Bytes held (for metrics and tests). */
  get bytes(): number {
    return this.lru.calculatedSize;
  }
}
