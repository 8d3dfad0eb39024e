import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamClient } from '../upstream/client';
import { buildPath, ENDPOINTS } from '../upstream/endpoints';
import type { CacheKind, Endpoint, PathParams } from '../upstream/endpoints';
import { OperationAccounting } from './accounting';
import type { StaleInfo } from './accounting';
import { cacheKey, failureOf } from './cache/cache-entry';
import type { CacheEntry, UpstreamFailure } from './cache/cache-entry';
import { Freshness } from './cache/freshness';
import { UpstreamCache } from './cache/upstream-cache';
import type { PersistableCache } from './cache/cache-file';
import { BackgroundFill } from './background-fill/background-fill';
import { InFlight } from './coalescing/in-flight';
import { loadAcrossReplicas } from './coalescing/replica-coalescing';
import { Invalidation } from './invalidation/invalidation';
import type { InvalidationListener } from './invalidation/invalidation';
import { KeyLimiter } from './rate-limit/key-limiter';
import type { UpstreamPriority } from './rate-limit/priority';
import { QueueTicket } from './rate-limit/queue-ticket';
import { RateLimitGate } from './rate-limit/rate-limit-gate';
import type { RateLimitSource } from './rate-limit/rate-limit-gate';
import { RefreshAhead } from './refresh-ahead/refresh-ahead';
import type { RefreshTask } from './refresh-ahead/refresh-ahead';
import { withOneRetry } from './retry/retry';
import type { SharedState } from './shared-state/shared-state';
import { staleReason, staleStandIn } from './stale-fallback/stale-fallback';

/** Settings of {@link UpstreamEconomy}. */
export interface EconomyOptions {
  /** Cross-request cache on or off (off only for the benchmark's naive baseline). */
  cacheEnabled: boolean;
  /** Upper bound of the cache, bytes. */
  cacheMaxBytes: number;
  /** Freshness per endpoint kind, seconds. */
  ttlSeconds: Readonly<Record<CacheKind, number>>;
  /** How old a cached value may be and still be served when the upstream fails, seconds. */
  staleMaxAgeSeconds: number;
  /** Cooldown after a 429 without `Retry-After`, seconds (doubled while such 429s follow each other). */
  defaultBackoffSeconds: number;
  /** Longest cooldown of that backoff, seconds (default 3600). */
  maxBackoffSeconds?: number;
  /** Base delay before the one retry of a GET, ms (the actual delay is 50–150 % of it). */
  retryDelayMs: number;
  /** Per-key budget: at most `requests` in any `windowSeconds` (a sliding-window log); null = off. */
  rateLimit: { requests: number; windowSeconds: number } | null;
  /** Concurrency per key, and the default patience: the longest an operation's request waits for budget or a slot, ms. */
  concurrencyPerKey: number;
  patienceMs: number;
  /** Clock and randomness, replaceable in tests. */
  now?: () => number;
  random?: () => number;
  /** State shared with other replicas (Redis), if any. */
  shared?: SharedState;
  /** How long one replica may hold the cross-replica fetch lock of a request, ms. */
  sharedLockMs?: number;
  /**
   * Refresh-ahead (see `refresh-ahead/`): the share of each key's budget it may use
   * (`REFRESH_AHEAD_SHARE`, 0 = off) and how long a key may go unread before it gets no
   * refreshes (`REFRESH_AHEAD_IDLE_SECONDS`). Off when absent.
   */
  refreshAhead?: { share: number; idleSeconds: number; tickMs?: number };
  /**
   * Background fill (see `background-fill/`): most missed requests kept per key and over
   * all keys (defaults 100 and 10000); `false` turns it off.
   */
  backgroundFill?: { maxPerKey: number; maxTotal: number } | false;
}

/** Things the economy tells metrics about. */
export interface EconomyEvents {
  cache?(outcome: 'hit' | 'miss' | 'stale'): void;
  coalesced?(): void;
  rateLimited?(source: RateLimitSource): void;
  /** An upstream answer was served to an operation: its cache kind, how old it was, and whether it was stale. */
  served?(kind: CacheKind, ageSeconds: number): void;
  /** A refresh-ahead request finished: `stored` or `failed`. */
  refreshed?(outcome: 'stored' | 'failed'): void;
  /** A request was refused because its key's queue for budget was full. */
  queueDropped?(priority: UpstreamPriority): void;
  /** An upstream request waited this long for its key's budget and a slot before it was sent, ms (tracing). */
  budgetWaited?(ms: number): void;
  /**
   * Runs one upstream request (a GET through cache, flights and budget, a refresh, or a
   * POST) as `work`; tracing wraps it in a span, and the events above fired meanwhile belong to it.
   */
  traced?<T>(request: TracedRequest, work: () => Promise<T>): Promise<T>;
  /** Wraps work queued now to run later (background fill), so tracing can link it to the operation that queued it. */
  queued?<T>(work: () => T): () => T;
}

