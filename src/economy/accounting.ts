/**
 * What one GraphQL operation cost upstream, reported in the response as
 * `extensions.upstream = {requests, cacheHits, coalesced, stale, maxAgeSeconds}` and, when any field
 * was answered from stale data, `extensions.stale = [{path, endpoint, ageSeconds, reason}]`.
 */

import { GatewayError } from '../errors/gateway-error';
import type { Endpoint } from '../upstream/endpoints';

/** Why a stale value was served instead of fresh data. */
export type StaleReason = 'UPSTREAM_ERROR' | 'UPSTREAM_TIMEOUT' | 'RATE_LIMITED' | 'INVALIDATION_PENDING';

/** How a stale value was served: which endpoint, how old, why. */
export interface StaleInfo {
  /** Route pattern, e.g. `GET /factory/counter/{id}`. */
  endpoint: string;
  /** Age of the served value, whole seconds. */
  ageSeconds: number;
  /** Why fresh data was not available. */
  reason: StaleReason;
}

/** One `extensions.stale` entry: a response path answered from stale data. */
export interface StaleField extends StaleInfo {
  /** The GraphQL response path, e.g. `["factories", 0, "counter"]`. */
  path: ReadonlyArray<string | number>;
}

/** The response-level `extensions.upstream`. */
export interface UpstreamAccounting {
  /** Upstream requests this operation sent (retries included). */
  requests: number;
  /** Upstream answers served from the cross-request cache. */
  cacheHits: number;
  /** Upstream answers shared with a concurrent operation's in-flight request. */
  coalesced: number;
  /** Upstream answers served stale because fresh data failed. */
  stale: number;
  /**
   * Age of the oldest upstream answer the operation used, whole seconds (0 when it used
   * none). On a whole-response cache hit: the age of the cached response (the data in it
   * was fetched at most the least TTL of its parts before that).
   */
  maxAgeSeconds: number;
}

/**
 * The counters of one operation. Mutable on purpose: the economy increments them as
 * requests happen; the result phase (src/pipeline/result-steps.ts) reads them once for each result it sends.
 */
export class OperationAccounting implements UpstreamAccounting {
  /** Upstream requests sent for this operation (retries included). */
  requests = 0;
  /** Answers served from a cache (this process or the replicas' shared one) at no cost. */
  cacheHits = 0;
  /** Answers taken from a request already in flight (here or on another replica) at no cost. */
  coalesced = 0;
  /** Stale cached answers served because fresh data failed or was not affordable. */
  stale = 0;
  /**
   * Most upstream fetches (retries included) this operation may start
   * (`MAX_UPSTREAM_REQUESTS`); the cost estimate runs before execution, this holds at run time.
   */
  requestCap = Number.POSITIVE_INFINITY;
  /** Upstream fetches started so far (counted when started, so concurrent fields cannot overshoot). */
  started = 0;
  /** Asked before each upstream fetch starts, after the cap, with the hashed key it is for (an access token's share of that key's budget): throws to refuse it. */
  admit: ((endpoint: Endpoint, keyId: string) => void) | null = null;
  /**
   * Asked and awaited before this operation starts a flight (not when it joins one) or a
   * write, with the hashed key it is for: an access token's share counted across replicas
   * (Redis). Rejects to refuse it; the refusal is this operation's alone.
   */
  admitShared: ((endpoint: Endpoint, keyId: string) => Promise<void>) | null = null;
  /** True when the whole response came from the per-key response cache (no resolver ran). */
  responseCacheHit = false;
  /** Paths answered from stale data (filled by the operation plugin as fields resolve). */
  readonly staleFields: StaleField[] = [];
  /**
   * How long every upstream answer this operation used stays fresh, ms (the least of
   * them); null when it used none. A whole-response cache must not keep the response longer.
   */
  freshForMs: number | null = null;
  /** Age of the oldest upstream answer used, ms. */
  maxAgeMs = 0;

  /** Age of the oldest upstream answer used, whole seconds. */
  get maxAgeSeconds(): number {
    return Math.floor(this.maxAgeMs / 1000);
  }

  /** Records the age of an answer the operation used. */
  noteAge(ms: number): void {
    if (ms > this.maxAgeMs) this.maxAgeMs = ms;
  }

  /** Records that an answer used by the operation stays fresh for `ms` more. */
  noteFreshness(ms: number): void {
    const value = Math.max(0, ms);
    this.freshForMs = this.freshForMs === null ? value : Math.min(this.freshForMs, value);
  }

  /**
   * Counts one more upstream fetch of this operation, before it starts.
   *
   * @throws GatewayError `QUERY_TOO_EXPENSIVE` (extensions `{maxCost}`) when the operation
   *   has started `requestCap` fetches already; fields answered before keep their data.
   */
  startRequest(endpoint: Endpoint, keyId: string): void {
    if (this.started >= this.requestCap) {
      throw new GatewayError(
        'QUERY_TOO_EXPENSIVE',
        `The operation reached its limit of ${this.requestCap} upstream requests before ${endpoint.route}; fields answered before keep their data. Ask for fewer fields or aliases.`,
        { maxCost: this.requestCap, endpoint: endpoint.route },
      );
    }
    this.admit?.(endpoint, keyId);
    this.started += 1;
  }

  /** The numbers for `extensions.upstream`. */
  toJSON(): UpstreamAccounting {
    return {
      requests: this.requests,
      cacheHits: this.cacheHits,
      coalesced: this.coalesced,
      stale: this.stale,
      maxAgeSeconds: this.maxAgeSeconds,
    };
  }
}
