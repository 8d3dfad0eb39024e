import type { CacheKind, Endpoint } from '../../upstream/endpoints';
import type { CacheEntry } from './cache-entry';

/** Settings of {@link Freshness}. */
export interface FreshnessOptions {
  /** Freshness per endpoint kind, seconds. */
  ttlSeconds: Readonly<Record<CacheKind, number>>;
  /** How old a cached value may be and still be served when the upstream fails, seconds. */
  staleMaxAgeSeconds: number;
  /** Clock, epoch ms. */
  now: () => number;
}

/**
 * How long cached answers stay fresh, how long they are kept at all, and how old one
 * is. One place for these rules, so the cache, the stale fallback and the shared
 * level agree.
 */
export class Freshness {
  /** @param options - TTLs per cache kind and the stale limit, seconds, and a clock */
  constructor(private readonly options: FreshnessOptions) {}

  /**
   * How long an answer of this endpoint is fresh, ms: its kind's TTL, for a body and
   * for a cached 4xx alike (an unset record's 404 is as stable as a set one; a key
   * that just gained a scope can send `Cache-Control: no-cache`).
   */
  ttlMs(endpoint: Endpoint): number {
    return this.options.ttlSeconds[endpoint.cacheKind] * 1000;
  }

  /** How long an entry is kept, ms: the longer of its freshness and the stale window. */
  lifetimeMs(endpoint: Endpoint): number {
    return Math.max(this.ttlMs(endpoint), this.staleMaxAgeMs);
  }

  /** The stale window, ms: the oldest value served when fresh data fails. */
  get staleMaxAgeMs(): number {
    return this.options.staleMaxAgeSeconds * 1000;
  }

  /** Age of an entry, ms (never negative), at `at` (epoch ms on this clock; default: now). */
  ageMs(entry: CacheEntry, at = this.options.now()): number {
    return Math.max(0, at - entry.storedAt);
  }

  /** Whether an entry of this endpoint is still fresh. */
  isFresh(entry: CacheEntry, endpoint: Endpoint): boolean {
    return this.ageMs(entry) < this.ttlMs(endpoint);
  }
}
