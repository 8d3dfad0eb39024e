import type { CacheKind, Endpoint, PathParams } from '../upstream/endpoints';
import type { OperationAccounting, StaleInfo } from './accounting';
import type { BudgetStats, Unexplained429 } from './budget/budget-types';
import type { RateLimitSource } from './limit-exceeded';
import type { AnswerMemo, CacheEntry, UpstreamFailure } from './cache/cache-entry';
import type { EndpointRules } from './endpoint-rules';
import type { UpstreamPriority } from './queue/priority';
import type { SharedState } from './shared-state/shared-state';

/*
 * The economy's vocabulary: its settings, the events it reports, its statistics, who
 * calls it and what a GET answers.
 */

/** The per-key budget as configured (`UPSTREAM_RATE_LIMIT`). */
export interface RateLimitSetting {
  /** Requests per window. */
  requests: number;
  /** Window length, seconds. */
  windowSeconds: number;
}

/** Refresh-ahead's settings (see `refresh-ahead/`). */
export interface RefreshAheadSetting {
  /** Most of each key's budget it may use, 0–1 (`REFRESH_AHEAD_SHARE`; 0 = off). */
  share: number;
  /** A key unread this long gets no refreshes, seconds (`REFRESH_AHEAD_IDLE_SECONDS`). */
  idleSeconds: number;
  /** How often it looks for refreshes, ms (default 1000; tests set it far away and call `runRefreshes`). */
  tickMs?: number;
}

/** Background fill's bounds (see `background-fill/`). */
export interface BackgroundFillSetting {
  /** Most missed requests kept per key (default 100). */
  maxPerKey: number;
  /** Most missed requests kept over all keys (default 10000). */
  maxTotal: number;
}

/** Settings of `UpstreamEconomy`. */
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
  rateLimit: RateLimitSetting | null;
  /** Most upstream requests in flight per key. */
  concurrencyPerKey: number;
  /** The default patience: the longest an operation's request waits for budget or a slot, ms. */
  patienceMs: number;
  /** Clock, epoch ms (default `Date.now`; tests use fake timers). */
  now?: () => number;
  /** Randomness in [0, 1) for the retry's jitter (default `Math.random`). */
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
  refreshAhead?: RefreshAheadSetting;
  /**
   * Background fill (see `background-fill/`): most missed requests kept per key and over
   * all keys (defaults 100 and 10000); `false` turns it off.
   */
  backgroundFill?: BackgroundFillSetting | false;
  /** What the domains tell the economy about their endpoints (see `EndpointRules`); none when absent. */
  endpointRules?: readonly EndpointRules[];
}

/**
 * One read or write of an operation or of background work, as the economy served it:
 * for tracing (one span per event). Names no key.
 */
export interface UpstreamRequestEvent {
  /** The endpoint's route: its method and path template, e.g. `GET /factory/counter/{id}` (no ids). */
  route: string;
  /**
   * `hit`: a fresh cached answer (this process or the replicas' shared cache); `miss`:
   * this call's own request went upstream; `stale`: a stale cached answer stood in for a
   * failure; `coalesced`: it joined a request already in flight (here or on another
   * replica); `write`: a POST.
   */
  outcome: 'hit' | 'miss' | 'stale' | 'coalesced' | 'write';
  /** Who waited for it (see `UpstreamPriority`). */
  priority: UpstreamPriority;
  /** Time this call's requests waited for the key's budget and a slot, ms (all attempts; 0 without a request of its own). */
  budgetWaitMs: number;
  /** Retries sent after the first attempt (0 or 1). */
  retries: number;
  /** True when the caller got an error (no stale value could stand in). */
  failed: boolean;
}

/**
 * Things the economy tells metrics and tracing about; every member is optional and
 * called synchronously, so it must be cheap and must not throw.
 */
