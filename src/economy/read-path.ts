import type { Endpoint, PathParams } from '../upstream/endpoints';
import type { BackgroundWork } from './background-work';
import type { Bookkeeping } from './bookkeeping';
import { rateLimited } from './limit-exceeded';
import { pathOfCacheKey } from './cache/cache-entry';
import { CacheKeys } from './cache/cache-keys';
import type { CacheEntry } from './cache/cache-entry';
import type { Freshness } from './cache/freshness';
import type { UpstreamCache } from './cache/upstream-cache';
import type { InFlight } from './coalescing/in-flight';
import { reply } from './economy-types';
import type { EconomyCaller, EconomyEvents, UpstreamReply } from './economy-types';
import { awaitFlight, flightOf } from './flight';
import type { Invalidation } from './invalidation/invalidation';
import { QueueTicket } from './queue/queue-ticket';
import type { RefreshTask } from './refresh-ahead/refresh-ahead';
import type { SharedState } from './shared-state/shared-state';
import { staleReason, staleStandIn } from './stale-fallback/stale-fallback';
import type { UpstreamFetch } from './upstream-fetch';

/** The economy's parts a read goes through. */
export interface ReadPathParts {
  /** The process cache. */
  cache: UpstreamCache;
  /** Freshness of cached answers. */
  freshness: Freshness;
  /** Flights in this process, by cache key, with their queue tickets. */
  inflight: InFlight<CacheEntry, QueueTicket>;
  /** Whether invalidations may have been missed (reads that writes change are then never fresh, see `EndpointRules`). */
  invalidation: Invalidation;
  /** The miss path. */
  upstream: UpstreamFetch;
  /** Background fill takes what operations missed. */
  background: BackgroundWork;
  /** Accounting, metrics and tracing of every outcome. */
  notes: Bookkeeping;
  /** The economy's hooks. */
  events: EconomyEvents;
  /** False only for the benchmark's naive baseline. */
  cacheEnabled: boolean;
  /** The default patience of an operation, ms. */
  patienceMs: number;
  /** State shared by replicas: its cache stands in for stale data too. */
  shared: SharedState | undefined;
  /** Clock, epoch ms. */
  now: () => number;
}

/**
 * The way of one GET: the process cache, then in-flight coalescing (a caller joining a
 * flight waits for it, an operation at most its patience while the flight is queued),
 * then the miss path (`UpstreamFetch`); on failure a stale cached answer stands in when
 * one may, and a `RATE_LIMITED` operation's request goes to background fill.
 *
 * When to use: the economy owns one; `get` is `UpstreamEconomy.get`.
 */
export class ReadPath {
  /** Each read's cache key, made once (see {@link CacheKeys}). */
  private readonly keys = new CacheKeys();

  /** @param parts - the economy's parts (see {@link ReadPathParts}) */
  constructor(private readonly parts: ReadPathParts) {}

  /**
   * One GET, as cheaply as the rules allow. Definitive 4xx answers come back as `failure`
   * records, not errors.
   *
   * @throws UpstreamError for a 5xx, timeout, connection error or 429, or
   *   `RATE_LIMITED` with `retryAfterSeconds` during a cooldown or when the budget is
   *   spent, whenever no stale value can stand in.
   */
  async get(caller: EconomyCaller, endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    const key = this.keys.key(caller.keyId, endpoint, params);
    if (!caller.reads) return this.read(caller, endpoint, params, key);
    // Recorded once answered: an answer this read stored itself is not new data to it.
    const reads = caller.reads;
    return this.read(caller, endpoint, params, key).finally(() => reads.set(key, { endpoint, params }));
  }

  /**
   * A fresh cached answer served at once, with {@link get}'s bookkeeping of a hit, or
   * `undefined` when the read needs more (not cached or not fresh, `no-cache`, an
   * invalidation in doubt, tracing on): then {@link get}. A cache-only read (a live
   * query's re-run) is served whatever the age of what is cached, as {@link get} serves
   * it. A hit spares its promises.
   */
  freshHit(caller: EconomyCaller, endpoint: Endpoint, params?: PathParams): UpstreamReply | undefined {
    if (!this.parts.cacheEnabled || caller.noCache || this.parts.events.traced) return undefined;
    const key = this.keys.key(caller.keyId, endpoint, params);
    const cached = this.parts.cache.get(key);
    if (!cached) return undefined;
    // The clock, its age and TTL, read once for the test of freshness and every figure of the hit.
    const at = this.parts.now();
    const ageMs = this.parts.freshness.ageMs(cached, at);
    const ttlMs = this.parts.freshness.ttlMs(endpoint);
    if (!caller.cacheOnly && (ageMs >= ttlMs || this.parts.invalidation.inDoubtFor(endpoint))) return undefined;
    this.parts.notes.hit(caller, endpoint, key, cached, ageMs, ttlMs, at);
    caller.reads?.set(key, { endpoint, params });
    return reply(cached, null);
  }

