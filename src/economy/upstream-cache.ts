import { LRUCache } from 'lru-cache';
import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamErrorCode, UpstreamErrorInfo } from '../errors/gateway-error';
import type { Endpoint } from '../upstream/endpoints';

/**
 * A definitive upstream 4xx as plain data: what an `UpstreamError` is made of. Kept in
 * caches instead of the error itself (an error object costs about a kilobyte and a
 * stack capture); most are turned into results by mappers (an empty counter, an unset
 * option slot) and never become errors at all.
 */
export interface UpstreamFailure {
  code: UpstreamErrorCode;
  upstream: UpstreamErrorInfo;
  /** Further extensions (`requiredScopes`, `premium`). */
  extra: Record<string, unknown>;
}

/** The failure an error describes. */
export function failureOf(error: UpstreamError): UpstreamFailure {
  const { code: _code, upstream: _upstream, ...extra } = error.extensions;
  return { code: error.code, upstream: error.upstream, extra };
}

/** The error a failure describes, for the field that cannot do without the answer. */
export function errorOf(endpoint: Endpoint, failure: UpstreamFailure): UpstreamError {
  return new UpstreamError(failure.code, endpoint, failure.upstream, failure.extra);
}

/**
 * One cached upstream answer: a body, or a definitive 4xx (an empty counter's 404, a
 * missing scope's 400, a premium endpoint's 401), which is as stable as a body and as
 * costly to ask again.
 */
export type CacheEntry =
  | { kind: 'body'; body: unknown; storedAt: number; bytes: number }
  | { kind: 'failure'; failure: UpstreamFailure; storedAt: number; bytes: number };

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
