/**
 * The gateway's configuration: {@link GatewayConfig}, what every module receives, and its
 * defaults ({@link DEFAULT_CONFIG}), with the value sets some settings accept. The settings
 * table (settings-table.ts) says how each field is read; config.ts reads them, the only
 * reader of `process.env`. Import these from config.ts.
 */
import type { RateSetting } from './settings-readers';
import type { CacheKind } from '../upstream/endpoints';

/** Every setting of the gateway, with units in the names or the docs. */
export interface GatewayConfig {
  /** HTTP port (`PORT`, default 4000; 0 picks a free port). */
  port: number;
  /** Bind address (`HOST`, default `127.0.0.1`). */
  host: string;
  /** Upstream base URL including `/req` (`STATEV_BASE_URL`, default `https://api.statev.de/req`). */
  upstreamBaseUrl: string;
  /** Deadline of each upstream request, connect, headers and whole body together, in ms (`UPSTREAM_TIMEOUT_MS`, default 10000). */
  upstreamTimeoutMs: number;
  /**
   * Most open connections to the upstream for all keys together; 0 = no shared cap, so one key's hung
   * requests cannot starve another key (`UPSTREAM_CONNECTIONS`, default 0). Per key, `UPSTREAM_CONCURRENCY_PER_KEY` bounds them.
   */
  upstreamConnections: number;
  /** Largest upstream response body, enforced while streaming, in bytes (`UPSTREAM_MAX_BODY_BYTES`, default 1048576 = 1 MiB). */
  upstreamMaxBodyBytes: number;
  /** Allowed CORS origins (`CORS_ORIGINS`, comma-separated, `*` allowed, default none). */
  corsOrigins: string[];
  /** Whether introspection is answered (`INTROSPECTION`, default true). */
  introspection: boolean;
  /** `NODE_ENV`; stack traces appear in errors only when it is `development`. */
  nodeEnv: string;
  /** Largest request body accepted, in bytes (`MAX_BODY_BYTES`, default 1048576). */
  maxBodyBytes: number;
  /** How long a stop lets requests in flight finish before closing their connections, ms (`SHUTDOWN_GRACE_PERIOD_MS`, default 10000). */
  shutdownGracePeriodMs: number;
  /**
   * How long a stop keeps serving with `/readyz` at 503 before it drains, ms, so a load
   * balancer or Kubernetes takes the replica out first (`SHUTDOWN_DELAY_MS`, default 0).
   */
  shutdownDelayMs: number;
  /** Longest a client may take to send a request's headers, ms; then 408 and the connection closes (`HTTP_HEADERS_TIMEOUT_MS`, default 10000; at most `HTTP_REQUEST_TIMEOUT_MS`). */
  httpHeadersTimeoutMs: number;
  /** Longest a client may take to send a whole request, headers and body, ms; then 408 and the connection closes (`HTTP_REQUEST_TIMEOUT_MS`, default 30000). */
  httpRequestTimeoutMs: number;
  /** Largest site document, UTF-8 bytes of its canonical JSON (`SITE_DOCUMENT_MAX_BYTES`, default 65536). */
  siteDocumentMaxBytes: number;
  /** How site-document chunks are compressed and encoded (`SITE_DOCUMENT_ENCODING`, default `deflate-base64url`; see docs/site-documents.md). */
  siteDocumentEncoding: SiteDocumentEncoding;
  /** Largest `variables` of one request, bytes of JSON; larger is refused with 413 before any analysis (`MAX_VARIABLES_BYTES`, default 65536). */
  maxVariablesBytes: number;

