import type { UpstreamClient } from '../upstream/client';
import type { Endpoint, PathParams } from '../upstream/endpoints';
import { OperationAccounting } from './accounting';
import type { BackgroundFetchOptions, BackgroundRequest } from './background-work';
import type { PersistableCache } from './cache/cache-file';
import type {
  EconomyCaller,
  EconomyEvents,
  EconomyOptions,
  EconomyStats,
  EntryStoredListener,
  UpstreamReply,
} from './economy-types';
import type { InvalidationListener } from './invalidation/invalidation';
import { economyParts } from './economy-parts';
import type { EconomyParts } from './economy-parts';
import type { FlightTrace, WrittenResource } from './flight';
export type { UpstreamReply } from './economy-types'; // where the subscription poller imports it from

/**
 * The upstream economy: every GET goes cache (`cache/`) → in-flight coalescing, in this
 * process and across replicas (`coalescing/`) → the key's budget and its priority queue
 * (`budget/`, `queue/`) → upstream, with one retry for connection errors and 502/503/504
 * (`retry/`), and falls back to stale data when the upstream fails or the key is
 * rate-limited (`stale-fallback/`). Writes go through the budget too and invalidate what
 * they change (`invalidation/`). What nobody waits for, background fill and
 * refresh-ahead, is `background-work.ts`; the miss path is `upstream-fetch.ts`. Replicas
 * share cache, limits, locks and invalidations through `shared-state/` (Redis). This
 * class only composes those parts; each rule lives in its own file.
 *
 * When to use: one per process; each operation reaches it through its `UpstreamSession`.
 * Every state is keyed by the hashed API key, so no two keys ever share an entry, a
 * flight or a budget. Its cache is its own: others read {@link stats}.
 */
export class UpstreamEconomy {
  private readonly cache: EconomyParts['cache'];
  private readonly inflight: EconomyParts['inflight'];
  private readonly budget: EconomyParts['budget'];
  private readonly upstream: EconomyParts['upstream'];
  private readonly background: EconomyParts['background'];
  private readonly invalidation: EconomyParts['invalidation'];
  private readonly notes: EconomyParts['notes'];
  private readonly reads: EconomyParts['reads'];
  /** Told each time a key's cache entry gets new data (see `EntryStoredListener`): add a listener, delete it to stop. */
  readonly entryStored = new Set<EntryStoredListener>();
  /** Writers' locks across replicas (see `ReplicaWriteLocks`): site-document writes lock their company. */
  readonly writeLocks: EconomyParts['writeLocks'];

  /**
   * @param client - the upstream client (the only sender of requests)
   * @param options - cache, budget, patience, retry, replicas and background settings
   * @param events - hooks for metrics and tracing (see {@link EconomyEvents})
   */
  constructor(
    client: UpstreamClient,
    private readonly options: EconomyOptions,
    private readonly events: EconomyEvents = {},
  ) {
    const parts = economyParts(client, options, events, {
      missedFor: (id) => this.background.missedFor(id),
      fetchInBackground: (request, fetchOptions) => this.fetchInBackground(request, fetchOptions),
      traced: (caller, endpoint, work) => this.traced(caller, endpoint, work),
      coalesced: (caller) => this.notes.coalesced(caller),
      stored: (keyId, key) => this.entryStored.forEach((listener) => listener(keyId, key)),
    });
    ({
      cache: this.cache,
      inflight: this.inflight,
      budget: this.budget,
      upstream: this.upstream,
      background: this.background,
      invalidation: this.invalidation,
      notes: this.notes,
      reads: this.reads,
      writeLocks: this.writeLocks,
    } = parts);
  }

  /**
   * One GET, as cheaply as the rules allow (see `ReadPath.get`). Definitive 4xx answers
   * come back as `failure` records, not errors.
   *
   * @throws UpstreamError for a 5xx, timeout, connection error or 429, or
   *   `RATE_LIMITED` with `retryAfterSeconds` during a cooldown or when the budget is
   *   spent, whenever no stale value can stand in.
   */
  get(caller: EconomyCaller, endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    return this.traced(caller, endpoint, () => this.reads.get(caller, endpoint, params));
  }

  /** A fresh cached answer at once, or `undefined` (then {@link get}); see `ReadPath.freshHit`. */
  freshHit(caller: EconomyCaller, endpoint: Endpoint, params?: PathParams): UpstreamReply | undefined {
    return this.reads.freshHit(caller, endpoint, params);
  }

  /** Runs one upstream request through `EconomyEvents.traced` when tracing listens (else as it is). */
  private traced<T>(caller: EconomyCaller, endpoint: Endpoint, work: () => Promise<T>): Promise<T> {
    const { traced } = this.events;
    return traced
      ? traced({ route: endpoint.route, priority: caller.priority ?? 'operation', keyId: caller.keyId }, work)
      : work();
  }

  /**
   * Starts the refreshes refresh-ahead chooses now (see `BackgroundWork.runRefreshes`).
   * Refreshes wait in the key's queue at its lowest priority (`background`); refresh-ahead's
   * own share keeps the rest of each key's budget for viewers.
   */
  runRefreshes(): Promise<void> {
    return this.background.runRefreshes();
  }

