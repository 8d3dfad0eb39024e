import { UpstreamError } from '../errors/gateway-error';
import type { UpstreamClient } from '../upstream/client';
import { buildPath } from '../upstream/endpoints';
import { turnAfterLargeBody } from '../upstream/response-body';
import type { Endpoint } from '../upstream/endpoints';
import type { KeyBudget } from './budget/key-budget';
import { LimitExceeded, rateLimited } from './limit-exceeded';
import { cacheKey, failureOf } from './cache/cache-entry';
import type { CacheEntry } from './cache/cache-entry';
import type { Freshness } from './cache/freshness';
import type { UpstreamCache } from './cache/upstream-cache';
import { loadAcrossReplicas } from './coalescing/replica-coalescing';
import type { EconomyCaller, EconomyEvents, EntryStoredListener } from './economy-types';
import type { Flight, FlightTrace, WrittenResource } from './flight';
import type { UpstreamPriority } from './queue/priority';
import type { QueueTicket } from './queue/queue-ticket';
import { withOneRetry } from './retry/retry';
import type { SharedState } from './shared-state/shared-state';

/** 4xx answers that are the upstream's final word on a request: cached like a body. */
const DEFINITIVE_STATUSES = new Set([400, 401, 403, 404]);

/** The parts {@link UpstreamFetch} works with (the economy's). */
export interface UpstreamFetchParts {
  /** The upstream client (the only sender). */
  client: UpstreamClient;
  /** The per-key budget. */
  budget: KeyBudget;
  /** The process cache. */
  cache: UpstreamCache;
  /** Freshness and lifetimes of cached answers. */
  freshness: Freshness;
  /** False only for the benchmark's naive baseline: nothing is stored. */
  cacheEnabled: boolean;
  /** State shared by replicas (cache, locks), if any. */
  shared: SharedState | undefined;
  /** How long one replica may hold the cross-replica fetch lock, ms. */
  sharedLockMs: number;
  /** Base delay of the one retry, ms. */
  retryDelayMs: number;
  /** Randomness in [0, 1) for the retry's jitter. */
  random: () => number;
  /** Clock, epoch ms. */
  now: () => number;
  /** The economy's hooks. */
  events: EconomyEvents;
  /** Counts a joined flight for the caller (accounting and metrics). */
  onCoalesced: (caller: EconomyCaller) => void;
  /** Told each time the process cache of a key gets new data (see `EntryStoredListener`). */
  onStored: EntryStoredListener;
}

/**
 * What a cache miss does: the replicas' shared cache and cross-replica lock first (when
 * there are replicas), then the upstream under the key's budget, with at most one retry,
 * storing what is worth storing in every cache level. Writes go through the same budget.
 *
 * When to use: the economy owns one; in-flight coalescing in this process happens before
 * (a flight is started only by the first caller of a request).
 */
export class UpstreamFetch {
  /** @param parts - the economy's cache, budget, client and settings */
  constructor(private readonly parts: UpstreamFetchParts) {}

  /**
   * The answer of a flight: with shared state, the shared cache and the cross-replica lock
   * first (see `loadAcrossReplicas`), else straight to the upstream.
   *
   * @throws UpstreamError as `UpstreamEconomy.get` does
   */
  async load(flight: Flight): Promise<CacheEntry> {
    const { shared, freshness } = this.parts;
    const { caller, endpoint, key } = flight;
    if (!shared || !this.parts.cacheEnabled) return this.fetch(flight);
    const startedAt = this.parts.now();
    const { entry, source } = await loadAcrossReplicas(shared, {
      key,
      usable: (candidate): candidate is CacheEntry =>
        candidate !== undefined &&
        freshness.isFresh(candidate, endpoint) &&
        (!caller.noCache || candidate.storedAt >= startedAt),
      fetch: () => this.fetch(flight),
      lockMs: this.parts.sharedLockMs,
      now: this.parts.now,
    });
    flight.trace.source = source;
    if (source === 'upstream') return entry;
    if (source === 'shared') {
      caller.accounting.cacheHits += 1;
      this.parts.events.cache?.('hit');
    } else {
      this.parts.onCoalesced(caller);
    }
    // Take the shared answer into the process cache for the rest of its lifetime.
    this.parts.cache.set(key, entry, freshness.lifetimeMs(endpoint) - freshness.ageMs(entry));
    this.parts.onStored(caller.keyId, key);
    return entry;
  }

  /**
   * A write (POST) under the key's budget at priority `write`: ahead of everything queued
   * for the key, and as patient as the budget needs (the caller races its own patience).
   * Never retried.
   *
   * @returns the upstream's answer body
   * @throws UpstreamError for any failure, `RATE_LIMITED` when the budget refuses it
   */
  async write(caller: EconomyCaller, endpoint: Endpoint, body: unknown, trace: FlightTrace): Promise<unknown> {
    caller.accounting.startRequest(endpoint, caller.keyId);
    // An access token's share counted across replicas; no extra turn of the event loop without one.
    if (caller.accounting.admitShared) await caller.accounting.admitShared(endpoint, caller.keyId);
    const release = await this.admit(caller, endpoint, 'write', undefined, trace);
    try {
      caller.accounting.requests += 1;
      const response = await this.parts.client.send({ endpoint, apiKey: caller.apiKey, keyId: caller.keyId, body });
      return response.body;
    } catch (error) {
      this.parts.budget.observe(caller.keyId, error);
      throw error;
    } finally {
      release();
    }
  }

