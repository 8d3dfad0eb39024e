import type { Endpoint } from '../../upstream/endpoints';

/** Reads remembered per resource (enough to count "at least twice" and a recent rate). */
export const READS_KEPT = 8;
/** The reads of a resource not read yet (shared: a resource gets its own array at its first read). */
export const EMPTY_READS: readonly number[] = Object.freeze([]);

/**
 * One resource of one key. Kept small, since 500 keys of a dashboard are 43,000 of them: a
 * plain array of read times (a typed array costs three heap objects), and no path (the
 * map key holds it, see `pathOfCacheKey`).
 */
export interface TrackedResource {
  /** The endpoint it is read from. */
  endpoint: Endpoint;
  /** When the cached answer was stored, epoch ms. */
  storedAt: number;
  /** Its freshness window, ms. */
  ttlMs: number;
  /** Times of the last {@link READS_KEPT} reads (epoch ms); a ring once full, `next` is the oldest. */
  reads: readonly number[];
  /** The ring's oldest slot once `reads` is full. */
  next: number;
  /** True while a refresh of it is running. */
  refreshing: boolean;
  /** When it was last read among its key's resources: the key's read count then (higher is more recent). */
  lastRead: number;
}

/** One key's tracked resources and refreshes. */
export interface TrackedKey {
  /** The key, for its refreshes (forgotten with the key). */
  apiKey: string;
  /** Its last read, epoch ms. */
  lastReadAt: number;
  /**
   * By cache key, at most `maxResourcesPerKey`; which was read last is each one's
   * `lastRead` (a read does not move it in the map: that was a delete and a set per read).
   */
  resources: Map<string, TrackedResource>;
  /** Reads of this key so far (each read's `lastRead`). */
  readCount: number;
  /** Start times of this key's refreshes in the current budget window. */
  refreshes: number[];
}

/** Forgets the resource read least recently (the smallest `lastRead`). */
export function forgetLeastRecent(resources: Map<string, TrackedResource>): void {
  let oldest: string | undefined;
  let oldestRead = Infinity;
  for (const [key, resource] of resources) {
    if (resource.lastRead < oldestRead) {
      oldest = key;
      oldestRead = resource.lastRead;
    }
  }
  if (oldest !== undefined) resources.delete(oldest);
}