  /** Cross-request cache of upstream GETs on or off (`CACHE_ENABLED`, default true; off only for benchmarks). */
  cacheEnabled: boolean;
  /** Memory bound of the cache, bytes of cached JSON (`CACHE_MAX_BYTES`, default 67108864 = 64 MiB). */
  cacheMaxBytes: number;
  /** Per-key whole-response cache on or off (`RESPONSE_CACHE_ENABLED`, default true; needs `CACHE_ENABLED`). */
  responseCacheEnabled: boolean;
  /** Memory bound of the response cache, bytes (`RESPONSE_CACHE_MAX_BYTES`, default 33554432 = 32 MiB). */
  responseCacheMaxBytes: number;
  /**
   * Memory bound of the parsed and validated documents kept (the request pipeline's seven
   * eighths, Apollo's own store an eighth), bytes of their estimated heap, five times their
   * JSON (`DOCUMENT_CACHE_MAX_BYTES`, default 4194304 = 4 MiB; Apollo's own default is 30 MiB
   * of their JSON, about five times that in heap).
   */
  documentCacheMaxBytes: number;
  /** HTTP operations and live-query runs executed with graphql-jit, compiled on a document's second run (`EXECUTION_JIT`, default true; off: graphql-js). */
  executionJit: boolean;
  /** Freshness per endpoint kind, seconds (`CACHE_TTL_<KIND>_SECONDS`). */
  cacheTtlSeconds: Record<CacheKind, number>;
  /** Oldest cached value served when the upstream fails or rate-limits, seconds (`STALE_MAX_AGE_SECONDS`, default 3600). */
  staleMaxAgeSeconds: number;
  /** Longest cooldown a `Retry-After` can impose, seconds; longer values are cut to it, in memory and in Redis (`RETRY_AFTER_MAX_SECONDS`, default 3600). */
  retryAfterMaxSeconds: number;
  /** Cooldown after an upstream 429 without `Retry-After`, seconds (`RATE_LIMIT_BACKOFF_SECONDS`, default 60). */
  rateLimitBackoffSeconds: number;
  /**
   * Per-key upstream budget as a sliding-window log: at most `requests` in any `windowSeconds`
   * (`UPSTREAM_RATE_LIMIT`, `N/SECONDS` or `off`, default `10/60`); null = off. Replaces
   * `UPSTREAM_RATE_PER_MINUTE` and `UPSTREAM_RATE_BURST`.
   */
  upstreamRateLimit: RateSetting | null;
  /**
   * Upstream requests (and connections) in flight per key (`UPSTREAM_CONCURRENCY_PER_KEY`,
   * default 10: as many as the default budget lets go at once, so a fresh key's first view
   * spends it in one round trip per level of the page, not in waves).
   */
  upstreamConcurrencyPerKey: number;
  /**
   * How long an operation waits for budget or a slot before it answers with what it has
   * (stale data, else `RATE_LIMITED`), ms (`UPSTREAM_PATIENCE_MS`, default 1500). Replaces
   * `UPSTREAM_QUEUE_TIMEOUT_MS`.
   */
  upstreamPatienceMs: number;
  /** Longest wait a request may ask for with `Prefer: wait=N`, ms (`UPSTREAM_PATIENCE_MAX_MS`, default 10000). */
  upstreamPatienceMaxMs: number;
  /** Base delay of the one GET retry, ms; actual delay is 50–150 % of it (`UPSTREAM_RETRY_DELAY_MS`, default 200). */
  upstreamRetryDelayMs: number;
  /** Secret for hashing API keys into cache keys, logs and metrics (`KEY_HASH_SECRET`). */
  keyHashSecret: string;
  /** Largest GraphQL response the gateway sends, bytes; a larger one is replaced by a `QUERY_TOO_EXPENSIVE` error (`MAX_RESPONSE_BYTES`, default 16777216 = 16 MiB). */
  maxResponseBytes: number;
  /** Option slots `Factory.options` reads, 1 to 20 (`OPTION_SLOTS`, default 10; premium keys may have 20). */
  optionSlots: number;
  /** Largest worst-case upstream cost of one operation (`MAX_UPSTREAM_REQUESTS`, default 1000). */
  maxUpstreamRequests: number;
  /** Deepest operation accepted (`MAX_DEPTH`, default 12). */
  maxDepth: number;
  /** List sizes the cost estimate assumes (`COST_ASSUMED_*`). */
  costAssumptions: CostAssumptions;
  /** Per-operation DataLoaders on or off (`LOADERS_ENABLED`, default true; off only for benchmarks). */
  loadersEnabled: boolean;
  /** pino log level (`LOG_LEVEL`, default info; `silent` turns logs off). */
  logLevel: string;

