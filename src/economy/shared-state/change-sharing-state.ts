import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CacheEntry } from '../cache/cache-entry';
import { RedisSharedState } from './redis-shared-state';
import type { ChangedResource, InvalidationHandler } from './shared-state';

/** Most resources whose last answer a replica remembers (a digest each: its key and 22 characters, about 2 MB in all). */
const SEEN_MAX = 20_000;

/** A digest of an entry's answer (its body or failure; not when it was fetched): 128 bits of its SHA-256. */
function digestOf(entry: CacheEntry): string {
  const answer = entry.kind === 'body' ? { body: entry.body } : { failure: entry.failure };
  return createHash('sha256').update(JSON.stringify(answer)).digest('base64url').slice(0, 22);
}

/** The hashed key id of a cache key (`<keyId>|<path>`). */
function keyIdOf(key: string): string {
  const bar = key.indexOf('|');
  return bar < 0 ? key : key.slice(0, bar);
}

/**
 * {@link RedisSharedState} that also tells the other replicas when this one stores a new
 * answer of a resource: what live queries on other replicas watch then re-runs there
 * (see `LiveResources`), as it does on the replica that fetched or wrote it.
 *
 * How: every answer this replica puts in the shared cache (an upstream fetch, a written
 * site-document slot) is one it has just got from the upstream. When its digest differs
 * from the last answer of that resource this replica saw (read from or written to the
 * shared cache), a message names the resource and the new digest on the invalidation
 * channel, once the shared cache holds it. A replica applies such a message only when
 * the digest differs from the last answer it saw itself (never its own message, never a
 * copy it has already): `Invalidation` then forgets its copy, and live queries that read it
 * take the new answer from the shared cache (no upstream request).
 *
 * When to use: the gateway's shared state with `REDIS_URL` (runtime.ts makes it).
 */
export class ChangeSharingRedisState extends RedisSharedState {
  /** The digest of the last answer seen per resource (read from or written to the shared cache). */
  private readonly seen = new LRUCache<string, string>({ max: SEEN_MAX });

  /** See `SharedState.getEntry`; remembers the answer's digest. */
  override async getEntry(key: string): Promise<CacheEntry | undefined> {
    const entry = await super.getEntry(key);
    if (entry) this.seen.set(key, digestOf(entry));
    return entry;
  }

  /** See `SharedState.setEntry`; then tells the replicas when the answer is a new one. */
  override async setEntry(key: string, entry: CacheEntry, lifetimeMs: number): Promise<void> {
    const digest = digestOf(entry);
    const before = this.seen.get(key);
    this.seen.set(key, digest);
    await super.setEntry(key, entry, lifetimeMs);
    if (before === digest) return;
    // After the entry is stored (the same connection sends both, in order); the fetch does not wait for it.
    void this.publishInvalidation(keyIdOf(key), null, [{ key, digest }]);
  }

  /** See `SharedState.deleteEntries`; forgets their digests (a later answer is new again). */
  override deleteEntries(keys: readonly string[]): Promise<boolean> {
    for (const key of keys) this.seen.delete(key);
    return super.deleteEntries(keys);
  }

  /** See `SharedState.onInvalidation`; a message of changed resources reaches `handler` only for answers this replica has not seen. */
  override onInvalidation(handler: InvalidationHandler): void {
    super.onInvalidation((keyId, factoryId, changed) => {
      if (!changed) {
        handler(keyId, factoryId);
        return;
      }
      const news: ChangedResource[] = changed.filter(
        (each) => keyIdOf(each.key) === keyId && this.seen.get(each.key) !== each.digest,
      );
      if (news.length > 0) handler(keyId, factoryId, news);
    });
  }
}