  /**
   * Background work on the key's budget: one GET through the cache, in-flight sharing
   * and the key's queue at `priority` (behind every higher priority, as patient as the
   * budget needs), accounted to nobody. When to use: subscription polls and background
   * fill; `refresh: true` skips a fresh cached answer and stores the new one.
   *
   * @param request - the key (hashed id and the key itself, for the header) and the endpoint
   * @param options - `priority`: `missed` or `background` (default); `refresh` (default false)
   * @returns the answer as `get` gives it (a definitive 4xx as `failure`)
   * @throws UpstreamError as `get` does (a 5xx, timeout, 429, or `RATE_LIMITED` during a cooldown or when the key's queue is full)
   */
  async fetchInBackground(request: BackgroundRequest, options: BackgroundFetchOptions = {}): Promise<UpstreamReply> {
    const caller: EconomyCaller = {
      keyId: request.keyId,
      apiKey: request.apiKey,
      noCache: options.refresh ?? false,
      priority: options.priority ?? 'background',
      accounting: new OperationAccounting(),
    };
    return this.get(caller, request.endpoint, request.params);
  }

  /** A key's budget now, for background work that adapts its pace: its allowance (requests per window; `Infinity` when off) and the seconds left of a 429 cooldown. */
  budgetOf(keyId: string): { allowance: number; cooldownSeconds: number } {
    return { allowance: this.budget.allowance(keyId), cooldownSeconds: this.budget.cooldownSeconds(keyId) };
  }

  /**
   * Requests per minute subscription polls of a key may spend now: `percent` of its
   * budget (its allowance, so less after an upstream 429). `Infinity` when the budget is
   * off. Example: 10 per 60 s at 50 % → 5; after a 429 halved the allowance → 2.5.
   */
  pollShare(keyId: string, percent: number): number {
    return this.budget.pollShare(keyId, percent);
  }

  /** Stops background fill and refresh-ahead's timer (at shutdown). */
  close(): void {
    this.background.close();
  }

  /**
   * A write (POST), at priority `write`: ahead of all the key's queued work, refused in a
   * 429 cooldown, as patient as the budget needs (callers race their own patience), never
   * retried; on success it invalidates what it changed (see `EndpointRules.writeScope`).
   * `written` (what a GET of the written resource answers now, when the writer knows it)
   * becomes the cached answer here and in the shared cache, and this process keeps the rest
   * of the write's scope it had cached, so a read after the write needs no upstream request.
   *
   * @returns the upstream's answer body
   * @throws UpstreamError for any failure, `RATE_LIMITED` when the budget refuses it
   */
  post(caller: EconomyCaller, endpoint: Endpoint, body: unknown, written?: WrittenResource): Promise<unknown> {
    return this.traced(caller, endpoint, () => this.write(caller, endpoint, body, written));
  }

  private async write(
    caller: EconomyCaller,
    endpoint: Endpoint,
    body: unknown,
    written?: WrittenResource,
  ): Promise<unknown> {
    const trace: FlightTrace = { source: 'upstream', budgetWaitMs: 0, retries: 0 };
    let failed = true;
    try {
      const answer = await this.upstream.write(caller, endpoint, body, trace);
      const kept = written
        ? this.upstream.cachedEntries(this.invalidation.writtenKeys(caller.keyId, endpoint, body))
        : [];
      await this.invalidation.written(
        caller.keyId,
        endpoint,
        body,
        written && (() => this.upstream.storeWritten(caller.keyId, written, kept)),
      );
      failed = false;
      return answer;
    } finally {
      this.notes.traced(caller, endpoint, 'write', trace, failed);
    }
  }

  /** See `UpstreamSession.plannedCommit`: when the last of `writesLeft` writes goes upstream, behind the writes queued now (`underWay`: one of them is queued or in flight already). */
  plannedCommit(keyId: string, writesLeft: number, underWay: boolean): number {
    return underWay
      ? this.budget.plannedCommit(keyId, writesLeft)
      : (this.budget.plannedTimes(keyId, writesLeft, 'write', true).at(-1) ?? this.budget.plannedCommit(keyId, 0));
  }

  /** A number that changes whenever a write of this key may have changed what its operations answer; whole-response caches put it in their keys. */
  generation(keyId: string): number {
    return this.invalidation.generation(keyId);
  }

  /** The cache keys of `keyId`'s reads a write in `scope` changes (see `EndpointRules.scopeReads`; none without a scope). */
  scopeKeys(keyId: string, scope: string | null): string[] {
    return this.invalidation.scopeKeys(keyId, scope);
  }

  /** Registers a callback told each time this process applies an invalidation (its own write, or another replica's message); returns its removal. */
  onInvalidated(listener: InvalidationListener): () => void {
    return this.invalidation.onInvalidated(listener);
  }

  /** True while this replica may have missed other replicas' writes (Redis away, or back but not caught up); whole-response caches must not answer meanwhile. */
  invalidationsInDoubt(): boolean {
    return this.invalidation.inDoubt();
  }

  /** The economy's statistics now (see {@link EconomyStats}), its budget's of one key only with `keyId` (the console's `keyBudgets`); reads every key's state without reordering any. */
  stats(keyId?: string): EconomyStats {
    const budget = this.budget.budgetStats(keyId);
    // Missed requests wait in background fill until the budget has room; they count as queued.
    const queued = {
      ...budget.queued,
      missed: budget.queued.missed + (keyId === undefined ? this.background.missed : this.background.missedFor(keyId)),
    };
    return {
      cacheEntries: this.cache.size,
      cacheBytes: this.cache.bytes,
      inFlight: this.inflight.size,
      ...budget,
      queued,
    };
  }

  /** The process cache as a cache file writes and reads it (see `cache/cache-file.ts`). */
  persistable(): PersistableCache {
    return this.cache;
  }
}