  /** Public-site mode: the server-held API key used for trusted documents sent without a key (`STATEV_API_KEY`, default none). */
  serverApiKey: string | null;
  /** The API secret of that key, only when public-site writes are wanted (`STATEV_API_SECRET`, default none). */
  serverApiSecret: string | null;
  /** The vault of StateV keys and access tokens (`VAULT_FILE`, default `.data/vault.json`; in Redis instead when `REDIS_URL` is set). */
  vaultFile: string;
  /** Master key(s) of the vault: 32 random bytes in base64, comma-separated newest first during a rotation (`VAULT_MASTER_KEY`, default none: no vault, no access tokens). */
  vaultMasterKey: string | null;
  /** The longest lifetime `tokens create --expires-in` accepts, days (`TOKEN_MAX_LIFETIME_DAYS`, default 366, at most 366). */
  tokenMaxLifetimeDays: number;
  /** The gateway's URL as browsers reach it (`PUBLIC_URL`, default none: `http://` and the request's Host): the console's sign-in links, its cookie's `Secure` and `__Host-` (https), and the Origin its requests must carry. */
  publicUrl: string | null;
  /** The store of payment requests without Redis (`PAYMENTS_FILE`, default `.data/payments.json`; `off` = process memory only). */
  paymentsFile: string | null;
  /** Open payment requests one key may have per company (`PAYMENT_OPEN_REQUESTS_MAX`, default 1000); as many closed ones are kept, the oldest pruned. */
  paymentOpenRequestsMax: number;
  /** The longest one webhook delivery may take, headers and body, ms (`WEBHOOK_TIMEOUT_MS`, default 10 000). */
  webhookTimeoutMs: number;
  /** Hosts webhooks may reach over https although they resolve to a private, loopback or link-local address (`WEBHOOK_ALLOW_HOSTS`, comma-separated, default none). */
  webhookAllowHosts: string[];
  /** Trusted-documents manifest `{hash: document}` (`TRUSTED_DOCUMENTS`, a file path, default none). Public mode needs it and `STATEV_API_KEY`. */
  trustedDocumentsPath: string | null;
  /** Serve `examples/` at `/examples/` (`SERVE_EXAMPLES`, default false; the demo turns it on). */
  serveExamples: boolean;
  /** The API key the playground's Headers tab starts with; null (the default) leaves it empty. Not an environment setting: `npm run demo` sets it to the premium demo key. */
  playgroundApiKey: string | null;
  /** Port of the built-in simulator started by `npm run demo` (`SIMULATOR_PORT`, default 4010). */
  simulatorPort: number;
  /** Per-key limit of the simulator `npm run demo` starts (`SIMULATOR_RATE_LIMIT`, `N/SECONDS` or `off`, default `10/60`); null = off. */
  simulatorRateLimit: RateSetting | null;
  /** Redis shared by replicas for cache, cooldowns, budget and locks (`REDIS_URL`, default none: process memory only). */
  redisUrl: string | null;
  /** Longest wait for one Redis command before the gateway goes on without it, ms (`REDIS_TIMEOUT_MS`, default 100). */
  redisTimeoutMs: number;
  /** Prefix of every Redis key (`REDIS_PREFIX`, default `statev:`). */
  redisPrefix: string;