/** What tracing is told about an upstream request before it runs; never the key itself. */
export interface TracedRequest {
  /** Route pattern, e.g. `GET /factory/inventory/{id}`. */
  route: string;
  /** Who waits for it. */
  priority: UpstreamPriority;
  /** The key's HMAC id. */
  keyId: string;
}

/** The economy's own statistics, for `/metrics` and tests; nothing names a key. */
export interface EconomyStats {
  /** Entries in the process cache. */
  cacheEntries: number;
  /** Bytes the process cache holds (of the answers' JSON text). */
  cacheBytes: number;
  /** Upstream requests in flight that later callers may join. */
  inFlight: number;
  /** Requests in the current budget windows of all keys (this process's view). */
  windowRequests: number;
  /** Keys whose learned allowance is below the limit after an upstream 429. */
  reducedKeys: number;
  /** Requests waiting for budget, per priority. */
  queued: Record<UpstreamPriority, number>;
}

/**
 * A GET answer as the economy hands it to a mapper: a body, or a definitive 4xx as a
 * failure record (the mapper may turn it into a result, e.g. "Counter is empty" into
 * an empty counter, or into an error for its field).
 */
export type UpstreamReply = ({ body: unknown; failure?: undefined } | { body?: undefined; failure: UpstreamFailure }) & {
  /** Set when the answer is a stale cached value served because fresh data failed. */
  stale: StaleInfo | null;
};

/** Who is asking: the hashed key for state, the key itself only for the header. */
export interface EconomyCaller {
  keyId: string;
  apiKey: string;
  /** `Cache-Control: no-cache`: skip fresh cache hits, refresh the cache. */
  noCache: boolean;
  /** Who waits for the requests (default `operation`; see `UpstreamPriority`). */
  priority?: UpstreamPriority;
  /** How long this operation waits for budget, ms (`Prefer: wait`); default the economy's `patienceMs`. */
  patienceMs?: number;
  accounting: OperationAccounting;
}

/** 4xx answers that are the upstream's final word on a request: cached like a body. */
const DEFINITIVE_STATUSES = new Set([400, 401, 403, 404]);

/**
 * The upstream economy: every GET goes cache (`cache/`) → in-flight coalescing, in
 * this process and across replicas (`coalescing/`) → per-key rate limit
 * (`rate-limit/`) → upstream, with one retry for connection errors and 502/503/504
 * (`retry/`), and falls back to stale data when the upstream fails or the key is
 * rate-limited (`stale-fallback/`). Writes go through the rate limit too and
 * invalidate what they change (`invalidation/`). Replicas share cache, limits, locks
 * and invalidations through `shared-state/` (Redis).
 *
 * This class only wires those parts together; each rule lives in its own file.
 *
 * When to use: one per process; each operation reaches it through its
 * `UpstreamSession`. Every state here is keyed by the hashed API key, so no two keys
 * ever share an entry, a flight or a limit. Its cache is its own: others read
 * {@link stats}.
 */
export class UpstreamEconomy {
  private readonly cache: UpstreamCache;
  private readonly freshness: Freshness;
  private readonly inflight = new InFlight<CacheEntry, QueueTicket>();
  private readonly gate: RateLimitGate;
  private readonly limiter: KeyLimiter;
  private readonly invalidation: Invalidation;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly shared: SharedState | undefined;
  private readonly refreshAhead: RefreshAhead | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly fill: BackgroundFill | undefined;

