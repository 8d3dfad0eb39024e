import { LRUCache } from 'lru-cache';
import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamClient } from '../upstream/client';
import { buildPath, ENDPOINTS } from '../upstream/endpoints';
import type { CacheKind, Endpoint, PathParams } from '../upstream/endpoints';
import type { OperationAccounting, StaleInfo, StaleReason } from './accounting';
import { KeyLimiter, LimitExceeded } from './key-limiter';
import { UpstreamCache } from './upstream-cache';
import { failureOf } from './upstream-cache';
import type { CacheEntry, UpstreamFailure } from './upstream-cache';
import type { SharedState } from './shared-state';

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
  /** Cooldown after a 429 without `Retry-After`, seconds. */
  defaultBackoffSeconds: number;
  /** Base delay before the one retry of a GET, ms (the actual delay is 50–150 % of it). */
  retryDelayMs: number;
  /** Per-key budget (0 = off), burst, concurrency and queue timeout. */
  ratePerMinute: number;
  burst: number;
  concurrencyPerKey: number;
  queueTimeoutMs: number;
  /** Clock and randomness, replaceable in tests. */
  now?: () => number;
  random?: () => number;
  /** State shared with other replicas (Redis), if any. */
  shared?: SharedState;
  /** How long one replica may hold the cross-replica fetch lock of a request, ms. */
  sharedLockMs?: number;
}

/** Things the economy tells metrics about. */
export interface EconomyEvents {
  cache?(outcome: 'hit' | 'miss' | 'stale'): void;
  coalesced?(): void;
  rateLimited?(source: 'upstream' | 'cooldown' | 'budget'): void;
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
  accounting: OperationAccounting;
}

const RETRY_STATUSES = new Set([502, 503, 504]);
const DEFINITIVE_STATUSES = new Set([400, 401, 403, 404]);

/**
 * The upstream economy: every GET goes cache → in-flight coalescing → per-key limiter
 * → upstream (one retry for connection errors and 502/503/504), and falls back to
 * stale data when the upstream fails or the key is rate-limited. Writes go through the
 * limiter too and invalidate what they change.
 *
 * When to use: one per process; each operation reaches it through its
 * `UpstreamSession`. Every state here is keyed by the hashed API key, so no two keys
 * ever share an entry, a flight or a limit.
 */
export class UpstreamEconomy {
  readonly cache: UpstreamCache;
  readonly limiter: KeyLimiter;
  private readonly inflight = new Map<string, Promise<CacheEntry>>();
  private readonly generations = new LRUCache<string, number>({ max: 100_000 });
  private readonly invalidationListeners = new Set<(keyId: string, factoryId: string | null) => void>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly shared: SharedState | undefined;

  constructor(
    private readonly client: UpstreamClient,
    private readonly options: EconomyOptions,
    private readonly events: EconomyEvents = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.cache = new UpstreamCache({ maxBytes: options.cacheMaxBytes, now: this.now });
    this.limiter = new KeyLimiter({
      ratePerMinute: options.ratePerMinute,
      burst: options.burst,
      concurrency: options.concurrencyPerKey,
      queueTimeoutMs: options.queueTimeoutMs,
      now: this.now,
      shared: options.shared,
    });
    this.shared = options.shared;
    this.shared?.onInvalidation((keyId, factoryId) => this.invalidateLocally(keyId, factoryId));
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
    const path = buildPath(endpoint, params);
    const key = `${caller.keyId}|${path}`;
    const ttlMs = this.ttlMs(endpoint);
    const cached = this.options.cacheEnabled ? this.cache.get(key) : undefined;
    if (cached && !caller.noCache && this.ageMs(cached) < ttlMs) {
      caller.accounting.cacheHits += 1;
      caller.accounting.noteFreshness(ttlMs - this.ageMs(cached));
      this.events.cache?.('hit');
      return reply(cached, null);
    }

    let flight = this.inflight.get(key);
    if (flight) {
      caller.accounting.coalesced += 1;
      this.events.coalesced?.();
    } else {
      flight = this.load(caller, endpoint, path, key);
      this.inflight.set(key, flight);
      const started = flight;
      const forget = (): void => {
        if (this.inflight.get(key) === started) this.inflight.delete(key);
      };
      started.then(forget, forget);
    }

    let entry: CacheEntry;
    try {
      entry = await flight;
    } catch (error) {
      const reason = staleReason(error);
      const fallback = this.options.cacheEnabled ? (this.cache.get(key) ?? (reason ? await this.shared?.getEntry(key) : undefined)) : undefined;
      if (reason && fallback && this.ageMs(fallback) <= this.options.staleMaxAgeSeconds * 1000) {
        caller.accounting.stale += 1;
        caller.accounting.noteFreshness(0);
        this.events.cache?.('stale');
        return reply(fallback, { endpoint: endpoint.route, ageSeconds: Math.floor(this.ageMs(fallback) / 1000), reason });
      }
      throw error;
    }
    caller.accounting.noteFreshness(ttlMs - this.ageMs(entry));
    return reply(entry, null);
  }

