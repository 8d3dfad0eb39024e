import type { CacheEntry } from '../cache/cache-entry';
import type { SharedState } from '../shared-state/shared-state';

/** Where {@link loadAcrossReplicas} found its answer. */
export type ReplicaSource =
  /** Already in the shared cache: a cache hit. */
  | 'shared'
  /** Fetched by another replica while this one waited on the lock: coalesced. */
  | 'replica'
  /** Fetched by this replica (it held the lock, or the lock timed out). */
  | 'upstream';

/** What {@link loadAcrossReplicas} needs to know. */
export interface ReplicaLoad {
  /** The cache key (see `cacheKey`). */
  key: string;
  /** Whether a shared entry may answer this request (fresh enough, and new enough for `no-cache`). */
  usable(entry: CacheEntry | undefined): entry is CacheEntry;
  /** Fetches from the upstream (and stores in every cache level). */
  fetch(): Promise<CacheEntry>;
  /** Longest time one replica holds the fetch lock, and the longest others wait for it, ms. */
  lockMs: number;
  /** Clock, epoch ms. */
  now: () => number;
  /** How often a waiting replica looks for the lock holder's answer, ms. */
  pollMs?: number;
}

/**
 * Coalescing across replicas that share Redis: first the shared cache, then a short
 * lock per request, so exactly one replica fetches and the others wait for its answer
 * in the shared cache. When the lock holder takes longer than `lockMs` the waiter
 * fetches by itself; when Redis is away every lock is granted (each replica fetches).
 */
export async function loadAcrossReplicas(
  shared: SharedState,
  load: ReplicaLoad,
): Promise<{ entry: CacheEntry; source: ReplicaSource }> {
  const startedAt = load.now();
  const remote = await shared.getEntry(load.key);
  if (load.usable(remote)) return { entry: remote, source: 'shared' };

  const deadline = startedAt + load.lockMs;
  while (!(await shared.tryLock(load.key, load.lockMs))) {
    // Another replica is fetching this request: wait for its answer in the shared cache.
    if (load.now() >= deadline) break;
    await new Promise<void>((resolve) => setTimeout(resolve, load.pollMs ?? 25));
    const fetched = await shared.getEntry(load.key);
    if (load.usable(fetched)) return { entry: fetched, source: 'replica' };
  }
  try {
    // The replica that held the lock may have stored its answer just before we took it.
    const stored = await shared.getEntry(load.key);
    if (load.usable(stored)) return { entry: stored, source: 'replica' };
    return { entry: await load.fetch(), source: 'upstream' };
  } finally {
    await shared.unlock(load.key);
  }
}