  constructor(
    private readonly client: UpstreamClient,
    private readonly options: EconomyOptions,
    private readonly events: EconomyEvents = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.shared = options.shared;
    this.cache = new UpstreamCache({ maxBytes: options.cacheMaxBytes, now: this.now });
    this.freshness = new Freshness({ ttlSeconds: options.ttlSeconds, staleMaxAgeSeconds: options.staleMaxAgeSeconds, now: this.now });
    const limit = options.rateLimit ? { requests: options.rateLimit.requests, windowMs: options.rateLimit.windowSeconds * 1000 } : null;
    const limiter = (this.limiter = new KeyLimiter({
      limit,
      concurrency: options.concurrencyPerKey,
      onDropped: (priority) => this.events.queueDropped?.(priority),
      missedElsewhere: (id) => this.fill?.pendingFor(id) ?? 0,
      patienceMs: options.patienceMs,
      now: this.now,
      shared: options.shared,
    }));
    this.gate = new RateLimitGate(limiter, {
      defaultBackoffSeconds: options.defaultBackoffSeconds,
      maxBackoffSeconds: options.maxBackoffSeconds,
      onRateLimited: (source) => this.events.rateLimited?.(source),
      patienceMs: options.patienceMs,
      now: this.now,
    });
    const refresh = options.refreshAhead;
    this.refreshAhead =
      refresh && refresh.share > 0 && options.cacheEnabled
        ? new RefreshAhead({
            share: refresh.share,
            idleMs: refresh.idleSeconds * 1000,
            budget: limit,
            now: this.now,
          })
        : undefined;
    const fill = options.backgroundFill ?? { maxPerKey: 100, maxTotal: 10_000 };
    this.fill =
      fill && options.cacheEnabled
        ? new BackgroundFill({
            plan: (keyId, count) => limiter.plannedTimes(keyId, count),
            maxPerKey: fill.maxPerKey,
            maxTotal: fill.maxTotal,
            onDropped: () => this.events.queueDropped?.('missed'),
            now: this.now,
          })
        : undefined;
    this.invalidation = new Invalidation((key) => {
      this.cache.delete(key);
      this.inflight.forget(key);
    }, this.shared);
  }

  /**
   * One GET, as cheaply as the rules allow.
   *
   * Definitive 4xx answers come back as `failure` records, not errors.
   *
   * @throws UpstreamError for a 5xx, timeout, connection error or 429, or
   *   `RATE_LIMITED` with `retryAfterSeconds` during a cooldown or when the budget is
   *   spent, whenever no stale value can stand in.
   */
  async get(caller: EconomyCaller, endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    const { traced } = this.events;
    return traced ? traced(tracedRequest(caller, endpoint), () => this.lookup(caller, endpoint, params)) : this.lookup(caller, endpoint, params);
  }

  private async lookup(caller: EconomyCaller, endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    const path = buildPath(endpoint, params);
    const key = cacheKey(caller.keyId, path);
    const cached = this.options.cacheEnabled ? this.cache.get(key) : undefined;
    if (cached && !caller.noCache && this.freshness.isFresh(cached, endpoint)) {
      if (endpoint === ENDPOINTS.factoryOption && this.invalidation.inDoubt()) {
        // Another replica may have written this slot while Redis was away: never fresh.
        caller.accounting.stale += 1;
        caller.accounting.noteFreshness(0);
        this.events.cache?.('stale');
        return reply(cached, { endpoint: endpoint.route, ageSeconds: Math.floor(this.freshness.ageMs(cached) / 1000), reason: 'INVALIDATION_PENDING' });
      }
      caller.accounting.cacheHits += 1;
      this.noteFreshness(caller, endpoint, cached);
      this.events.cache?.('hit');
      this.noteServed(caller, endpoint, path, key, cached);
      return reply(cached, null);
    }

    // Joining a running flight costs nothing; starting one counts against the operation's cap.
    const priority = caller.priority ?? 'operation';
    const started = new QueueTicket(priority);
    const { flight, joined, meta: ticket } = this.inflight.join(
      key,
      () => {
        caller.accounting.startRequest(endpoint);
        return this.load(caller, endpoint, path, key, started);
      },
      started,
    );
    if (joined) this.noteCoalesced(caller);

    let entry: CacheEntry;
    try {
      // A joined flight may be queued at a lower priority: an operation waits for it no longer than its patience.
      entry = await (joined && priority === 'operation' ? this.gate.awaitJoined(flight, ticket, endpoint, caller.patienceMs) : flight);
    } catch (error) {
      this.noteMissed(caller, endpoint, params, key, error);
      const reason = staleReason(error);
      const fallback = this.options.cacheEnabled ? (this.cache.get(key) ?? (reason ? await this.shared?.getEntry(key) : undefined)) : undefined;
      const standIn = staleStandIn(reason, fallback, endpoint.route, this.freshness);
      if (standIn) {
        caller.accounting.stale += 1;
        caller.accounting.noteFreshness(0);
        this.events.cache?.('stale');
        this.noteServed(caller, endpoint, path, key, standIn.entry);
        return reply(standIn.entry, standIn.info);
      }
      throw error;
    }
    this.noteFreshness(caller, endpoint, entry);
    this.noteServed(caller, endpoint, path, key, entry);
    return reply(entry, null);
  }

