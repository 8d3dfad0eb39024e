import { LRUCache } from 'lru-cache';

/**
 * An `LRUCache` of at most `max` entries whose memory grows with what it holds.
 *
 * lru-cache's `max` option allocates its index for `max` entries up front: two arrays
 * and three typed arrays, about 3 MB for 100,000 entries, however few the process ever
 * holds. Bounding the count through `maxSize` instead (every entry sized 1) keeps the same
 * bound and least-recently-used order, while the index grows as entries come.
 *
 * When to use: a per-key table whose bound is generous (every key a process could see)
 * but which usually holds a few hundred entries.
 *
 * @param max - most entries (a positive integer)
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  max: number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: max, sizeCalculation: () => 1 });
}