  /** Open subscriptions per key on one replica; over it `RATE_LIMITED` (`SUBSCRIPTIONS_MAX_PER_KEY`, default 20). */
  subscriptionsMaxPerKey: number;
  /** Open subscriptions per WebSocket or SSE connection; over it `RATE_LIMITED` (`SUBSCRIPTIONS_MAX_PER_CONNECTION`, default 10). */
  subscriptionsMaxPerConnection: number;
  /** Queries and mutations in flight at once per WebSocket; over it `RATE_LIMITED` (`OPERATIONS_MAX_PER_CONNECTION`, default 16). */
  operationsMaxPerConnection: number;
  /** Failed polls in a row after which subscribers get an error event (`SUBSCRIPTION_ERROR_EVENTS_AFTER`, default 3). */
  subscriptionErrorEventsAfter: number;
  /** First retry delay after a failed poll, ms; doubles per failure, at most the interval (`SUBSCRIPTION_RETRY_BASE_MS`, default 5000). */
  subscriptionRetryBaseMs: number;
  /** Share of a key's upstream budget (its allowance under `UPSTREAM_RATE_LIMIT`) its polls may use before their intervals are stretched, percent (`SUBSCRIPTION_BUDGET_PERCENT`, default 50). */
  subscriptionBudgetPercent: number;
  /** A WebSocket that sends no `connection_init` within this time is closed, ms (`SUBSCRIPTION_CONNECTION_INIT_TIMEOUT_MS`, default 10000). */
  subscriptionConnectionInitTimeoutMs: number;
  /** WebSocket ping and SSE keep-alive interval, ms (`SUBSCRIPTION_KEEP_ALIVE_MS`, default 12000). */
  subscriptionKeepAliveMs: number;
  /** Shortest time between two results of one live query (`@live`), ms; a client's `@live(throttle:)` may only lengthen it (`LIVE_QUERY_THROTTLE_MS`, default 1000; 0 = every change at once). */
  liveQueryThrottleMs: number;
  /** Live-query subscribers per client address on one replica; over it `RATE_LIMITED` (`LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS`, default 200). */
  liveQuerySubscribersMaxPerAddress: number;
  /** Proxies whose `X-Forwarded-For` names the client address: IPs, CIDRs, or `loopback`, `linklocal`, `uniquelocal` (`TRUSTED_PROXIES`, default none: the socket's address). */
  trustedProxies: string[];
  /** How long a graphql-sse reservation (`PUT /graphql/stream`) waits for its event stream before it is freed, ms (`SSE_RESERVATION_TTL_MS`, default 30000). */
  sseReservationTtlMs: number;
  /** graphql-sse reservations not yet connected per client address; over it HTTP 429 `RATE_LIMITED` (`SSE_RESERVATIONS_MAX_PER_ADDRESS`, default 100). */
  sseReservationsMaxPerAddress: number;
  /** graphql-sse reservations not yet connected in all; over it HTTP 429 `RATE_LIMITED` (`SSE_RESERVATIONS_MAX`, default 10000). */
  sseReservationsMax: number;
  /** graphql-sse reservations not yet connected per socket peer (a trusted proxy counts as one, whatever `X-Forwarded-For` says); over it HTTP 429 `RATE_LIMITED` (`SSE_RESERVATIONS_MAX_PER_PEER`, default 1000). */
  sseReservationsMaxPerPeer: number;
  /** Bytes queued in the process for one stream (SSE response or WebSocket) whose client does not read, before it is cut (`STREAM_MAX_QUEUED_BYTES`, default 4194304). */
  streamMaxQueuedBytes: number;
  /** How long a write to a stream may wait to reach the kernel (its client does not drain) before the stream is cut, ms (`STREAM_DRAIN_TIMEOUT_MS`, default 20000). */
  streamDrainTimeoutMs: number;
  /** An SSE connection whose sent bytes (a keep-alive, a result) stay unacknowledged this long is closed by the kernel (`TCP_USER_TIMEOUT`), ms; 0 = left to the system (`SSE_DEAD_PEER_TIMEOUT_MS`, default 30000). */
  sseDeadPeerTimeoutMs: number;
  /** Local persistent level of the upstream cache without Redis (`CACHE_FILE`, default `.data/upstream-cache`; `off` = none). */
  cacheFile: string | null;
  /** How often the cache file is written, seconds; 0 = only at shutdown (`CACHE_SNAPSHOT_SECONDS`, default 60). */
  cacheSnapshotSeconds: number;
  /** V8 heap growth past the live data before the next full collection, percent; 0 = V8's own (`HEAP_GROWING_PERCENT`, default 30; `npm start` and the demo only). */
  heapGrowingPercent: number;
  /** Most of each key's upstream budget refresh-ahead may use, 0–1; 0 = off (`REFRESH_AHEAD_SHARE`, default 0.7). */
  refreshAheadShare: number;
  /** A key nobody has read for this long gets no refresh-ahead, seconds (`REFRESH_AHEAD_IDLE_SECONDS`, default 600). */
  refreshAheadIdleSeconds: number;
  /** OpenTelemetry traces: where they go and which are kept (`OTEL_*`); off unless an endpoint is set. */
  tracing: TracingSettings;
}