  /**
   * An operation's GET that failed with `RATE_LIMITED` (its patience ran out, the key is
   * cooling down, or the upstream said 429) goes to background fill, which fetches it
   * when the budget has room; the error's `retryAfterSeconds` becomes the time the fill
   * expects to send it, when that is later (missed requests queued ahead of it).
   */
  private noteMissed(caller: EconomyCaller, endpoint: Endpoint, params: PathParams | undefined, key: string, error: unknown): void {
    if (!this.fill || (caller.priority ?? 'operation') !== 'operation') return;
    if (!(error instanceof UpstreamError) || error.code !== 'RATE_LIMITED') return;
    const { keyId, apiKey } = caller;
    const fetch = (): Promise<UpstreamReply> => this.fetchInBackground({ keyId, apiKey, endpoint, params }, { priority: 'missed' });
    const at = this.fill.note({
      keyId,
      apiKey,
      key,
      fetch: this.events.queued?.(fetch) ?? fetch,
      isFresh: () => {
        const cached = this.cache.get(key);
        return cached !== undefined && this.freshness.isFresh(cached, endpoint);
      },
    });
    if (at === null) return;
    const seconds = Math.max(1, Math.ceil((at - this.now()) / 1000));
    const told = error.extensions.retryAfterSeconds;
    if (typeof told !== 'number' || told < seconds) error.extensions.retryAfterSeconds = seconds;
  }

  /**
   * Bookkeeping of every answer served: its age for `extensions.upstream.maxAgeSeconds`
   * and the age histogram, and a read for refresh-ahead.
   */
  private noteServed(caller: EconomyCaller, endpoint: Endpoint, path: string, key: string, entry: CacheEntry): void {
    const ageMs = this.freshness.ageMs(entry);
    caller.accounting.noteAge(ageMs);
    this.events.served?.(endpoint.cacheKind, ageMs / 1000);
    if (!this.refreshAhead || caller.noCache) return;
    this.refreshAhead.noteRead({ keyId: caller.keyId, apiKey: caller.apiKey, key, endpoint, storedAt: entry.storedAt, ttlMs: this.freshness.ttlMs(endpoint) });
    if (!this.refreshTimer) {
      this.refreshTimer = setInterval(() => this.runRefreshes(), this.options.refreshAhead?.tickMs ?? 1000);
      this.refreshTimer.unref();
    }
  }

  /**
   * Starts the refreshes refresh-ahead chooses now. Each is a background fetch through
   * in-flight sharing and the key's limiter, like a viewer's `Cache-Control: no-cache`
   * read, accounted to nobody.
   *
   * Refreshes wait in the key's queue at its lowest priority (`background`), behind what
   * operations wait for and what they missed; refresh-ahead's own share (see
   * `RefreshAhead`) keeps the rest of each key's budget for viewers.
   */
  runRefreshes(): Promise<void> {
    const tasks = this.refreshAhead?.tick() ?? [];
    return Promise.all(tasks.map((task) => this.refreshOne(task))).then(() => undefined);
  }

  private async refreshOne(task: RefreshTask): Promise<void> {
    const caller: EconomyCaller = { keyId: task.keyId, apiKey: task.apiKey, noCache: true, priority: 'background', accounting: new OperationAccounting() };
    const { traced } = this.events;
    return traced ? traced(tracedRequest(caller, task.endpoint), () => this.refresh(task, caller)) : this.refresh(task, caller);
  }

  private async refresh(task: RefreshTask, caller: EconomyCaller): Promise<void> {
    try {
      const ticket = new QueueTicket('background');
      const { flight } = this.inflight.join(task.key, () => this.load(caller, task.endpoint, task.path, task.key, ticket), ticket);
      const entry = await flight;
      this.refreshAhead?.done(task, entry.storedAt);
      this.events.refreshed?.('stored');
    } catch {
      this.refreshAhead?.done(task, null);
      this.events.refreshed?.('failed');
    }
  }

