import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TalliedHistogram } from './tallied-histogram';
import type { TallySeries } from './tallied-histogram';
import type { EconomyEvents } from '../economy';
import type { UpstreamObservation } from '../upstream/client';

/**
 * The gateway's Prometheus metrics (`GET /metrics`), on a registry of its own so
 * several gateways in one process (tests) do not collide. Labels are route patterns,
 * statuses, outcomes and error codes: never a key, a secret or a concrete path.
 */
export class GatewayMetrics {
  /**
   * Every metric of the gateway (and the subscription metrics) registers here, never on
   * prom-client's global one; all but the served-data age and the operation latency, which
   * {@link text} adds.
   */
  readonly registry = new Registry();
  private readonly upstreamRequests: Counter<'endpoint' | 'status'>;
  private readonly upstreamLatency: Histogram<'endpoint'>;
  private readonly cacheEvents: Counter<'outcome'>;
  /** Cache lookups not yet added to {@link cacheEvents}, by outcome (fixed fields: one increment per lookup). */
  private readonly cacheCounts = { hit: 0, miss: 0, stale: 0 };
  /** Cache lookups since the start, by outcome (never cleared; read by the console's overview). */
  private readonly cacheTotals = { hit: 0, miss: 0, stale: 0 };
  /** `statev_served_data_age_seconds`, observed once per answer served: counted in plain numbers, written by {@link text}. */
  private readonly servedAge = new TalliedHistogram(
    'statev_served_data_age_seconds',
    'Age of the upstream data served to operations, seconds, by cache kind (lists, details, options, bankAccounts, stock, activity; response = a whole-response cache hit, by the age of the cached response).',
    'kind',
    [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
  );
  private readonly refreshAheadTotal: Counter<'outcome'>;
  private readonly coalescedTotal: Counter;
  private readonly rateLimitedTotal: Counter<'source'>;
  private readonly unexplained429Total: Counter;
  private readonly operations: Counter<'outcome'>;
  /** Operations not yet added to {@link operations}, by outcome (added whenever it is read). */
  private readonly operationCounts = new Map<string, number>();
  /** Operations per access token id and each one's last use (Unix seconds) since the last scrape, added to the metrics when read. */
  private readonly tokenCounts = new Map<string, { count: number; lastUseSeconds: number }>();
  /** `statev_graphql_operation_duration_seconds`, observed once per operation: counted as {@link servedAge}. */
  private readonly operationLatency = new TalliedHistogram(
    'statev_graphql_operation_duration_seconds',
    'GraphQL operation latency by outcome, seconds.',
    'outcome',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  /** {@link servedAge}'s series of whole responses from the response cache, made once. */
  private readonly responseAge: TallySeries;
  /** Failed Redis operations and connection errors. */
  readonly redisErrors: Counter;
  /** 1 while Redis answers, 0 while the gateway runs without it. */
  readonly redisUp: Gauge;
  /** Upstream responses whose shape differed from the reference, by endpoint pattern and field path. */
  readonly shapeDrift: Counter<'endpoint' | 'field'>;
  /** Entries and bytes of the upstream-answer cache (not the whole-response cache), read at scrape time. */
  readonly cacheEntries: Gauge;
  /** `statev_cache_bytes`: the bytes the upstream-answer cache holds, read at scrape time. */
  readonly cacheBytes: Gauge;
  /** The per-key budget without naming keys: requests in the current windows, keys with a lowered allowance, queued requests. */
  readonly budgetWindowRequests: Gauge;
  /** Keys whose learned allowance is below `UPSTREAM_RATE_LIMIT` (after an upstream 429), read at scrape time. */
  readonly budgetReducedKeys: Gauge;
  /** Upstream requests waiting for budget, by priority (operation, missed, background), read at scrape time. */
  readonly budgetQueued: Gauge<'priority'>;
  private readonly budgetDropped: Counter<'priority'>;
  private readonly tokenOperations: Counter<'token_id'>;
  private readonly tokenLastUse: Gauge<'token_id'>;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.upstreamRequests = new Counter({
      name: 'statev_upstream_requests_total',
      help: 'Upstream requests by endpoint pattern and HTTP status ("none" when no response arrived).',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    this.upstreamLatency = new Histogram({
      name: 'statev_upstream_request_duration_seconds',
      help: 'Upstream request latency by endpoint pattern, seconds.',
      labelNames: ['endpoint'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    // Counted per lookup in a plain map (one per cached answer an operation reads) and
    // added to the counter whenever it is read (a scrape): the same totals.
    const cacheCounts = this.cacheCounts;
    this.cacheEvents = new Counter({
      name: 'statev_cache_events_total',
      help: 'Upstream-answer cache lookups: hit, miss, or stale (a stale value served because fresh data failed).',
      labelNames: ['outcome'],
      registers,
      collect() {
        for (const outcome of ['hit', 'miss', 'stale'] as const) {
          const count = cacheCounts[outcome];
          if (count === 0) continue;
          this.inc({ outcome }, count);
          cacheCounts[outcome] = 0;
        }
      },
    });
    this.responseAge = this.servedAge.series('response');
    this.refreshAheadTotal = new Counter({
      name: 'statev_refresh_ahead_total',
      help: 'Refresh-ahead requests: stored (the answer is fresh again) or failed.',
      labelNames: ['outcome'],
      registers,
    });
    this.coalescedTotal = new Counter({
      name: 'statev_upstream_coalesced_total',
      help: 'Upstream answers shared with an in-flight request of the same key instead of sending another.',
      registers,
    });
    this.rateLimitedTotal = new Counter({
      name: 'statev_rate_limited_total',
      help: 'Rate limiting: upstream 429s, and requests refused by the gateway during a cooldown or over the per-key budget.',
      labelNames: ['source'],
      registers,
    });
    this.unexplained429Total = new Counter({
      name: 'statev_upstream_unexplained_429_total',
      help: "Upstream 429s the key's own requests in the window do not explain (fewer than UPSTREAM_RATE_LIMIT sent): another client, or a gateway sharing no Redis, spends the same key.",
      registers,
    });
    // Counted per operation in a plain map and added to the counter whenever it is read (a scrape), as cacheEvents.
    const operationCounts = this.operationCounts;
    this.operations = new Counter({
      name: 'statev_graphql_operations_total',
      help: 'GraphQL operations by outcome: success, partial (data and errors), error, rejected (before execution).',
      labelNames: ['outcome'],
      registers,
      collect() {
        for (const [outcome, count] of operationCounts) this.inc({ outcome }, count);
        operationCounts.clear();
      },
    });
    // Counted per token in a plain map and added when read (a scrape), as operations: no label hashing per request.
    const tokenCounts = this.tokenCounts;
    const flushTokens = (): void => {
      for (const [token_id, { count, lastUseSeconds }] of tokenCounts) {
        this.tokenOperations.inc({ token_id }, count);
        this.tokenLastUse.set({ token_id }, lastUseSeconds);
      }
      tokenCounts.clear();
    };
    this.tokenOperations = new Counter({
      name: 'statev_token_operations_total',
      help: 'GraphQL operations sent with an access token, by token id (tok_..., never the token).',
      labelNames: ['token_id'],
      registers,
      collect: flushTokens,
    });
    this.tokenLastUse = new Gauge({
      name: 'statev_token_last_use_seconds',
      help: 'When each access token was last used on this replica, Unix time in seconds, by token id.',
      labelNames: ['token_id'],
      registers,
      collect: flushTokens,
    });
    this.redisErrors = new Counter({
      name: 'statev_redis_errors_total',
      help: 'Redis failures (connection errors, timed-out commands); the gateway goes on from process memory.',
      registers,
    });
    this.shapeDrift = new Counter({
      name: 'statev_upstream_shape_drift_total',
      help: 'Upstream responses that differed from the reference (a field renamed, missing or mistyped; read tolerantly), by endpoint pattern and field path.',
      labelNames: ['endpoint', 'field'],
      registers,
    });
    this.redisUp = new Gauge({
      name: 'statev_redis_up',
      help: '1 while the shared Redis answers, 0 while it does not (only with REDIS_URL).',
      registers,
    });
    this.cacheEntries = new Gauge({
      name: 'statev_cache_entries',
      help: 'Entries in the upstream-answer cache.',
      registers,
    });
    this.cacheBytes = new Gauge({
      name: 'statev_cache_bytes',
      help: 'Bytes held by the upstream-answer cache.',
      registers,
    });
    this.budgetWindowRequests = new Gauge({
      name: 'statev_upstream_budget_window_requests',
      help: "Upstream requests in the current budget windows of all keys (UPSTREAM_RATE_LIMIT), this process's view.",
      registers,
    });
    this.budgetReducedKeys = new Gauge({
      name: 'statev_upstream_budget_reduced_keys',
      help: 'Keys whose learned allowance is below UPSTREAM_RATE_LIMIT after an upstream 429.',
      registers,
    });
    this.budgetQueued = new Gauge({
      name: 'statev_upstream_budget_queued_requests',
      help: "Upstream requests waiting for their key's budget, by priority (operation, missed, background).",
      labelNames: ['priority'],
      registers,
    });
    this.budgetDropped = new Counter({
      name: 'statev_upstream_budget_dropped_total',
      help: "Upstream requests refused because their key's queue for budget was full, by priority.",
      labelNames: ['priority'],
      registers,
    });
  }

  /** Records one finished upstream request (wired to `UpstreamClient.observe`). */
  upstream(observation: UpstreamObservation): void {
    this.upstreamRequests.inc({
      endpoint: observation.route,
      status: observation.status === null ? 'none' : String(observation.status),
    });
    this.upstreamLatency.observe({ endpoint: observation.route }, observation.durationMs / 1000);
  }

  /** The callbacks the economy calls. */
  economyEvents(): EconomyEvents {
    return {
      cache: (outcome) => {
        this.cacheCounts[outcome] += 1;
        this.cacheTotals[outcome] += 1;
      },
      coalesced: () => this.coalescedTotal.inc(),
      rateLimited: (source) => this.rateLimitedTotal.inc({ source }),
      unexplained429: () => this.unexplained429Total.inc(),
      served: (kind, ageSeconds) => {
        this.servedAge.series(kind).observe(ageSeconds);
      },
      refreshed: (outcome) => this.refreshAheadTotal.inc({ outcome }),
      queueDropped: (priority) => this.budgetDropped.inc({ priority }),
    };
  }

  /**
   * The Prometheus text of every metric (`GET /metrics`): the registry's, and the served-data
   * age and operation latency histograms, counted outside prom-client and each handed to it
   * as a registry of its own (see {@link TalliedHistogram}), merged with prom-client's
   * `Registry.merge`.
   */
  text(): Promise<string> {
    return Registry.merge([this.registry, this.servedAge.registry(), this.operationLatency.registry()]).metrics();
  }

  /** Upstream-answer cache lookups since the start: hits, misses and stale answers. */
  cacheOutcomes(): { readonly hit: number; readonly miss: number; readonly stale: number } {
    return { ...this.cacheTotals };
  }

  /** Records a whole-response cache hit's age in the served-data age histogram. */
  servedFromResponseCache(ageSeconds: number): void {
    this.responseAge.observe(ageSeconds);
  }

  /** Records one operation sent with an access token: its count and last use, by the token's id. */
  tokenUsed(tokenId: string, at: number = Date.now()): void {
    const seconds = Math.floor(at / 1000);
    const counted = this.tokenCounts.get(tokenId);
    if (counted === undefined) this.tokenCounts.set(tokenId, { count: 1, lastUseSeconds: seconds });
    else {
      counted.count += 1;
      counted.lastUseSeconds = seconds;
    }
  }

  /** Records one GraphQL operation. */
  operation(outcome: 'success' | 'partial' | 'error' | 'rejected', durationMs: number): void {
    this.operationCounts.set(outcome, (this.operationCounts.get(outcome) ?? 0) + 1);
    this.operationLatency.series(outcome).observe(durationMs / 1000);
  }
}