/** The OpenTelemetry settings, under their standard `OTEL_*` names. */
export interface TracingSettings {
  /** OTLP HTTP base URL; traces go to `<it>/v1/traces` (`OTEL_EXPORTER_OTLP_ENDPOINT`, default none: tracing off). */
  endpoint: string | null;
  /** Full OTLP HTTP URL of traces, over `endpoint` (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, default none). */
  tracesEndpoint: string | null;
  /** Headers of every export, `name=value,…` with URL-encoded values, e.g. an authorization token (`OTEL_EXPORTER_OTLP_HEADERS`, default none). */
  headers: string | null;
  /** `service.name` of every span (`OTEL_SERVICE_NAME`, default `statev-gateway`). */
  serviceName: string;
  /** Which traces are kept (`OTEL_TRACES_SAMPLER`, default `parentbased_always_on`). */
  sampler: (typeof TRACES_SAMPLERS)[number];
  /** The ratio of the `*traceidratio` samplers, 0–1 (`OTEL_TRACES_SAMPLER_ARG`, default 1). */
  samplerRatio: number;
}

/** The samplers `OTEL_TRACES_SAMPLER` accepts (the OpenTelemetry specification's names). */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** List sizes assumed by the cost estimate, per parent. */
export interface CostAssumptions {
  /** Companies per character (`COST_ASSUMED_FACTORIES`, default 10). */
  factories: number;
  /** Buildings per character (`COST_ASSUMED_BUILDINGS`, default 10). */
  buildings: number;
  /** Bank accounts per company or building (`COST_ASSUMED_BANK_ACCOUNTS`, default 5). */
  bankAccounts: number;
  /** Rooms (and tenants) per building (`COST_ASSUMED_ROOMS`, default 10). */
  rooms: number;
}