  private async read(
    caller: EconomyCaller,
    endpoint: Endpoint,
    params: PathParams | undefined,
    key: string,
  ): Promise<UpstreamReply> {
    // A no-cache read neither serves nor holds on to what is cached (a failure reads it again
    // for a stale stand-in): it is not decoded for nothing, which for a large answer is a whole parse.
    const cached =
      this.parts.cacheEnabled && (caller.cacheOnly || !caller.noCache) ? this.parts.cache.get(key) : undefined;
    if (caller.cacheOnly) return this.fromCacheOnly(caller, endpoint, params, key, cached);
    if (cached && !caller.noCache && this.parts.freshness.isFresh(cached, endpoint)) {
      if (this.parts.invalidation.inDoubtFor(endpoint)) {
        // Another replica may have written this resource while Redis was away: never fresh.
        this.parts.notes.stale(caller, endpoint, null);
        return reply(cached, {
          endpoint: endpoint.route,
          ageSeconds: Math.floor(this.parts.freshness.ageMs(cached) / 1000),
          reason: 'INVALIDATION_PENDING',
        });
      }
      this.parts.notes.hit(caller, endpoint, key, cached);
      return reply(cached, null);
    }

    // Joining a running flight costs nothing; starting one counts against the operation's cap.
    const priority = caller.priority ?? 'operation';
    // Data a view can serve stale is refreshed behind what views are missing, and the view does not wait for budget.
    const servable =
      priority === 'operation' &&
      !caller.noCache &&
      cached !== undefined &&
      this.parts.freshness.ageMs(cached) <= this.parts.freshness.staleMaxAgeMs;
    // An access token's share counted across replicas is asked before a flight starts, so that its refusal is never a joiner's.
    if (caller.accounting.admitShared && !this.parts.inflight.running(key))
      await caller.accounting.admitShared(endpoint, caller.keyId);
    const started = flightOf(
      caller,
      endpoint,
      pathOfCacheKey(caller.keyId, key),
      key,
      new QueueTicket(servable ? 'stale' : priority),
    );
    const {
      flight,
      joined,
      meta: ticket,
    } = this.parts.inflight.join(
      key,
      () => {
        caller.accounting.startRequest(endpoint, caller.keyId);
        return this.parts.upstream.load(started);
      },
      started.ticket,
    );
    if (joined) this.parts.notes.coalesced(caller);
    const trace = joined ? null : started.trace;

    let entry: CacheEntry;
    try {
      entry = await awaitFlight(
        this.parts,
        caller,
        endpoint,
        flight,
        ticket,
        servable ? 'stale' : priority,
        joined || servable,
      );
    } catch (error) {
      if (!servable) this.parts.background.noteMissed(caller, endpoint, params, key, error);
      const reason = staleReason(error);
      const fallback = this.parts.cacheEnabled
        ? (this.parts.cache.get(key) ?? (reason ? await this.parts.shared?.getEntry(key) : undefined))
        : undefined;
      const standIn = staleStandIn(reason, fallback, endpoint.route, this.parts.freshness);
      if (!standIn) {
        this.parts.notes.traced(caller, endpoint, joined ? 'coalesced' : 'miss', trace, true);
        throw error;
      }
      this.parts.notes.stale(caller, endpoint, trace);
      this.parts.notes.served(caller, endpoint, key, standIn.entry);
      return reply(standIn.entry, standIn.info);
    }
    this.parts.notes.fresh(caller, endpoint, entry);
    this.parts.notes.served(caller, endpoint, key, entry);
    this.parts.notes.traced(
      caller,
      endpoint,
      joined || trace?.source === 'replica' ? 'coalesced' : trace?.source === 'shared' ? 'hit' : 'miss',
      trace,
      false,
    );
    return reply(entry, null);
  }

  /**
   * A cache-only read (see `EconomyCaller.cacheOnly`): the cached entry whatever its age,
   * or `RATE_LIMITED` (nothing sent) with the time background fill expects to fetch it.
   */
  private fromCacheOnly(
    caller: EconomyCaller,
    endpoint: Endpoint,
    params: PathParams | undefined,
    key: string,
    cached: CacheEntry | undefined,
  ): UpstreamReply {
    if (cached) {
      this.parts.notes.hit(caller, endpoint, key, cached);
      return reply(cached, null);
    }
    const error = rateLimited(endpoint, 1, 'budget');
    this.parts.background.noteMissed(caller, endpoint, params, key, error);
    throw error;
  }

  /**
   * A refresh-ahead task: a `no-cache` read of `caller` at priority `background`, through
   * in-flight sharing (a running flight is joined) and the miss path.
   *
   * @returns the stored entry
   * @throws UpstreamError as {@link get} does
   */
  refresh(caller: EconomyCaller, task: RefreshTask): Promise<CacheEntry> {
    const ticket = new QueueTicket('background');
    return this.parts.inflight.join(
      task.key,
      () => this.parts.upstream.load(flightOf(caller, task.endpoint, task.path, task.key, ticket)),
      ticket,
    ).flight;
  }
}