  /**
   * How long an answer of this endpoint is fresh: its kind's TTL, for a body and for a
   * cached 4xx alike (an unset option slot's 404 is as stable as a set one; a key that
   * just gained a scope can send `Cache-Control: no-cache`).
   */
  private ttlMs(endpoint: Endpoint): number {
    return this.options.ttlSeconds[endpoint.cacheKind] * 1000;
  }

  /**
   * A number that changes whenever a write of this key may have changed what its
   * operations answer; whole-response caches put it in their keys.
   */
  generation(keyId: string): number {
    return this.generations.get(keyId) ?? 0;
  }

  /**
   * A write (POST). Obeys the cooldown and budget, is never retried, and on success
   * invalidates what it changed (for the option edit: that company's option reads).
   */
  async post(caller: EconomyCaller, endpoint: Endpoint, body: unknown): Promise<unknown> {
    const release = await this.acquire(caller, endpoint);
    try {
      caller.accounting.requests += 1;
      const response = await this.client.send({ endpoint, apiKey: caller.apiKey, body });
      if (endpoint === ENDPOINTS.factoryOptionUpdate) await this.invalidateOptions(caller.keyId, body);
      return response.body;
    } catch (error) {
      this.noteRateLimit(caller.keyId, error);
      throw error;
    } finally {
      release();
    }
  }

  /** After a successful option write: forget that company's option reads here, in Redis, and on every replica. */
  private async invalidateOptions(keyId: string, body: unknown): Promise<void> {
    const value = body && typeof body === 'object' ? (body as { factoryId?: unknown }).factoryId : undefined;
    const factoryId = typeof value === 'string' ? value : null;
    // Locally first: the same operation may read the slot back right away.
    this.invalidateLocally(keyId, factoryId);
    if (this.shared) {
      await this.shared.deleteEntries(factoryId ? optionKeys(keyId, factoryId) : []);
      await this.shared.publishInvalidation(keyId, factoryId);
    }
  }

  /**
   * Registers a callback told each time this process applies an invalidation (its own
   * write, or another replica's message): for tests and diagnostics.
   */
  onInvalidated(listener: (keyId: string, factoryId: string | null) => void): () => void {
    this.invalidationListeners.add(listener);
    return () => this.invalidationListeners.delete(listener);
  }

  private invalidateLocally(keyId: string, factoryId: string | null): void {
    for (const listener of this.invalidationListeners) listener(keyId, factoryId);
    this.generations.set(keyId, this.generation(keyId) + 1);
    if (!factoryId) return;
    for (const key of optionKeys(keyId, factoryId)) {
      this.cache.delete(key);
      this.inflight.delete(key);
    }
  }

  private ageMs(entry: CacheEntry): number {
    return Math.max(0, this.now() - entry.storedAt);
  }

  private async acquire(caller: EconomyCaller, endpoint: Endpoint): Promise<() => void> {
    try {
      return await this.limiter.acquire(caller.keyId);
    } catch (error) {
      if (error instanceof LimitExceeded) {
        this.events.rateLimited?.(error.reason);
        throw rateLimited(endpoint, error.retryAfterSeconds, error.reason);
      }
      throw error;
    }
  }

  private noteRateLimit(keyId: string, error: unknown): void {
    if (error instanceof UpstreamError && error.code === 'RATE_LIMITED' && error.upstream.status === 429) {
      const retryAfter = error.extensions.retryAfterSeconds;
      const seconds = typeof retryAfter === 'number' ? retryAfter : this.options.defaultBackoffSeconds;
      this.limiter.coolDown(keyId, seconds);
      this.events.rateLimited?.('upstream');
      if (typeof retryAfter !== 'number') error.extensions.retryAfterSeconds = seconds;
    }
  }