export interface EconomyEvents {
  /** A GET was answered from the cache (`hit`), went upstream (`miss`), or got a stale stand-in (`stale`). */
  cache?(outcome: 'hit' | 'miss' | 'stale'): void;
  /** A GET joined a request already in flight (this process or another replica) at no cost. */
  coalesced?(): void;
  /** A `RATE_LIMITED` happened: the upstream's 429, its cooldown, or the gateway's own budget. */
  rateLimited?(source: RateLimitSource): void;
  /** An upstream 429 the key's own requests do not explain: something else spends the key (see `Unexplained429`). */
  unexplained429?(report: Unexplained429): void;
  /** An upstream answer was served to an operation: its cache kind, how old it was, and whether it was stale. */
  served?(kind: CacheKind, ageSeconds: number): void;
  /** A refresh-ahead request finished: `stored` or `failed`. */
  refreshed?(outcome: 'stored' | 'failed'): void;
  /** A request was refused because its key's queue for budget was full. */
  queueDropped?(priority: UpstreamPriority): void;
  /** Each `get`, `fetchInBackground` and `post` when it has finished (see {@link UpstreamRequestEvent}). */
  upstreamRequest?(event: UpstreamRequestEvent): void;
  /**
   * Runs one upstream request (a `get`, a refresh-ahead refresh or a `post`) as `work`:
   * tracing wraps it in a span, and the events above fired meanwhile belong to it.
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
export interface EconomyStats extends BudgetStats {
  /** Entries in the process cache. */
  cacheEntries: number;
  /** Bytes the process cache holds (of the answers' JSON text). */
  cacheBytes: number;
  /** Upstream requests in flight that later callers may join. */
  inFlight: number;
}

/**
 * A GET answer as the economy hands it to a mapper: a body, or a definitive 4xx as a
 * failure record (the mapper may turn it into a result, e.g. "Counter is empty" into
 * an empty counter, or into an error for its field).
 */
export type UpstreamReply = (
  { body: unknown; failure?: undefined } | { body?: undefined; failure: UpstreamFailure }
) & {
  /** Set when the answer is a stale cached value served because fresh data failed. */
  stale: StaleInfo | null;
  /** The cached answer's memo, shared by every read of it while the cache keeps it decoded (see {@link AnswerMemo}); absent for an answer not read from the process cache. */
  memo?: AnswerMemo;
};

/** Who is asking: the hashed key for state, the key itself only for the header. */
export interface EconomyCaller {
  /** The hashed API key (see `keyId`): every state is keyed by it. */
  keyId: string;
  /** The API key itself, only for the upstream's header. */
  apiKey: string;
  /** `Cache-Control: no-cache`: skip fresh cache hits, refresh the cache. */
  noCache: boolean;
  /** Who waits for the requests (default `operation`; see `UpstreamPriority`). */
  priority?: UpstreamPriority;
  /** How long this operation waits for budget, ms (`Prefer: wait`); default the economy's `patienceMs`. */
  patienceMs?: number;
  /** The operation's counts (requests, hits, ages) for `extensions.upstream`. */
  accounting: OperationAccounting;
  /**
   * Answer from the process cache only (a live query's re-run): a cached entry is served
   * whatever its age; a miss sends nothing now, fails with `RATE_LIMITED` and goes to
   * background fill, as an operation's miss does (its stored answer re-runs the query).
   */
  cacheOnly?: boolean;
  /** When set, told the cache key and request of every GET of the caller (a live query's resources). */
  reads?: Map<string, ReadResource>;
}

/** An upstream resource a caller read: its endpoint and path parameters. */
export interface ReadResource {
  /** The endpoint. */
  readonly endpoint: Endpoint;
  /** Its path parameters, if any. */
  readonly params: PathParams | undefined;
}

/**
 * Told each time this process's cache of `keyId` gets new data for a resource: an upstream
 * answer stored (an operation's fetch, background fill, refresh-ahead, a subscription poll,
 * a `no-cache` read, a write's new value) or taken from the replicas' shared cache. `key`
 * is the cache key (`<keyId>|<path>`: the hashed key and the request path, never the key).
 */
export type EntryStoredListener = (keyId: string, key: string) => void;

/** The reply of an entry: its body, or its failure record, and the stale flag. */
export function reply(entry: CacheEntry, stale: StaleInfo | null): UpstreamReply {
  if (entry.kind === 'failure') return { failure: entry.failure, stale };
  return entry.memo ? { body: entry.body, stale, memo: entry.memo } : { body: entry.body, stale };
}