  /** The entries of `keys` (a write's scope) this process holds now, taken before a write invalidates them (see {@link storeWritten}). */
  cachedEntries(keys: readonly string[]): ReadonlyArray<readonly [string, CacheEntry | undefined]> {
    if (!this.parts.cacheEnabled) return [];
    return keys.map((key) => [key, this.parts.cache.get(key)] as const);
  }

  /** Puts a written resource's new answer in the caches (here and shared), and the kept entries of the rest of its scope back in this process's. */
  async storeWritten(
    keyId: string,
    written: WrittenResource,
    kept: ReadonlyArray<readonly [string, CacheEntry | undefined]>,
  ): Promise<void> {
    if (!this.parts.cacheEnabled) return;
    const { cache, freshness } = this.parts;
    const endpoint = written.endpoint;
    const key = cacheKey(keyId, buildPath(endpoint, written.params));
    const lifetime = freshness.lifetimeMs(endpoint);
    for (const [other, entry] of kept) {
      if (other !== key && entry && !cache.get(other)) cache.set(other, entry, lifetime - freshness.ageMs(entry));
    }
    const entry: CacheEntry = {
      kind: 'body',
      body: written.body,
      storedAt: this.parts.now(),
      bytes: JSON.stringify(written.body).length + key.length,
    };
    cache.set(key, entry, lifetime);
    this.parts.onStored(keyId, key);
    await this.parts.shared?.setEntry(key, entry, lifetime);
  }

  /** Sends the GET (with at most one retry) and stores what is worth storing in every cache level. */
  private async fetch(flight: Flight): Promise<CacheEntry> {
    const { caller, endpoint, key } = flight;
    this.parts.events.cache?.('miss');
    let attempts = 0;
    const entry = await withOneRetry(
      () => {
        // The retry is one more upstream request of the operation (the first was counted when the flight started).
        if (attempts++ > 0) {
          caller.accounting.startRequest(endpoint, caller.keyId);
          flight.trace.retries += 1;
        }
        return this.attempt(flight);
      },
      { delayMs: this.parts.retryDelayMs, random: this.parts.random },
    );
    if (this.parts.cacheEnabled) {
      const lifetime = this.parts.freshness.lifetimeMs(endpoint);
      this.parts.cache.set(key, entry, lifetime);
      this.parts.onStored(caller.keyId, key);
      await this.parts.shared?.setEntry(key, entry, lifetime);
      // Storing a large answer encoded it: mapping it starts a turn of its own.
      const turn = entry.kind === 'body' ? turnAfterLargeBody(entry.bytes) : null;
      if (turn) await turn;
    }
    return entry;
  }

  /**
   * One upstream GET under the budget: takes the key's budget and slot, sends, gives the
   * slot back (exactly once, whatever happens), and classifies the answer: a body or a
   * definitive 4xx becomes an entry, anything else is thrown.
   */
  private async attempt(flight: Flight): Promise<CacheEntry> {
    const { caller, endpoint, path, key } = flight;
    const release = await this.admit(caller, endpoint, caller.priority, flight.ticket, flight.trace);
    try {
      caller.accounting.requests += 1;
      const response = await this.parts.client.send({ endpoint, apiKey: caller.apiKey, keyId: caller.keyId, path });
      return { kind: 'body', body: response.body, storedAt: this.parts.now(), bytes: response.bytes + key.length };
    } catch (error) {
      this.parts.budget.observe(caller.keyId, error);
      const status = error instanceof UpstreamError ? error.upstream.status : null;
      if (error instanceof UpstreamError && status !== null && DEFINITIVE_STATUSES.has(status)) {
        return { kind: 'failure', failure: failureOf(error), storedAt: this.parts.now(), bytes: 256 + key.length };
      }
      throw error;
    } finally {
      release();
    }
  }

  /**
   * The key's budget as an operation sees it: `KeyBudget.acquire`, with its refusal as
   * `RATE_LIMITED` (and the wait added to the trace).
   *
   * @throws UpstreamError `RATE_LIMITED` with `retryAfterSeconds` during a cooldown or when the budget is spent
   */
  private async admit(
    caller: EconomyCaller,
    endpoint: Endpoint,
    priority: UpstreamPriority = 'operation',
    ticket: QueueTicket | undefined,
    trace: FlightTrace,
  ): Promise<() => void> {
    const startedAt = this.parts.now();
    try {
      return await this.parts.budget.acquire(caller.keyId, { priority, patienceMs: caller.patienceMs, ticket });
    } catch (error) {
      if (error instanceof LimitExceeded) {
        this.parts.events.rateLimited?.(error.reason);
        throw rateLimited(endpoint, error.retryAfterSeconds, error.reason);
      }
      throw error;
    } finally {
      trace.budgetWaitMs += this.parts.now() - startedAt;
    }
  }
}
