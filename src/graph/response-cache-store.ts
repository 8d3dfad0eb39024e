import { hash } from 'node:crypto';
import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { LRUCache } from 'lru-cache';
import { compactBytes, compactText, compactUtf8, keyBytes } from '../economy';
import type { CompactJson } from '../economy';

/** Bookkeeping of one lru-cache entry (its slots in the index arrays, the TTL record), bytes. */
const ENTRY_OVERHEAD_BYTES = 64;

/**
 * The store of Apollo's whole-response cache (`@apollo/server-plugin-response-cache`),
 * bounded by the bytes it really holds.
 *
 * Apollo's own `InMemoryLRUCache` counts a string by its length, which is half of what
 * it costs as soon as one character is outside Latin-1 (V8 then keeps the whole string
 * with two bytes per character), and it does not count keys. This store keeps each
 * response as UTF-8 bytes (see `compact-json.ts`: larger ones outside the V8 heap) and
 * counts value, key and bookkeeping.
 *
 * When to use: one per process, as the response-cache plugin's `cache`.
 */
export class ResponseCacheStore implements KeyValueCache<string> {
  private readonly lru: LRUCache<string, CompactJson>;

  /**
   * @param maxBytes - `RESPONSE_CACHE_MAX_BYTES`: the most bytes held, keys and bookkeeping included.
   * @param now - clock of the TTLs, ms (tests pass a fake one)
   */
  constructor(maxBytes: number, now: () => number = () => performance.now()) {
    this.lru = new LRUCache<string, CompactJson>({
      maxSize: maxBytes,
      perf: { now },
      sizeCalculation: (value, key) => compactBytes(value) + keyBytes(key) + ENTRY_OVERHEAD_BYTES,
    });
  }

  /** The cached text, or undefined. */
  async get(key: string): Promise<string | undefined> {
    const value = this.lru.get(key);
    return value === undefined ? undefined : compactUtf8(value).toString('utf8');
  }

  /** Stores a text for `options.ttl` seconds (no TTL: until evicted). */
  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    const stored = compactText(Buffer.from(value));
    const ttl = options?.ttl ? options.ttl * 1000 : undefined;
    this.lru.set(key, stored, ttl ? { ttl } : {});
  }

  /** Forgets one entry. */
  async delete(key: string): Promise<boolean> {
    return this.lru.delete(key);
  }

  /** Bytes held, as counted against the bound (metrics, tests). */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  /** Entries held. */
  get size(): number {
    return this.lru.size;
  }
}

/**
 * The response cache's key (its `generateCacheKey` option): sha256 (base64url) of the JSON
 * of the request's identity as the plugin hands it (`operationName`, `variables`,
 * `extra`, `sessionId`, `sessionMode`), with the query text replaced by its sha256
 * (Apollo's `queryHash`, already computed for every request). The plugin's default hashes
 * the JSON of the whole query text on every read; this one hashes a few hundred bytes.
 * Falls back to the text when Apollo has no hash.
 *
 * @param requestContext - Apollo's request context (its `queryHash`)
 * @param data - the plugin's key data: `source` (the query text) and the fields above
 * @returns the entry's key; the session id in it is already a hashed key id, never a raw key
 */
export function responseCacheKey(requestContext: { readonly queryHash?: string }, data: unknown): string {
  if (data === null || typeof data !== 'object') return hash('sha256', JSON.stringify([null, data]), 'base64url');
  const { source, ...rest } = data as Record<string, unknown>;
  return hash('sha256', JSON.stringify([requestContext.queryHash ?? source, rest]), 'base64url');
}
