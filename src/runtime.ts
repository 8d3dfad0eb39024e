import { hkdfSync } from 'node:crypto';
import type { Server } from 'node:http';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { DestinationStream, Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { DEFAULT_CONFIG } from './config';
import type { GatewayConfig } from './config';
import type { GatewayContext, GatewayServices } from './context';
import { CacheFile, CacheSnapshots, ChangeSharingRedisState } from './economy';
import type { EconomyEvents, RedisSharedState } from './economy';
import { UpstreamEconomy } from './economy';
import type { ResponseCacheHits } from './graph/response-cache/response-cache-hits';
import { responseCachePlugin } from './graph/response-cache/response-cache-plugin';
import type { ApolloResultPhase } from './pipeline/http-result-phase';
import { jitExecution } from './graph/execution/jit-executor';
import { formatError } from './errors/format-error';
import { buildGatewaySchema } from './graph/schema';
import { createLogger } from './observability/logger';
import { GatewayMetrics } from './observability/metrics';
import { operationPlugin, reportHttpOperation, restrictToUpstreamFreshness } from './observability/operation.plugin';
import { shapeDriftPlugin } from './observability/shape-drift.plugin';
import type { GatewayTracing } from './observability/tracing';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { PollClock } from './domains/feeds/feed';
import { hashedKey } from './pipeline/key-in-use';
import type { HashedKey, KeyHolder } from './pipeline/key-in-use';
import { RequestPipeline } from './pipeline/pipeline';
import { UpstreamClient } from './upstream/client';
import { webhookPoster } from './upstream/webhook-post';
import { preferWaitPlugin } from './http/prefer-wait';
import { RecordMac, startLiveVault, TokenBudgets } from './vault';
import type { LiveVault } from './vault';
import { FilePaymentStore } from './domains/payments/payment-request.file-store';
import { RedisPaymentStore } from './domains/payments/payment-request.redis-store';
import { PaymentDesk } from './domains/payments/payment-request.service';
import { WebhookDispatcher } from './domains/payments/payment-webhook.dispatcher';
import { domainEndpointRules } from './domains';

/** The gateway's process-wide parts, created once and shared by every operation. */
export interface GatewayRuntime {
  /** The Apollo server (tests call `executeOperation` on it with a context from `createContext`). */
  readonly apollo: ApolloServer<GatewayContext>;
  /** The shared upstream client (the only HTTP client to the StateV API). */
  readonly upstream: UpstreamClient;
  /** Cache, coalescing and per-key limits. */
  readonly economy: UpstreamEconomy;
  /** Prometheus metrics. */
  readonly metrics: GatewayMetrics;
  /** Structured logger. */
  readonly logger: Logger;
  /** Redis shared by replicas, when `REDIS_URL` is set. */
  readonly shared: RedisSharedState | undefined;
  /**
   * The cache file (`CACHE_FILE`), without Redis: `startGateway` loads it before it
   * listens, and writes it periodically and after the last request at shutdown.
   */
  readonly persistence: CacheSnapshots | undefined;
  /** What `createContext` needs. */
  readonly services: GatewayServices;
  /** OpenTelemetry traces, when on (`OTEL_EXPORTER_OTLP_ENDPOINT` or `traceExporter`). */
  readonly tracing: GatewayTracing | undefined;
  /**
   * The request checks of every transport (src/pipeline/steps.ts), with the public-site
   * policy, built once: the HTTP handler and the subscription transports call it for
   * every phase (Apollo runs them only for `executeOperation`, in tests).
   */
  readonly pipeline: RequestPipeline;
  /** The vault of keys and access tokens, kept current, when `VAULT_MASTER_KEY` is set (`vault`: its lookups and change events); `close` stops watching it. */
  readonly vault: { readonly vault: LiveVault; allowsOrigin(origin: string): boolean; close(): Promise<void> } | null;
  /** The payment desk (payment requests, their matching and events), in `services.domains` too; `close` stops it and its store. */
  readonly payments: PaymentDesk;
  /**
   * The response cache seen from the HTTP layer, which answers a hit before Apollo
   * (src/web/cached-answers.ts): the links from raw requests to entries and the result
   * phase's text of a hit. Null when the response cache is off, and with tracing on (a
   * hit through Apollo gets its spans).
   */
  readonly responseCacheHits: {
    readonly hits: ResponseCacheHits;
    readonly response: ApolloResultPhase['cachedResponse'];
  } | null;
}

/** Options for tests and embedding. */
export interface GatewayOptions {
  /** An undici dispatcher for the upstream (tests pass a `MockAgent`). */
  dispatcher?: Dispatcher;
  /** Where log lines go (default stdout). */
  logDestination?: DestinationStream;
  /** Clock for cache ages and limits (default `Date.now`). */
  now?: () => number;
  /** Randomness for retry jitter (default `Math.random`). */
  random?: () => number;
  /** Timers of the subscription pollers (tests pass a manual clock; default the real one). */
  pollClock?: PollClock;
  /** Where spans go, each as it ends, instead of OTLP; turns tracing on (tests pass an in-memory exporter). */
  traceExporter?: SpanExporter;
}

/** What {@link createGatewayRuntime} needs beyond {@link GatewayOptions} when it serves HTTP. */
export interface RuntimeOptions extends GatewayOptions {
  /**
   * The HTTP server that serves this runtime. `apollo.stop()` then drains it (Apollo's
   * drain plugin): it stops accepting connections, closes idle ones, lets requests in
   * flight finish for up to `config.shutdownGracePeriodMs`, then closes the rest.
   */
  httpServer?: Server;
}

/**
 * The economy's events, with a warning logged for the first upstream 429 of a key in each
 * window that its own requests do not explain (every one is counted in
 * `statev_upstream_unexplained_429_total` by `base`): by the key's id, never the key.
 */
function warnOfUnexplained429s(base: EconomyEvents, logger: Logger): EconomyEvents {
  return {
    ...base,
    unexplained429: (report) => {
      base.unexplained429?.(report);
      if (!report.firstInWindow) return;
      logger.warn(
        {
          key: report.keyId.slice(0, 8),
          sentInWindow: report.sentInWindow,
          limit: report.limit,
          windowSeconds: report.windowSeconds,
          retryAfterSeconds: report.retryAfterSeconds,
        },
        `upstream 429 for key ${report.keyId.slice(0, 8)} after only ${report.sentInWindow} of its ${report.limit} requests in ${report.windowSeconds} s from this gateway: another client spends the same key (another gateway without shared Redis, a script, this gateway before a restart), or the upstream's limit is lower than UPSTREAM_RATE_LIMIT; requests for the key wait ${report.retryAfterSeconds} s`,
      );
    },
  };
}

/**
 * Builds the gateway's runtime: logger, metrics, the upstream client, the upstream
 * economy (with Redis when `config.redisUrl` is set) and the Apollo server with its
 * plugins, and the request pipeline. Nothing listens yet: resolver tests call
 * `apollo.start()` and `executeOperation`; `startGateway` (src/server.ts) serves it over HTTP.
 *
 * @throws Error when public-site mode is configured and its trusted-documents manifest cannot be loaded.
 */
export async function createGatewayRuntime(
  config: GatewayConfig,
  options: RuntimeOptions = {},
): Promise<GatewayRuntime> {
  const metrics = new GatewayMetrics();
  const logger = createLogger(config.logLevel, options.logDestination);
  const upstream = new UpstreamClient({
    baseUrl: config.upstreamBaseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    connections: config.upstreamConnections,
    connectionsPerKey: config.upstreamConcurrencyPerKey,
    maxBodyBytes: config.upstreamMaxBodyBytes,
    maxRetryAfterSeconds: config.retryAfterMaxSeconds,
    dispatcher: options.dispatcher,
  });
  upstream.observe((observation) => metrics.upstream(observation));
  // The OpenTelemetry SDK (about 16 MB of RSS) is loaded only when tracing is on.
  const tracingOn =
    options.traceExporter !== undefined || config.tracing.endpoint !== null || config.tracing.tracesEndpoint !== null;
  const tracing = tracingOn
    ? (await import('./observability/tracing')).GatewayTracing.fromSettings(config.tracing, options.traceExporter)
    : undefined;
  if (tracing) upstream.observe((observation) => tracing.observeUpstream(observation));
  if (config.redisUrl && config.keyHashSecret === DEFAULT_CONFIG.keyHashSecret) {
    logger.warn(
      'KEY_HASH_SECRET is not set: Redis keys use the built-in default. Set your own secret, the same on every replica.',
    );
  }
  const shared = config.redisUrl
    ? new ChangeSharingRedisState({
        url: config.redisUrl,
        commandTimeoutMs: config.redisTimeoutMs,
        prefix: config.redisPrefix,
        maxCooldownMs: config.retryAfterMaxSeconds * 1000,
        logger,
        onError: () => metrics.redisErrors.inc(),
        onState: (up) => metrics.redisUp.set(up ? 1 : 0),
      })
    : undefined;
  const economy = new UpstreamEconomy(
    upstream,
    {
      cacheEnabled: config.cacheEnabled,
      cacheMaxBytes: config.cacheMaxBytes,
      ttlSeconds: config.cacheTtlSeconds,
      staleMaxAgeSeconds: config.staleMaxAgeSeconds,
      defaultBackoffSeconds: config.rateLimitBackoffSeconds,
      maxBackoffSeconds: config.retryAfterMaxSeconds,
      retryDelayMs: config.upstreamRetryDelayMs,
      rateLimit: config.upstreamRateLimit,
      concurrencyPerKey: config.upstreamConcurrencyPerKey,
      patienceMs: config.upstreamPatienceMs,
      now: options.now,
      random: options.random,
      shared,
      sharedLockMs: config.upstreamTimeoutMs + 1000,
      refreshAhead: { share: config.refreshAheadShare, idleSeconds: config.refreshAheadIdleSeconds },
      // What the domains say about their endpoints (which reads writes change, what a write invalidates).
      endpointRules: domainEndpointRules(),
    },
    warnOfUnexplained429s(tracing ? tracing.economyEvents(metrics.economyEvents()) : metrics.economyEvents(), logger),
  );
  // With Redis, Redis is the persistent level (see docs/upstream-traffic.md).
  const persistence =
    config.cacheEnabled && config.cacheFile && !shared
      ? new CacheSnapshots(
          new CacheFile({ path: config.cacheFile, keyHashSecret: config.keyHashSecret, logger, now: options.now }),
          economy.persistable(),
          config.cacheSnapshotSeconds * 1000,
          logger,
        )
      : undefined;
  const schema = await buildGatewaySchema();
  // Access tokens: the vault, opened (a wrong VAULT_MASTER_KEY stops the start) and watched.
  const vault = await startLiveVault(
    config,
    (error) =>
      logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        'The vault changed but does not open: tokens keep their previous state.',
      ),
    (problem) => logger.warn({ problem }, 'A vault record is refused and left alone'),
  );
  // Payment requests: the gateway's own store (Redis with REDIS_URL, else PAYMENTS_FILE).
  // Its requests and outbox entries carry a MAC under the vault's master key (without a vault,
  // under a key derived from KEY_HASH_SECRET): an edited record is refused, logged, left alone.
  const storeOptions = {
    mac: config.vaultMasterKey
      ? RecordMac.fromSetting(config.vaultMasterKey)
      : new RecordMac([
          Buffer.from(
            hkdfSync('sha256', config.keyHashSecret, 'statev-gateway payments', 'record-mac without a vault', 32),
          ),
        ]),
    keptPerCompany: config.paymentOpenRequestsMax,
    onRefused: (what: string) =>
      logger.error({ record: what }, 'payment store: a record whose MAC does not verify was refused and left as it is'),
  };
  const paymentStore = config.redisUrl
    ? new RedisPaymentStore(config.redisUrl, config.redisPrefix, storeOptions)
    : await FilePaymentStore.open(config.paymentsFile, storeOptions);
  // The vault's keys: their characters' open requests are polled again at start, without a call.
  // A vault key as the payment desk's caller: the key and its hash, from THE memo of key hashes
  // (src/pipeline/key-in-use.ts), once per character or webhook of the opened vault.
  const callerOf = (holder: KeyHolder): HashedKey => hashedKey(holder, config.keyHashSecret);
  const heldKeys = vault ? () => vault.vault.characters().map(callerOf) : undefined;
  const payments = new PaymentDesk(paymentStore, {
    now: options.now,
    heldKeys,
    openMax: config.paymentOpenRequestsMax,
    onError: (error) =>
      logger.error({ error: error instanceof Error ? error.message : String(error) }, 'payment matching failed'),
  });
  // Webhooks (statev-gateway webhooks add): the vault holds them, with the keys that poll.
  if (vault) {
    const webhooks = new WebhookDispatcher(
      payments,
      () => vault.vault.webhooks().map((hook) => ({ ...hook, caller: callerOf(hook) })),
      {
        post: webhookPoster({ allowHosts: config.webhookAllowHosts, timeoutMs: config.webhookTimeoutMs }),
        onError: (error) =>
          logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'webhook delivery'),
      },
    );
    webhooks.start();
    payments.closeWith(() => webhooks.close());
  }
  const pipeline = RequestPipeline.fromConfig(schema, config, vault?.vault);
  // The pipeline's parse, validate and operation phases, in its order (src/pipeline/steps.ts).
  const checks = pipeline.apolloOptions<GatewayContext>();
  // The result phase (src/pipeline/result-steps.ts): list-item errors, extensions.upstream, formatting, redaction, response size, the report.
  const reportHttp = reportHttpOperation(metrics, logger);
  const results = pipeline.resultPhase((report) => {
    reportHttp(report);
    tracing?.answered(report.errorCodes, report.result.data != null);
  });
  const includeStacktraceInErrorResponses = config.nodeEnv === 'development';
  const responseCache =
    config.cacheEnabled && config.responseCacheEnabled
      ? responseCachePlugin(economy, config.responseCacheMaxBytes)
      : null;
  const jit = config.executionJit
    ? jitExecution<GatewayContext>(schema, {
        formatError,
        includeStacktraceInErrorResponses,
        executed: restrictToUpstreamFreshness,
      })
    : null;
  const apollo = new ApolloServer<GatewayContext>({
    // Apollo's own pipeline; operations are executed by graphql-jit (src/graph/execution/jit-executor.ts: a plugin, below, and Apollo's public gateway option) unless EXECUTION_JIT=false.
    ...(jit ? { gateway: jit.gateway } : { schema }),
    // The documents the pipeline prepared (Apollo neither parses nor validates them), and those Apollo
    // parses itself, bounded smaller than Apollo's 30 MiB default (see ApolloDocumentStore).
    documentStore: checks.documentStore,
    // The pipeline's `introspection` step refuses introspection when INTROSPECTION=false.
    introspection: true,
    // The pipeline's `csrf` step refuses a request that may be a cross-site forgery, before Apollo.
    csrfPrevention: false,
    includeStacktraceInErrorResponses,
    // Signals are the entry point's (runUntilSignal): Apollo's own handler would stop Apollo
    // and re-raise SIGTERM, ending the process before the cache file and connections close.
    stopOnTerminationSignals: false,
    formatError,
    stringifyResult: results.stringifyResult,
    parseOptions: checks.parseOptions,
    validationRules: checks.validationRules,
    // The APQ cache the pipeline reads a hash's text from (it parses and validates it, and refuses an unknown hash).
    persistedQueries: checks.persistedQueries,
    plugins: [
      ...(tracing ? [tracing.plugin()] : []),
      checks.plugin,
      ...(options.httpServer
        ? [
            ApolloServerPluginDrainHttpServer({
              httpServer: options.httpServer,
              stopGracePeriodMillis: config.shutdownGracePeriodMs,
            }),
          ]
        : []),
      // No per-field cache hints (Apollo would add its cache-control plugin itself, whose hook
      // runs on every field; no field declares a hint, so each would get the longest TTL): the
      // operation plugin gives the response cache its policy from the upstream answers used.
      ApolloServerPluginCacheControlDisabled(),
      ...(responseCache ? [responseCache.plugin] : []),
      // After the response cache (a hit answers first): executes the operation with graphql-jit.
      ...(jit ? [jit.plugin] : []),
      operationPlugin(logger),
      // After the response cache: the result phase reads the `age` it sets on a hit.
      results.plugin,
      shapeDriftPlugin(metrics, logger),
      preferWaitPlugin(),
      ApolloServerPluginLandingPageDisabled(),
    ],
  });
  const services: GatewayServices = {
    economy,
    config,
    tokenBudgets: new TokenBudgets((config.upstreamRateLimit?.windowSeconds ?? 60) * 1000, options.now, shared ?? null),
    domains: { payments },
  };
  const responseCacheHits =
    responseCache && !tracing ? { hits: responseCache.hits, response: results.cachedResponse } : null;
  return {
    apollo,
    upstream,
    economy,
    metrics,
    logger,
    shared,
    persistence,
    services,
    pipeline,
    tracing,
    vault,
    payments,
    responseCacheHits,
  };
}