  /**
   * Background work on the key's budget: one GET through the cache, in-flight sharing
   * and the key's queue at `priority`, accounted to nobody. While operations (or work of
   * a higher priority) wait for the key's budget, this waits behind them; it never takes
   * the key past its budget, and it waits as long as the budget needs (no patience).
   *
   * When to use: subscription polls and refresh-ahead. `refresh: true` skips a fresh
   * cached answer and stores the new one (a poll that must see changes); else a fresh
   * cached answer is the result at no cost.
   *
   * @param request - the key (hashed id and the key itself, for the header) and the endpoint
   * @param options - `priority`: `missed` or `background` (default); `refresh` (default false)
   * @returns the answer as `get` gives it (a definitive 4xx as `failure`)
   * @throws UpstreamError as `get` does (a 5xx, timeout, 429, or `RATE_LIMITED` during a cooldown or when the key's queue is full)
   */
  async fetchInBackground(
    request: { keyId: string; apiKey: string; endpoint: Endpoint; params?: PathParams },
    options: { priority?: Exclude<UpstreamPriority, 'operation'>; refresh?: boolean } = {},
  ): Promise<UpstreamReply> {
    const caller: EconomyCaller = {
      keyId: request.keyId,
      apiKey: request.apiKey,
      noCache: options.refresh ?? false,
      priority: options.priority ?? 'background',
      accounting: new OperationAccounting(),
    };
    return this.get(caller, request.endpoint, request.params);
  }

  /**
   * A key's budget now, for background work that adapts its pace (subscription polls
   * stretch their interval when it is short): its allowance (the limit, or less after an
   * upstream 429), the seconds left of a 429 cooldown, and requests waiting for it.
   */
  budgetOf(keyId: string): { allowance: number; cooldownSeconds: number } {
    return { allowance: this.limiter.allowance(keyId), cooldownSeconds: this.limiter.cooldownSeconds(keyId) };
  }

