import type { Endpoint } from '../../upstream/endpoints';
import { EndpointRuleBook } from '../endpoint-rules';
import { growingLru } from '../growing-lru';
import type { EndpointRules } from '../endpoint-rules';
import type { SharedState } from '../shared-state/shared-state';

/** A write of `keyId` changed what its reads answer; `scope` names what it changed when known (see `EndpointRules.writeScope`), `changed` the cache keys another replica got new answers for. */
export type InvalidationListener = (keyId: string, scope: string | null, changed: readonly string[]) => void;

/** Most invalidations kept for re-sending while Redis is away. */
const MAX_PENDING = 10_000;

/**
 * Invalidation after writes: forgets what a write changed, in this process, in the
 * shared cache, and on every replica (through the shared state's messages), and keeps
 * a per-key generation number that whole-response caches put in their keys.
 *
 * When to use: one per economy. `forget` is the economy's way to drop one cache key
 * from its own levels (cache entry and in-flight request); nothing else here touches them.
 */
export class Invalidation {
  private readonly generations = growingLru<string, number>(100_000);
  private readonly listeners = new Set<InvalidationListener>();
  /**
   * This replica's invalidations the shared state could not take (Redis was away),
   * re-sent when it is back. Bounded: past {@link MAX_PENDING} the oldest are dropped
   * (with a Redis outage that long, their cache entries have long expired).
   */
  private readonly pending = new Map<string, { keyId: string; scope: string | null }>();
  /** What the domains say writes change (see `EndpointRules`). */
  private readonly rules: EndpointRuleBook;

  /**
   * @param forget - drops one cache key from this process (its cache and flights)
   * @param shared - the replicas' shared state, whose messages are applied here too
   * @param rules - the domains' endpoint rules: which reads writes change, what a write invalidates
   */
  constructor(
    private readonly forget: (key: string) => void,
    private readonly shared: SharedState | undefined,
    rules: readonly EndpointRules[] = [],
  ) {
    this.rules = new EndpointRuleBook(rules);
    shared?.onInvalidation((keyId, scope, changed) =>
      this.applyLocally(
        keyId,
        scope,
        changed?.map((each) => each.key),
      ),
    );
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

  /** True when a fresh cached answer of `endpoint` must be served flagged stale now: writes change it and some may have been missed (see {@link inDoubt}). */
  inDoubtFor(endpoint: Endpoint): boolean {
    // The doubt first: nearly always false, and cheaper than the endpoint's rules (read on every fresh hit).
    return this.inDoubt() && this.rules.changedByWrites(endpoint);
  }

  /** The cache keys of `keyId`'s reads a write in `scope` changes (none without a scope). */
  scopeKeys(keyId: string, scope: string | null): string[] {
    return scope ? this.rules.scopeKeys(keyId, scope) : [];
  }

  /** The cache keys a successful write of `endpoint` with `body` changes (see `EndpointRules.writeScope`). */
  writtenKeys(keyId: string, endpoint: Endpoint, body: unknown): string[] {
    return this.scopeKeys(keyId, this.rules.writeScope(endpoint, body) ?? null);
  }

  /**
   * A number that changes whenever a write of this key may have changed what its
   * operations answer.
   */
  generation(keyId: string): number {
    return this.generations.get(keyId) ?? 0;
  }

  /**
   * After a successful write: forget the reads of the scope it changed (see
   * `EndpointRules.writeScope`) here, in the shared cache, and on every replica; nothing
   * when the endpoint's writes invalidate nothing. `store` puts the written answer in the
   * caches (the write-through): after the shared entries are deleted, before the other
   * replicas are told; this process's listeners are told once it is done.
   */
  async written(
    keyId: string,
    endpoint: Endpoint,
    body: unknown,
    store: () => Promise<void> = async () => undefined,
  ): Promise<void> {
    const scope = this.rules.writeScope(endpoint, body);
    if (scope === undefined) return store();
    // Locally first: the same operation may read the written resource back right away.
    this.applyLocally(keyId, scope, [], false);
    let stored = false;
    const storeOnce = async (): Promise<void> => {
      stored = true;
      await store();
    };
    if (this.shared && !(await this.share(keyId, scope, storeOnce))) {
      this.pending.delete(`${keyId}|${scope ?? ''}`);
      this.pending.set(`${keyId}|${scope ?? ''}`, { keyId, scope });
      for (const oldest of this.pending.keys()) {
        if (this.pending.size <= MAX_PENDING) break;
        this.pending.delete(oldest);
      }
    }
    if (!stored) await store();
    // Listeners last: what they read again now is the written answer, not an upstream request.
    this.notify(keyId, scope, []);
  }

  /**
   * Deletes the shared entries and tells every replica; false when the shared state is away.
   * `beforePublish` (the written answer's write-through) runs between the two, so a replica
   * that reads the written resource again on the message finds it in the shared cache.
   */
  private async share(keyId: string, scope: string | null, beforePublish?: () => Promise<void>): Promise<boolean> {
    const shared = this.shared;
    if (!shared) return true;
    const deleted = await shared.deleteEntries(this.scopeKeys(keyId, scope));
    if (deleted) await beforePublish?.();
    return deleted && (await shared.publishInvalidation(keyId, scope));
  }

  /** Re-sends the invalidations Redis missed (also deleting the entries a restarted Redis may have brought back). */
  private async resendPending(): Promise<void> {
    for (const [id, { keyId, scope }] of [...this.pending]) {
      if (!(await this.share(keyId, scope))) throw new Error('redis went away while re-sending invalidations');
      this.pending.delete(id);
    }
  }

  /** Registers a listener told each time this process applies an invalidation; returns its removal. */
  onInvalidated(listener: InvalidationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies an invalidation (this process's write, or another replica's message, which may name `changed` cache keys to forget). */
  applyLocally(keyId: string, scope: string | null, changed: readonly string[] = [], notify = true): void {
    if (notify) this.notify(keyId, scope, changed);
    for (const key of changed) this.forget(key);
    if (changed.length > 0) return; // another replica's new answers, no write: whole responses keep their own freshness
    this.generations.set(keyId, this.generation(keyId) + 1);
    if (!scope) return;
    for (const key of this.scopeKeys(keyId, scope)) this.forget(key);
  }

  private notify(keyId: string, scope: string | null, changed: readonly string[]): void {
    for (const listener of this.listeners) listener(keyId, scope, changed);
  }
}
