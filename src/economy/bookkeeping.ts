import type { Endpoint } from '../upstream/endpoints';
import type { BackgroundWork } from './background-work';
import type { CacheEntry } from './cache/cache-entry';
import type { Freshness } from './cache/freshness';
import type { EconomyCaller, EconomyEvents, UpstreamRequestEvent } from './economy-types';
import type { FlightTrace } from './flight';

/**
 * What the economy notes about each answer it serves: the operation's counts and ages
 * (`extensions.upstream`), the metrics events, refresh-ahead's reads, and the
 * `upstreamRequest` event for tracing.
 *
 * When to use: the economy owns one and calls it once per outcome of a read.
 */
export class Bookkeeping {
  /**
   * @param freshness - the cache's ages and TTLs
   * @param events - the economy's hooks
   * @param background - told of every answer served (refresh-ahead)
   */
  constructor(
    private readonly freshness: Freshness,
    private readonly events: EconomyEvents,
    private readonly background: BackgroundWork,
  ) {}

  /**
   * A fresh cached answer served at no cost. The most frequent outcome: its age and TTL are
   * read once for every figure below, or given with the time they were read at (`at`,
   * epoch ms on the economy's clock) when the caller has read them already.
   */
  hit(
    caller: EconomyCaller,
    endpoint: Endpoint,
    key: string,
    entry: CacheEntry,
    ageMs = this.freshness.ageMs(entry),
    ttlMs = this.freshness.ttlMs(endpoint),
    at?: number,
  ): void {
    const accounting = caller.accounting;
    accounting.cacheHits += 1;
    accounting.noteFreshness(ttlMs - ageMs);
    this.events.cache?.('hit');
    this.servedAged(caller, endpoint, key, entry, ageMs, ttlMs, at);
    this.traced(caller, endpoint, 'hit', null, false);
  }

  /** A stale answer stands in (its age is noted by {@link served} when it is served). */
  stale(caller: EconomyCaller, endpoint: Endpoint, trace: FlightTrace | null): void {
    caller.accounting.stale += 1;
    caller.accounting.noteFreshness(0);
    this.events.cache?.('stale');
    this.traced(caller, endpoint, 'stale', trace, false);
  }

  /** How long the answer stays fresh, for the operation's `maxAgeSeconds` hints. */
  fresh(caller: EconomyCaller, endpoint: Endpoint, entry: CacheEntry): void {
    caller.accounting.noteFreshness(this.freshness.ttlMs(endpoint) - this.freshness.ageMs(entry));
  }

  /** Every answer served: its age (for `extensions.upstream` and the age histogram), and a read for refresh-ahead. */
  served(caller: EconomyCaller, endpoint: Endpoint, key: string, entry: CacheEntry): void {
    this.servedAged(caller, endpoint, key, entry, this.freshness.ageMs(entry), this.freshness.ttlMs(endpoint));
  }

  private servedAged(
    caller: EconomyCaller,
    endpoint: Endpoint,
    key: string,
    entry: CacheEntry,
    ageMs: number,
    ttlMs: number,
    at?: number,
  ): void {
    caller.accounting.noteAge(ageMs);
    this.events.served?.(endpoint.cacheKind, ageMs / 1000);
    this.background.noteServed(caller, endpoint, key, entry, ttlMs, at);
  }

  /** The caller joined a flight (here or on another replica) at no cost. */
  coalesced(caller: EconomyCaller): void {
    caller.accounting.coalesced += 1;
    this.events.coalesced?.();
  }

  /** Reports one finished read or write to `EconomyEvents.upstreamRequest`, if anyone listens. */
  traced(
    caller: EconomyCaller,
    endpoint: Endpoint,
    outcome: UpstreamRequestEvent['outcome'],
    trace: FlightTrace | null,
    failed: boolean,
  ): void {
    this.events.upstreamRequest?.({
      route: endpoint.route,
      outcome,
      priority: caller.priority ?? 'operation',
      budgetWaitMs: trace?.budgetWaitMs ?? 0,
      retries: trace?.retries ?? 0,
      failed,
    });
  }
}