  /** Stops refresh-ahead's timer (at shutdown). */
  close(): void {
    this.fill?.close();
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  /**
   * A write (POST). Obeys the cooldown and budget, is never retried, and on success
   * invalidates what it changed (for the option edit: that company's option reads).
   */
  async post(caller: EconomyCaller, endpoint: Endpoint, body: unknown): Promise<unknown> {
    const { traced } = this.events;
    return traced ? traced(tracedRequest(caller, endpoint), () => this.write(caller, endpoint, body)) : this.write(caller, endpoint, body);
  }

  private async write(caller: EconomyCaller, endpoint: Endpoint, body: unknown): Promise<unknown> {
    caller.accounting.startRequest(endpoint);
    const asked = this.now();
    const release = await this.gate.acquire(caller.keyId, endpoint, 'operation', caller.patienceMs);
    this.events.budgetWaited?.(this.now() - asked);
    try {
      caller.accounting.requests += 1;
      const response = await this.client.send({ endpoint, apiKey: caller.apiKey, body });
      if (endpoint === ENDPOINTS.factoryOptionUpdate) await this.invalidation.optionsWritten(caller.keyId, body);
      return response.body;
    } catch (error) {
      this.gate.observe(caller.keyId, error);
      throw error;
    } finally {
      release();
    }
  }

  /**
   * A number that changes whenever a write of this key may have changed what its
   * operations answer; whole-response caches put it in their keys.
   */
  generation(keyId: string): number {
    return this.invalidation.generation(keyId);
  }

  /**
   * Registers a callback told each time this process applies an invalidation (its own
   * write, or another replica's message): for tests and diagnostics.
   */
  onInvalidated(listener: InvalidationListener): () => void {
    return this.invalidation.onInvalidated(listener);
  }

  /**
   * True while this replica may have missed other replicas' writes (Redis away, or back
   * but not caught up); whole-response caches must not answer meanwhile.
   */
  invalidationsInDoubt(): boolean {
    return this.invalidation.inDoubt();
  }

  /** The economy's statistics now (see {@link EconomyStats}). */
  stats(): EconomyStats {
    const budget = this.limiter.budgetStats();
    // Missed requests wait in background fill until the budget has room; they count as queued.
    const queued = { ...budget.queued, missed: budget.queued.missed + (this.fill?.size ?? 0) };
    return { cacheEntries: this.cache.size, cacheBytes: this.cache.bytes, inFlight: this.inflight.size, ...budget, queued };
  }

  /** The process cache as a cache file writes and reads it (see `cache/cache-file.ts`). */
  persistable(): PersistableCache {
    return this.cache;
  }

  private noteFreshness(caller: EconomyCaller, endpoint: Endpoint, entry: CacheEntry): void {
    caller.accounting.noteFreshness(this.freshness.ttlMs(endpoint) - this.freshness.ageMs(entry));
  }

  private noteCoalesced(caller: EconomyCaller): void {
    caller.accounting.coalesced += 1;
    this.events.coalesced?.();
  }

  /**
   * What a cache miss does: with shared state, the shared cache and the cross-replica
   * lock first (see `loadAcrossReplicas`), else straight to the upstream.
   */
  private async load(caller: EconomyCaller, endpoint: Endpoint, path: string, key: string, ticket: QueueTicket): Promise<CacheEntry> {
    const shared = this.shared;
    if (!shared || !this.options.cacheEnabled) return this.fetch(caller, endpoint, path, key, ticket);
    const startedAt = this.now();
    const { entry, source } = await loadAcrossReplicas(shared, {
      key,
      usable: (candidate): candidate is CacheEntry =>
        candidate !== undefined && this.freshness.isFresh(candidate, endpoint) && (!caller.noCache || candidate.storedAt >= startedAt),
      fetch: () => this.fetch(caller, endpoint, path, key, ticket),
      lockMs: this.options.sharedLockMs ?? 10_000,
      now: this.now,
    });
    if (source === 'upstream') return entry;
    if (source === 'shared') {
      caller.accounting.cacheHits += 1;
      this.events.cache?.('hit');
    } else {
      this.noteCoalesced(caller);
    }
    // Take the shared answer into the process cache for the rest of its lifetime.
    this.cache.set(key, entry, this.freshness.lifetimeMs(endpoint) - this.freshness.ageMs(entry));
    return entry;
  }

  /** Sends the GET (with at most one retry) and stores what is worth storing in every cache level. */
  private async fetch(caller: EconomyCaller, endpoint: Endpoint, path: string, key: string, ticket: QueueTicket): Promise<CacheEntry> {
    this.events.cache?.('miss');
    let attempts = 0;
    const entry = await withOneRetry(() => {
      // The retry is one more upstream request of the operation (the first was counted when the flight started).
      if (attempts++ > 0) caller.accounting.startRequest(endpoint);
      return this.attempt(caller, endpoint, path, key, ticket);
    }, {
      delayMs: this.options.retryDelayMs,
      random: this.random,
    });
    if (this.options.cacheEnabled) {
      const lifetime = this.freshness.lifetimeMs(endpoint);
      this.cache.set(key, entry, lifetime);
      await this.shared?.setEntry(key, entry, lifetime);
    }
    return entry;
  }

  /**
   * One upstream GET under the rate limit: takes the key's slot, sends, gives the slot
   * back (exactly once, whatever happens), and classifies the answer: a body or a
   * definitive 4xx becomes an entry, anything else is thrown.
   */
  private async attempt(caller: EconomyCaller, endpoint: Endpoint, path: string, key: string, ticket: QueueTicket): Promise<CacheEntry> {
    const asked = this.now();
    const release = await this.gate.acquire(caller.keyId, endpoint, caller.priority, caller.patienceMs, ticket);
    this.events.budgetWaited?.(this.now() - asked);
    try {
      caller.accounting.requests += 1;
      const response = await this.client.send({ endpoint, apiKey: caller.apiKey, path });
      return { kind: 'body', body: response.body, storedAt: this.now(), bytes: response.bytes + key.length };
    } catch (error) {
      this.gate.observe(caller.keyId, error);
      const status = error instanceof UpstreamError ? error.upstream.status : null;
      if (error instanceof UpstreamError && status !== null && DEFINITIVE_STATUSES.has(status)) {
        return { kind: 'failure', failure: failureOf(error), storedAt: this.now(), bytes: 256 + key.length };
      }
      throw error;
    } finally {
      release();
    }
  }
}

function tracedRequest(caller: EconomyCaller, endpoint: Endpoint): TracedRequest {
  return { route: endpoint.route, priority: caller.priority ?? 'operation', keyId: caller.keyId };
}

function reply(entry: CacheEntry, stale: StaleInfo | null): UpstreamReply {
  return entry.kind === 'failure' ? { failure: entry.failure, stale } : { body: entry.body, stale };
}
