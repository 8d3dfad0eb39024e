import { LRUCache } from 'lru-cache';
import { buildPath, ENDPOINTS, MAX_OPTION_SLOTS } from '../../upstream/endpoints';
import { cacheKey } from '../cache/cache-entry';
import type { SharedState } from '../shared-state/shared-state';

/** A write of `keyId` changed what its reads answer; `factoryId` names the company when known, `changed` the cache keys another replica got new answers for. */
export type InvalidationListener = (keyId: string, factoryId: string | null, changed: readonly string[]) => void;

/** Cache keys of every option slot of one company for one key (all that any `OPTION_SLOTS` setting reads). */
export function optionKeys(keyId: string, factoryId: string): string[] {
  return Array.from({ length: MAX_OPTION_SLOTS }, (_, i) => cacheKey(keyId, buildPath(ENDPOINTS.factoryOption, { id: factoryId, slot: i + 1 })));
}

/** Most invalidations kept for re-sending while Redis is away. */
const MAX_PENDING = 10_000;

/** The company an option write names (`factoryId` of its body), or null. */
export function writtenFactoryId(body: unknown): string | null {
  const value = body && typeof body === 'object' ? (body as { factoryId?: unknown }).factoryId : undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * Invalidation after writes: forgets what a write changed, in this process, in the
 * shared cache, and on every replica (through the shared state's messages), and keeps
 * a per-key generation number that whole-response caches put in their keys.
 *
 * When to use: one per economy. `forget` is the economy's way to drop one cache key
 * from its own levels (cache entry and in-flight request); nothing else here touches them.
 */
export class Invalidation {
  private readonly generations = new LRUCache<string, number>({ max: 100_000 });
  private readonly listeners = new Set<InvalidationListener>();
  /**
   * This replica's invalidations the shared state could not take (Redis was away),
   * re-sent when it is back. Bounded: past {@link MAX_PENDING} the oldest are dropped
   * (with a Redis outage that long, their cache entries have long expired).
   */
  private readonly pending = new Map<string, { keyId: string; factoryId: string | null }>();

  /**
   * @param forget - drops one cache key from this process (its cache and flights)
   * @param shared - the replicas' shared state, whose messages are applied here too
   */
  constructor(
    private readonly forget: (key: string) => void,
    private readonly shared: SharedState | undefined,
  ) {
    shared?.onInvalidation((keyId, factoryId, changed) => this.applyLocally(keyId, factoryId, changed?.map((each) => each.key)));
    shared?.onReconnect(() => this.resendPending());
  }

  /** Invalidations waiting for the shared state to be back (for tests and metrics). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * True while other replicas' writes may have been missed (see
   * `SharedState.invalidationsInDoubt`): what writes invalidate is then served flagged stale.
   */
  inDoubt(): boolean {
    return this.shared?.invalidationsInDoubt() ?? false;
  }

  /**
   * A number that changes whenever a write of this key may have changed what its
   * operations answer.
   */
  generation(keyId: string): number {
    return this.generations.get(keyId) ?? 0;
  }

  /** After a successful option write: forget that company's option reads here, in the shared cache, and on every replica. */
  async optionsWritten(keyId: string, body: unknown): Promise<void> {
    const factoryId = writtenFactoryId(body);
    // Locally first: the same operation may read the slot back right away.
    this.applyLocally(keyId, factoryId);
    if (this.shared && !(await this.share(keyId, factoryId))) {
      this.pending.delete(`${keyId}|${factoryId ?? ''}`);
      this.pending.set(`${keyId}|${factoryId ?? ''}`, { keyId, factoryId });
      for (const oldest of this.pending.keys()) {
        if (this.pending.size <= MAX_PENDING) break;
        this.pending.delete(oldest);
      }
    }
  }

  /** Deletes the shared entries and tells every replica; false when the shared state is away. */
  private async share(keyId: string, factoryId: string | null): Promise<boolean> {
    const shared = this.shared;
    if (!shared) return true;
    const deleted = await shared.deleteEntries(factoryId ? optionKeys(keyId, factoryId) : []);
    return deleted && (await shared.publishInvalidation(keyId, factoryId));
  }

  /** Re-sends the invalidations Redis missed (also deleting the entries a restarted Redis may have brought back). */
  private async resendPending(): Promise<void> {
    for (const [id, { keyId, factoryId }] of [...this.pending]) {
      if (!(await this.share(keyId, factoryId))) throw new Error('redis went away while re-sending invalidations');
      this.pending.delete(id);
    }
  }

  /** Registers a listener told each time this process applies an invalidation; returns its removal. */
  onInvalidated(listener: InvalidationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies an invalidation (this process's write, or another replica's message, which may name `changed` cache keys to forget). */
  applyLocally(keyId: string, factoryId: string | null, changed: readonly string[] = []): void {
    for (const listener of this.listeners) listener(keyId, factoryId, changed);
    for (const key of changed) this.forget(key);
    if (changed.length > 0) return; // another replica's new answers, no write: whole responses keep their own freshness
    this.generations.set(keyId, this.generation(keyId) + 1);
    if (!factoryId) return;
    for (const key of optionKeys(keyId, factoryId)) this.forget(key);
  }
}