/** The defaults, as docs/configuration.md lists them. */
export const DEFAULT_CONFIG = Object.freeze({
  port: 4000,
  host: '127.0.0.1',
  upstreamBaseUrl: 'https://api.statev.de/req',
  upstreamTimeoutMs: 10_000,
  upstreamConnections: 0,
  upstreamMaxBodyBytes: 1024 * 1024,
  corsOrigins: [],
  introspection: true,
  nodeEnv: 'production',
  maxBodyBytes: 1_048_576,
  shutdownGracePeriodMs: 10_000,
  shutdownDelayMs: 0,
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
  siteDocumentMaxBytes: 65_536,
  siteDocumentEncoding: 'deflate-base64url',
  maxVariablesBytes: 65_536,
  cacheEnabled: true,
  cacheMaxBytes: 64 * 1024 * 1024,
  responseCacheEnabled: true,
  responseCacheMaxBytes: 32 * 1024 * 1024,
  documentCacheMaxBytes: 4 * 1024 * 1024,
  executionJit: true,
  cacheTtlSeconds: Object.freeze({
    lists: 600,
    details: 300,
    options: 300,
    bankAccounts: 120,
    stock: 60,
    activity: 60,
  }),
  staleMaxAgeSeconds: 3600,
  rateLimitBackoffSeconds: 60,
  retryAfterMaxSeconds: 3600,
  upstreamRateLimit: { requests: 10, windowSeconds: 60 },
  upstreamConcurrencyPerKey: 10,
  upstreamPatienceMs: 1500,
  upstreamPatienceMaxMs: 10_000,
  upstreamRetryDelayMs: 200,
  keyHashSecret: 'statev-gateway-key-hash',
  maxUpstreamRequests: 1000,
  optionSlots: 10,
  maxResponseBytes: 16 * 1024 * 1024,
  maxDepth: 12,
  costAssumptions: Object.freeze({ factories: 10, buildings: 10, bankAccounts: 5, rooms: 10 }),
  loadersEnabled: true,
  logLevel: 'info',
  serverApiKey: null,
  serverApiSecret: null,
  trustedDocumentsPath: null,
  vaultFile: '.data/vault.json',
  vaultMasterKey: null,
  tokenMaxLifetimeDays: 366,
  publicUrl: null,
  paymentsFile: '.data/payments.json',
  paymentOpenRequestsMax: 1000,
  webhookTimeoutMs: 10_000,
  webhookAllowHosts: [],
  serveExamples: false,
  playgroundApiKey: null,
  simulatorPort: 4010,
  simulatorRateLimit: { requests: 10, windowSeconds: 60 },
  redisUrl: null,
  redisTimeoutMs: 100,
  redisPrefix: 'statev:',
  subscriptionsMaxPerKey: 20,
  subscriptionsMaxPerConnection: 10,
  operationsMaxPerConnection: 16,
  subscriptionErrorEventsAfter: 3,
  subscriptionRetryBaseMs: 5000,
  subscriptionBudgetPercent: 50,
  subscriptionConnectionInitTimeoutMs: 10_000,
  subscriptionKeepAliveMs: 12_000,
  liveQueryThrottleMs: 1000,
  liveQuerySubscribersMaxPerAddress: 200,
  trustedProxies: [],
  sseReservationTtlMs: 30_000,
  sseReservationsMaxPerAddress: 100,
  sseReservationsMax: 10_000,
  sseReservationsMaxPerPeer: 1000,
  streamMaxQueuedBytes: 4 * 1024 * 1024,
  streamDrainTimeoutMs: 20_000,
  sseDeadPeerTimeoutMs: 30_000,
  cacheFile: '.data/upstream-cache',
  cacheSnapshotSeconds: 60,
  heapGrowingPercent: 30,
  refreshAheadShare: 0.7,
  refreshAheadIdleSeconds: 600,
  tracing: Object.freeze({
    endpoint: null,
    tracesEndpoint: null,
    headers: null,
    serviceName: 'statev-gateway',
    sampler: 'parentbased_always_on',
    samplerRatio: 1,
  }),
}) as Readonly<GatewayConfig>;

/** How site-document chunks may be compressed and encoded (`SITE_DOCUMENT_ENCODING`), default first; see `site-document.codec.ts`. */
export const SITE_DOCUMENT_ENCODINGS = ['deflate-base64url', 'brotli-base64url', 'brotli-base32768'] as const;
/** One of {@link SITE_DOCUMENT_ENCODINGS}. */
export type SiteDocumentEncoding = (typeof SITE_DOCUMENT_ENCODINGS)[number];

/** The env variable of each cache kind's TTL. */
export const TTL_SETTINGS: Readonly<Record<CacheKind, string>> = Object.freeze({
  lists: 'CACHE_TTL_LISTS_SECONDS',
  details: 'CACHE_TTL_DETAILS_SECONDS',
  options: 'CACHE_TTL_OPTIONS_SECONDS',
  bankAccounts: 'CACHE_TTL_BANK_ACCOUNTS_SECONDS',
  stock: 'CACHE_TTL_STOCK_SECONDS',
  activity: 'CACHE_TTL_ACTIVITY_SECONDS',
});

/** The pino log levels `LOG_LEVEL` accepts. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