  /**
   * What a cache miss does: with shared state, first the shared cache, then the
   * cross-replica lock (one replica fetches, the others wait for its answer in the
   * shared cache), else straight to the upstream.
   */
  private async load(caller: EconomyCaller, endpoint: Endpoint, path: string, key: string): Promise<CacheEntry> {
    const shared = this.shared;
    if (!shared || !this.options.cacheEnabled) return this.fetch(caller, endpoint, path, key);
    const startedAt = this.now();
    const ttlMs = this.ttlMs(endpoint);
    const usable = (entry: CacheEntry | undefined): entry is CacheEntry =>
      entry !== undefined && this.ageMs(entry) < ttlMs && (!caller.noCache || entry.storedAt >= startedAt);

    const remote = await shared.getEntry(key);
    if (usable(remote)) return this.adopt(caller, endpoint, key, remote);

    const lockMs = this.options.sharedLockMs ?? 10_000;
    const deadline = startedAt + lockMs;
    while (!(await shared.tryLock(key, lockMs))) {
      // Another replica is fetching this request: wait for its answer in the shared cache.
      if (this.now() >= deadline) break;
      await new Promise<void>((resolve) => setTimeout(resolve, 25));
      const fetched = await shared.getEntry(key);
      if (usable(fetched)) {
        caller.accounting.coalesced += 1;
        this.events.coalesced?.();
        return this.adopt(caller, endpoint, key, fetched, false);
      }
    }
    try {
      // The replica that held the lock may have stored its answer just before we took it.
      const stored = await shared.getEntry(key);
      if (usable(stored)) {
        caller.accounting.coalesced += 1;
        this.events.coalesced?.();
        return this.adopt(caller, endpoint, key, stored, false);
      }
      return await this.fetch(caller, endpoint, path, key);
    } finally {
      await shared.unlock(key);
    }
  }

  /** Takes an answer from the shared cache into the process cache. */
  private adopt(caller: EconomyCaller, endpoint: Endpoint, key: string, entry: CacheEntry, countHit = true): CacheEntry {
    if (countHit) {
      caller.accounting.cacheHits += 1;
      this.events.cache?.('hit');
    }
    this.cache.set(key, entry, Math.max(this.ttlMs(endpoint), this.options.staleMaxAgeSeconds * 1000) - this.ageMs(entry));
    return entry;
  }

  /** Sends the GET (with at most one retry) and stores what is worth storing. */
  private async fetch(caller: EconomyCaller, endpoint: Endpoint, path: string, key: string): Promise<CacheEntry> {
    this.events.cache?.('miss');
    for (let attempt = 0; ; attempt += 1) {
      const release = await this.acquire(caller, endpoint);
      let entry: CacheEntry;
      try {
        caller.accounting.requests += 1;
        const response = await this.client.send({ endpoint, apiKey: caller.apiKey, path });
        entry = { kind: 'body', body: response.body, storedAt: this.now(), bytes: response.bytes + key.length };
      } catch (error) {
        this.noteRateLimit(caller.keyId, error);
        if (!(error instanceof UpstreamError)) throw error;
        const status = error.upstream.status;
        if (status !== null && DEFINITIVE_STATUSES.has(status)) {
          entry = { kind: 'failure', failure: failureOf(error), storedAt: this.now(), bytes: 256 + key.length };
        } else if (attempt === 0 && isRetryable(error)) {
          release();
          await new Promise<void>((resolve) => setTimeout(resolve, this.options.retryDelayMs * (0.5 + this.random())));
          continue;
        } else {
          throw error;
        }
      } finally {
        release();
      }
      if (this.options.cacheEnabled) {
        const lifetime = Math.max(this.ttlMs(endpoint), this.options.staleMaxAgeSeconds * 1000);
        this.cache.set(key, entry, lifetime);
        await this.shared?.setEntry(key, entry, lifetime);
      }
      return entry;
    }
  }
}

/** Cache keys of every option slot of one company for one key. */
function optionKeys(keyId: string, factoryId: string): string[] {
  return Array.from({ length: 10 }, (_, i) => `${keyId}|${buildPath(ENDPOINTS.factoryOption, { id: factoryId, slot: i + 1 })}`);
}

function reply(entry: CacheEntry, stale: StaleInfo | null): UpstreamReply {
  return entry.kind === 'failure' ? { failure: entry.failure, stale } : { body: entry.body, stale };
}

function isRetryable(error: UpstreamError): boolean {
  const status = error.upstream.status;
  return status === null ? error.code === 'UPSTREAM_ERROR' : RETRY_STATUSES.has(status);
}

function staleReason(error: unknown): StaleReason | null {
  if (!(error instanceof UpstreamError)) return null;
  if (error.code === 'UPSTREAM_ERROR' || error.code === 'UPSTREAM_TIMEOUT' || error.code === 'RATE_LIMITED') return error.code;
  return null;
}

/** `RATE_LIMITED` raised by the gateway itself (cooldown or budget), before any request. */
function rateLimited(endpoint: Endpoint, retryAfterSeconds: number, reason: 'cooldown' | 'budget'): UpstreamError {
  const message =
    reason === 'cooldown'
      ? 'the upstream rate-limited this key; the gateway sends nothing for it until Retry-After has passed'
      : 'the per-key upstream budget of the gateway is spent';
  return new UpstreamError('RATE_LIMITED', endpoint, { status: null, endpoint: endpoint.route, message }, { retryAfterSeconds });
}
