import type { UpstreamClient } from '../upstream/client';
import type { Endpoint } from '../upstream/endpoints';
import { BackgroundWork } from './background-work';
import type { BackgroundFetchOptions, BackgroundRequest } from './background-work';
import { Bookkeeping } from './bookkeeping';
import { KeyBudget } from './budget/key-budget';
import type { CacheEntry } from './cache/cache-entry';
import { Freshness } from './cache/freshness';
import { UpstreamCache } from './cache/upstream-cache';
import { InFlight } from './coalescing/in-flight';
import type { EconomyCaller, EconomyEvents, EconomyOptions, UpstreamReply } from './economy-types';
import { Invalidation } from './invalidation/invalidation';
import type { QueueTicket } from './queue/queue-ticket';
import { ReadPath } from './read-path';
import { UpstreamFetch } from './upstream-fetch';
import { ReplicaWriteLocks } from './write-lock';

/** The parts of an `UpstreamEconomy`, each with one job (see its class comment). */
export type EconomyParts = ReturnType<typeof economyParts>;

/** What the parts call back into the economy for (late-bound: the economy exists once the parts do). */
export interface EconomySelf {
  /** Reads of the key missed elsewhere, waiting for background fill (see `BackgroundWork.missedFor`). */
  missedFor(keyId: string): number;
  /** `UpstreamEconomy.fetchInBackground`. */
  fetchInBackground(request: BackgroundRequest, options?: BackgroundFetchOptions): Promise<UpstreamReply>;
  /** Runs `work` in the economy's trace of one request. */
  traced<T>(caller: EconomyCaller, endpoint: Endpoint, work: () => Promise<T>): Promise<T>;
  /** Notes a read that joined a flight. */
  coalesced(caller: EconomyCaller): void;
  /** Tells the economy's `entryStored` listeners. */
  stored(keyId: string, key: string): void;
}

/**
 * Builds the parts of the upstream economy from its settings and wires them to one
 * another: the cache and its freshness, the budget, the miss path, background work,
 * bookkeeping, coalescing, invalidation and the read path. `UpstreamEconomy` composes
 * what this returns; nothing else should call it.
 */
export function economyParts(
  client: UpstreamClient,
  options: EconomyOptions,
  events: EconomyEvents,
  self: EconomySelf,
) {
  const now = options.now ?? Date.now;
  const shared = options.shared;
  const writeLocks = new ReplicaWriteLocks(shared, now);
  const cache = new UpstreamCache({ maxBytes: options.cacheMaxBytes, now });
  const freshness = new Freshness({
    ttlSeconds: options.ttlSeconds,
    staleMaxAgeSeconds: options.staleMaxAgeSeconds,
    now,
  });
  const limit = options.rateLimit
    ? { requests: options.rateLimit.requests, windowMs: options.rateLimit.windowSeconds * 1000 }
    : null;
  const budget = new KeyBudget({
    limit,
    concurrency: options.concurrencyPerKey,
    patienceMs: options.patienceMs,
    defaultBackoffSeconds: options.defaultBackoffSeconds,
    maxBackoffSeconds: options.maxBackoffSeconds,
    onDropped: (priority) => events.queueDropped?.(priority),
    onRateLimited: (source) => events.rateLimited?.(source),
    onUnexplained429: (report) => events.unexplained429?.(report),
    missedElsewhere: (id) => self.missedFor(id),
    now,
    shared,
  });
  const upstream = new UpstreamFetch({
    client,
    budget,
    cache,
    freshness,
    shared,
    now,
    events,
    cacheEnabled: options.cacheEnabled,
    sharedLockMs: options.sharedLockMs ?? 10_000,
    retryDelayMs: options.retryDelayMs,
    random: options.random ?? Math.random,
    onCoalesced: (caller) => self.coalesced(caller),
    onStored: (keyId, key) => self.stored(keyId, key),
  });
  const background = new BackgroundWork(
    {
      budget,
      cache,
      freshness,
      events,
      now,
      fetch: (request, fetchOptions) => self.fetchInBackground(request, fetchOptions),
      refresh: (caller, task) => self.traced(caller, task.endpoint, () => reads.refresh(caller, task)),
    },
    options,
  );
  const notes = new Bookkeeping(freshness, events, background);
  const inflight = new InFlight<CacheEntry, QueueTicket>();
  const invalidation = new Invalidation(
    (key) => {
      cache.delete(key);
      inflight.forget(key);
    },
    shared,
    options.endpointRules,
  );
  const { cacheEnabled, patienceMs } = options;
  const reads: ReadPath = new ReadPath({
    cache,
    freshness,
    inflight,
    upstream,
    background,
    notes,
    invalidation,
    events,
    cacheEnabled,
    patienceMs,
    shared,
    now,
  });
  return { cache, inflight, budget, upstream, background, invalidation, notes, reads, writeLocks };
}
