/**
 * The gateway's settings, read once from the environment (and the command line's flags).
 *
 * This module is the only reader of `process.env`: everything else receives a
 * {@link GatewayConfig}. Every setting has a default and one entry in {@link SETTINGS}, the
 * table `loadConfig` reads and `statev-gateway --help` is generated from, and a row in
 * docs/configuration.md. The readers of the values are in `src/settings-readers.ts`;
 * {@link ConfigError}, what `loadConfig` throws, is exported from here too.
 */
import {
  boolSetting,
  cacheFileSetting,
  ConfigError,
  durationSetting,
  enumSetting,
  fileSetting,
  fractionSetting,
  hostSetting,
  intSetting,
  masterKeySetting,
  originsSetting,
  otlpHeadersSetting,
  portSetting,
  proxiesSetting,
  rateSetting,
  rawSetting,
  TIMER_SECONDS_SETTINGS,
  urlSetting,
} from './settings-readers';
import type { Env, RateSetting } from './settings-readers';
import { MAX_OPTION_SLOTS } from './upstream/endpoints';
import type { CacheKind } from './upstream/endpoints';

export { ConfigError, redactUrlCredentials } from './settings-readers';

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
   * Memory bound of Apollo's store of parsed and validated documents, bytes of their JSON as
   * Apollo counts them (`DOCUMENT_CACHE_MAX_BYTES`, default 4194304 = 4 MiB; Apollo's own
   * default is 30 MiB, which many distinct documents fill at several times that in heap).
   */
  documentCacheMaxBytes: number;
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
  /** The store of payment requests without Redis (`PAYMENTS_FILE`, default `.data/payments.json`; `off` = process memory only). */
  paymentsFile: string | null;
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
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

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
  cacheTtlSeconds: Object.freeze({ lists: 600, details: 300, options: 300, bankAccounts: 120, stock: 60, activity: 60 }),
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
  paymentsFile: '.data/payments.json',
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
  cacheFile: '.data/upstream-cache',
  cacheSnapshotSeconds: 60,
  heapGrowingPercent: 30,
  refreshAheadShare: 0.7,
  refreshAheadIdleSeconds: 600,
  tracing: Object.freeze({ endpoint: null, tracesEndpoint: null, headers: null, serviceName: 'statev-gateway', sampler: 'parentbased_always_on', samplerRatio: 1 }),
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

/**
 * One setting: its environment variable, the field of {@link GatewayConfig} it fills, how its
 * value is read and validated, and a one-line meaning. {@link SETTINGS} lists them all;
 * `loadConfig` reads them, and the command line (`statev-gateway --help`, its flags and
 * `--print-config`) is generated from them, so a setting exists in one place.
 */
export interface SettingDefinition {
  /** The environment variable, e.g. `PORT`. */
  readonly env: string;
  /** The command-line flag without dashes (`port` for `--port`), or null for secrets: a command line is visible to every user of the machine. */
  readonly flag: string | null;
  /** The section of `--help` and docs/configuration.md it belongs to. */
  readonly group: string;
  /** What it means, in one line (`--help`); docs/configuration.md says more. */
  readonly summary: string;
  /** How `--print-config` shows a value: `secret` settings are redacted whole, `url` ones lose their password; the rest are shown as they are. */
  readonly redaction: 'secret' | 'url' | null;
  /** The value that reads as null: `off` for a rate or the cache file, else the empty string (unset). */
  readonly none: string;
  /**
   * Reads the setting from `env` (where it is named {@link SettingDefinition.env}) into `config`.
   *
   * @throws ConfigError for a bad value
   */
  load(config: GatewayConfig, env: Env): void;
  /** The setting's value in a configuration (for `--print-config` and the default `--help` shows). */
  value(config: GatewayConfig): unknown;
}

/** The flag of an environment variable: `UPSTREAM_RATE_LIMIT` → `upstream-rate-limit`. */
function flagOf(env: string): string {
  return env.toLowerCase().replace(/_/g, '-');
}

/** What {@link setting} and its nested forms take beyond the variable and its reader. */
interface SettingOptions {
  /** Keep it off the command line and redact it in `--print-config` (keys, secrets). */
  secret?: true;
  /** Show it in `--print-config` without the password of its URL. */
  urlWithPassword?: true;
  /** The value that reads as null, when it is not unset (`off`). */
  none?: 'off';
}

/** A setting read into one field of the configuration, as `(env, name) => value` (one of the readers above). */
function setting<K extends keyof GatewayConfig>(
  key: K,
  env: string,
  read: (env: Env, name: string) => GatewayConfig[K],
  summary: string,
  options: SettingOptions = {},
): Omit<SettingDefinition, 'group'> {
  return field(env, read, (config) => config[key], (config, value) => (config[key] = value), summary, options);
}

/** The fields of {@link GatewayConfig} that hold a number. */
type NumberField = { [K in keyof GatewayConfig]: GatewayConfig[K] extends number ? K : never }[keyof GatewayConfig];

/** A whole-number setting of at least `min`, its default the field's in {@link DEFAULT_CONFIG} (most settings). */
function integer(key: NumberField, env: string, min: number, summary: string): Omit<SettingDefinition, 'group'> {
  // Milliseconds, and seconds that become timers, are bounded by Node's longest timer.
  const unit = env.endsWith('_MS') ? 'ms' : TIMER_SECONDS_SETTINGS.has(env) ? 'seconds' : null;
  const read = (source: Env, name: string): number => (unit ? durationSetting(source, name, DEFAULT_CONFIG[key], min, unit) : intSetting(source, name, DEFAULT_CONFIG[key], min));
  return field(env, read, (config) => config[key], (config, value) => (config[key] = value), summary);
}

/** A setting read into a field of a nested record (`cacheTtlSeconds.stock`, `costAssumptions.rooms`). */
function field<V>(
  env: string,
  read: (env: Env, name: string) => V,
  get: (config: GatewayConfig) => V,
  set: (config: GatewayConfig, value: V) => void,
  summary: string,
  options: SettingOptions = {},
): Omit<SettingDefinition, 'group'> {
  return {
    env,
    flag: options.secret ? null : flagOf(env),
    summary,
    redaction: options.secret ? 'secret' : options.urlWithPassword ? 'url' : null,
    none: options.none ?? '',
    load: (config, source) => set(config, read(source, env)),
    value: get,
  };
}

/** Stamps a section name on its settings. */
function section(group: string, settings: ReadonlyArray<Omit<SettingDefinition, 'group'>>): SettingDefinition[] {
  return settings.map((definition) => ({ ...definition, group }));
}

const TTL_SUMMARIES: Readonly<Record<CacheKind, string>> = {
  lists: 'freshness of the company and building lists, seconds',
  details: 'freshness of productions, vehicles, building details, rooms, tenants, seconds',
  options: 'freshness of option slots, seconds',
  bankAccounts: 'freshness of bank account lists, seconds',
  stock: 'freshness of store, machine store and counter, seconds',
  activity: 'freshness of transactions, market offers, buy log and auctions, seconds',
};

/** A `CACHE_TTL_<KIND>_SECONDS` setting. */
function ttl(kind: CacheKind): Omit<SettingDefinition, 'group'> {
  return field(
    TTL_SETTINGS[kind],
    // The subscriptions' polling interval is this freshness window: a timer.
    (env, name) => durationSetting(env, name, DEFAULT_CONFIG.cacheTtlSeconds[kind], 0, 'seconds'),
    (config) => config.cacheTtlSeconds[kind],
    (config, value) => (config.cacheTtlSeconds[kind] = value),
    TTL_SUMMARIES[kind],
  );
}

/** A `COST_ASSUMED_*` setting. */
function costAssumed(part: keyof CostAssumptions, env: string, summary: string): Omit<SettingDefinition, 'group'> {
  return field(
    env,
    (source, name) => intSetting(source, name, DEFAULT_CONFIG.costAssumptions[part], 1),
    (config) => config.costAssumptions[part],
    (config, value) => (config.costAssumptions[part] = value),
    summary,
  );
}

/** A `OTEL_*` setting. */
function otel<K extends keyof TracingSettings>(key: K, env: string, read: (env: Env, name: string) => TracingSettings[K], summary: string, options: SettingOptions = {}): Omit<SettingDefinition, 'group'> {
  return field(env, read, (config) => config.tracing[key], (config, value) => (config.tracing[key] = value), summary, options);
}

/**
 * Every setting, in the order of docs/configuration.md. To add one: a field in
 * {@link GatewayConfig} and {@link DEFAULT_CONFIG}, a line here with one of the readers above
 * (`integer('myField', 'MY_SETTING', 1, 'one-line meaning')`),
 * and a row in docs/configuration.md (test/unit/docs.test.ts checks it). Its flag
 * (`--my-setting`), its `--help` line and its `--print-config` line follow.
 */
export const SETTINGS: readonly SettingDefinition[] = [
  ...section('Server and upstream', [
    setting('port', 'PORT', (env, name) => portSetting(env, name, DEFAULT_CONFIG.port), 'HTTP port, 0-65535; 0 picks a free port'),
    setting('host', 'HOST', (env, name) => hostSetting(env, name, DEFAULT_CONFIG.host), 'bind address (0.0.0.0 or :: accepts other machines)'),
    setting('upstreamBaseUrl', 'STATEV_BASE_URL', (env, name) => urlSetting(env, name, DEFAULT_CONFIG.upstreamBaseUrl), 'upstream base URL, including /req'),
    integer('upstreamTimeoutMs', 'UPSTREAM_TIMEOUT_MS', 1, 'deadline of each upstream request (connect, headers, body), ms'),
    integer('upstreamConnections', 'UPSTREAM_CONNECTIONS', 0, 'most upstream connections for all keys together; 0 = no shared cap'),
    integer('upstreamMaxBodyBytes', 'UPSTREAM_MAX_BODY_BYTES', 1024, 'largest upstream response body, bytes'),
    setting('corsOrigins', 'CORS_ORIGINS', (env, name) => originsSetting(env, name), 'comma-separated browser origins allowed (scheme://host[:port]), * for any'),
    setting('introspection', 'INTROSPECTION', (env, name) => boolSetting(env, name, DEFAULT_CONFIG.introspection), 'answer introspection queries'),
    setting('nodeEnv', 'NODE_ENV', (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.nodeEnv, 'stack traces appear in errors only when development'),
    integer('maxBodyBytes', 'MAX_BODY_BYTES', 1024, 'largest request body, bytes (larger: 413)'),
    integer('maxVariablesBytes', 'MAX_VARIABLES_BYTES', 1024, 'largest variables of one request, bytes of JSON (larger: 413)'),
    integer('shutdownGracePeriodMs', 'SHUTDOWN_GRACE_PERIOD_MS', 0, 'how long a stop lets requests in flight finish, ms'),
    integer('shutdownDelayMs', 'SHUTDOWN_DELAY_MS', 0, 'how long a stop keeps serving with /readyz at 503 before draining, ms'),
    integer('httpHeadersTimeoutMs', 'HTTP_HEADERS_TIMEOUT_MS', 1, "longest a client may take to send a request's headers, ms (then 408)"),
    integer('httpRequestTimeoutMs', 'HTTP_REQUEST_TIMEOUT_MS', 1, 'longest a client may take to send a whole request, ms (then 408)'),
    setting('logLevel', 'LOG_LEVEL', (env, name) => enumSetting(env, name, DEFAULT_CONFIG.logLevel, LOG_LEVELS), `pino log level: ${LOG_LEVELS.join(', ')}`),
  ]),
  ...section('Caching', [
    setting('cacheEnabled', 'CACHE_ENABLED', (env, name) => boolSetting(env, name, DEFAULT_CONFIG.cacheEnabled), 'per-key cache of upstream answers (off only for benchmarks)'),
    integer('cacheMaxBytes', 'CACHE_MAX_BYTES', 1024, 'memory bound of that cache, bytes'),
    ...(Object.keys(TTL_SETTINGS) as CacheKind[]).map(ttl),
    integer('staleMaxAgeSeconds', 'STALE_MAX_AGE_SECONDS', 0, 'oldest cached answer served when the upstream fails, seconds'),
    setting('responseCacheEnabled', 'RESPONSE_CACHE_ENABLED', (env, name) => boolSetting(env, name, DEFAULT_CONFIG.responseCacheEnabled), 'per-key whole-response cache (needs CACHE_ENABLED)'),
    integer('responseCacheMaxBytes', 'RESPONSE_CACHE_MAX_BYTES', 1024, 'memory bound of the response cache, bytes'),
    integer('documentCacheMaxBytes', 'DOCUMENT_CACHE_MAX_BYTES', 1024, "memory bound of Apollo's parsed-document store, bytes"),
    setting('cacheFile', 'CACHE_FILE', (env, name) => cacheFileSetting(env, name, DEFAULT_CONFIG.cacheFile), 'file keeping the cache across restarts without Redis; off = none', { none: 'off' }),
    integer('cacheSnapshotSeconds', 'CACHE_SNAPSHOT_SECONDS', 0, 'how often the cache file is written, seconds; 0 = only at stop'),
    setting('heapGrowingPercent', 'HEAP_GROWING_PERCENT', (env, name) => intSetting(env, name, DEFAULT_CONFIG.heapGrowingPercent, 0, 300), "V8 heap growth past live data before a full collection, percent; 0 = V8's own"),
    setting('refreshAheadShare', 'REFRESH_AHEAD_SHARE', (env, name) => fractionSetting(env, name, DEFAULT_CONFIG.refreshAheadShare), "most of a key's budget refresh-ahead may use, 0-1; 0 = off"),
    integer('refreshAheadIdleSeconds', 'REFRESH_AHEAD_IDLE_SECONDS', 1, 'no refresh-ahead for a key unread this long, seconds'),
    setting('loadersEnabled', 'LOADERS_ENABLED', (env, name) => boolSetting(env, name, DEFAULT_CONFIG.loadersEnabled), 'per-operation DataLoaders (off only for benchmarks)'),
  ]),
  ...section('Per-key limits', [
    integer('rateLimitBackoffSeconds', 'RATE_LIMIT_BACKOFF_SECONDS', 1, 'cooldown after an upstream 429 without Retry-After, seconds'),
    integer('retryAfterMaxSeconds', 'RETRY_AFTER_MAX_SECONDS', 1, 'longest cooldown a Retry-After can impose, seconds'),
    setting('upstreamRateLimit', 'UPSTREAM_RATE_LIMIT', (env, name) => rateSetting(env, name, DEFAULT_CONFIG.upstreamRateLimit), 'per-key upstream budget: N/SECONDS (N requests in any SECONDS) or off', { none: 'off' }),
    integer('upstreamConcurrencyPerKey', 'UPSTREAM_CONCURRENCY_PER_KEY', 1, 'upstream requests in flight per key'),
    integer('upstreamPatienceMs', 'UPSTREAM_PATIENCE_MS', 0, 'how long an operation waits for budget before answering with what it has, ms'),
    integer('upstreamPatienceMaxMs', 'UPSTREAM_PATIENCE_MAX_MS', 0, 'longest wait a request may ask for with Prefer: wait=N, ms'),
    integer('upstreamRetryDelayMs', 'UPSTREAM_RETRY_DELAY_MS', 0, 'base delay of the one retry of a failed GET, ms'),
    setting('keyHashSecret', 'KEY_HASH_SECRET', (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.keyHashSecret, 'HMAC secret turning API keys into ids; set your own, the same on every replica', { secret: true }),
  ]),
  ...section('Query limits', [
    integer('maxUpstreamRequests', 'MAX_UPSTREAM_REQUESTS', 1, 'largest worst-case upstream cost of one operation'),
    integer('maxDepth', 'MAX_DEPTH', 1, 'deepest operation accepted'),
    costAssumed('factories', 'COST_ASSUMED_FACTORIES', 'companies per character the cost estimate assumes'),
    costAssumed('buildings', 'COST_ASSUMED_BUILDINGS', 'buildings per character the cost estimate assumes'),
    costAssumed('bankAccounts', 'COST_ASSUMED_BANK_ACCOUNTS', 'bank accounts per company or building the cost estimate assumes'),
    costAssumed('rooms', 'COST_ASSUMED_ROOMS', 'rooms per building the cost estimate assumes'),
    integer('maxResponseBytes', 'MAX_RESPONSE_BYTES', 1024, 'largest GraphQL response, bytes'),
    setting('optionSlots', 'OPTION_SLOTS', (env, name) => intSetting(env, name, DEFAULT_CONFIG.optionSlots, 1, MAX_OPTION_SLOTS), `option slots Factory.options reads, 1-${MAX_OPTION_SLOTS}`),
  ]),
  ...section('Public-site mode and examples', [
    setting('serverApiKey', 'STATEV_API_KEY', (env, name) => rawSetting(env, name) ?? null, "the server's API key for trusted documents sent without one", { secret: true }),
    setting('serverApiSecret', 'STATEV_API_SECRET', (env, name) => rawSetting(env, name) ?? null, 'the API secret of that key, for trusted mutations', { secret: true }),
    setting('trustedDocumentsPath', 'TRUSTED_DOCUMENTS', (env, name) => fileSetting(env, name), 'path of the trusted-documents manifest (public-site mode with STATEV_API_KEY)'),
    setting('serveExamples', 'SERVE_EXAMPLES', (env, name) => boolSetting(env, name, DEFAULT_CONFIG.serveExamples), 'serve examples/ at /examples/'),
  ]),
  ...section('Vault and access tokens', [
    setting('vaultFile', 'VAULT_FILE', (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.vaultFile, 'file of the vault of StateV keys and access tokens (mode 0600); in Redis when REDIS_URL is set'),
    setting('vaultMasterKey', 'VAULT_MASTER_KEY', (env, name) => masterKeySetting(env, name), 'vault master key: 32 random bytes, base64 (openssl rand -base64 32); new,old while rotating', { secret: true }),
  ]),
  ...section('Payments', [
    setting('paymentsFile', 'PAYMENTS_FILE', (env, name) => cacheFileSetting(env, name, DEFAULT_CONFIG.paymentsFile), 'file of the payment requests (mode 0600); in Redis when REDIS_URL is set; off = memory only', { none: 'off' }),
  ]),
  ...section('Site documents', [
    integer('siteDocumentMaxBytes', 'SITE_DOCUMENT_MAX_BYTES', 2, 'largest site document, UTF-8 bytes of its canonical JSON'),
    setting('siteDocumentEncoding', 'SITE_DOCUMENT_ENCODING', (env, name) => enumSetting(env, name, DEFAULT_CONFIG.siteDocumentEncoding, SITE_DOCUMENT_ENCODINGS), `how site-document chunks are encoded: ${SITE_DOCUMENT_ENCODINGS.join(', ')}`),
  ]),
  ...section('Redis (several replicas)', [
    setting('redisUrl', 'REDIS_URL', (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '', ['redis:', 'rediss:'])), 'redis:// or rediss:// URL shared by replicas; none = process memory only', { urlWithPassword: true }),
    integer('redisTimeoutMs', 'REDIS_TIMEOUT_MS', 1, 'longest wait for one Redis command, ms'),
    setting('redisPrefix', 'REDIS_PREFIX', (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.redisPrefix, 'prefix of every Redis key'),
  ]),
  ...section('Subscriptions', [
    integer('subscriptionsMaxPerKey', 'SUBSCRIPTIONS_MAX_PER_KEY', 1, 'open subscriptions per key on one replica'),
    integer('subscriptionsMaxPerConnection', 'SUBSCRIPTIONS_MAX_PER_CONNECTION', 1, 'open subscriptions per WebSocket or SSE connection'),
    integer('operationsMaxPerConnection', 'OPERATIONS_MAX_PER_CONNECTION', 1, 'queries and mutations in flight at once per WebSocket'),
    integer('subscriptionErrorEventsAfter', 'SUBSCRIPTION_ERROR_EVENTS_AFTER', 1, 'failed polls in a row before subscribers get an error event'),
    integer('subscriptionRetryBaseMs', 'SUBSCRIPTION_RETRY_BASE_MS', 1, 'first retry delay after a failed poll, ms'),
    integer('subscriptionBudgetPercent', 'SUBSCRIPTION_BUDGET_PERCENT', 1, "share of a key's budget its polls may use, percent"),
    integer('subscriptionConnectionInitTimeoutMs', 'SUBSCRIPTION_CONNECTION_INIT_TIMEOUT_MS', 1, 'a WebSocket without connection_init this long is closed, ms'),
    integer('subscriptionKeepAliveMs', 'SUBSCRIPTION_KEEP_ALIVE_MS', 1, 'WebSocket ping and SSE keep-alive interval, ms'),
    integer('liveQueryThrottleMs', 'LIVE_QUERY_THROTTLE_MS', 0, 'shortest time between two results of one live query (@live), ms; 0 = every change at once'),
    integer('liveQuerySubscribersMaxPerAddress', 'LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS', 1, 'live-query subscribers per client address on one replica'),
    setting('trustedProxies', 'TRUSTED_PROXIES', (env, name) => proxiesSetting(env, name), 'comma-separated proxies (IP, CIDR, loopback) whose X-Forwarded-For is believed'),
    integer('sseReservationTtlMs', 'SSE_RESERVATION_TTL_MS', 1, 'a graphql-sse reservation (PUT /graphql/stream) not connected this long is freed, ms'),
    integer('sseReservationsMaxPerAddress', 'SSE_RESERVATIONS_MAX_PER_ADDRESS', 1, 'graphql-sse reservations not yet connected per client address (more: 429)'),
    integer('sseReservationsMax', 'SSE_RESERVATIONS_MAX', 1, 'graphql-sse reservations not yet connected in all (more: 429)'),
  ]),
  ...section('Traces (OpenTelemetry)', [
    otel('endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '')), 'OTLP HTTP endpoint (traces to <it>/v1/traces); none = tracing off', { urlWithPassword: true }),
    otel('tracesEndpoint', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '')), 'full OTLP HTTP URL of traces, over the endpoint; also turns tracing on', { urlWithPassword: true }),
    otel('headers', 'OTEL_EXPORTER_OTLP_HEADERS', (env, name) => otlpHeadersSetting(env, name), 'headers of every export, name=value,... (URL-encoded values), e.g. a token', { secret: true }),
    otel('serviceName', 'OTEL_SERVICE_NAME', (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.tracing.serviceName, 'service.name of the spans'),
    otel('sampler', 'OTEL_TRACES_SAMPLER', (env, name) => enumSetting(env, name, DEFAULT_CONFIG.tracing.sampler, TRACES_SAMPLERS), `which traces are kept: ${TRACES_SAMPLERS.join(', ')}`),
    otel('samplerRatio', 'OTEL_TRACES_SAMPLER_ARG', (env, name) => fractionSetting(env, name, DEFAULT_CONFIG.tracing.samplerRatio), 'share of traces the *traceidratio samplers keep, 0-1'),
  ]),
  ...section('Demo only', [
    setting('simulatorPort', 'SIMULATOR_PORT', (env, name) => portSetting(env, name, DEFAULT_CONFIG.simulatorPort), 'port of the simulator npm run demo starts'),
    setting('simulatorRateLimit', 'SIMULATOR_RATE_LIMIT', (env, name) => rateSetting(env, name, DEFAULT_CONFIG.simulatorRateLimit), "per-key limit of the demo's simulator: N/SECONDS or off", { none: 'off' }),
  ]),
];

/** Settings that were replaced: setting one is refused at start, naming its successor. */
const REMOVED_SETTINGS: Readonly<Record<string, string>> = {
  UPSTREAM_RATE_PER_MINUTE: 'nothing: it was replaced by UPSTREAM_RATE_LIMIT=N/SECONDS (a sliding window, e.g. 10/60)',
  UPSTREAM_RATE_BURST: 'nothing: it was replaced by UPSTREAM_RATE_LIMIT=N/SECONDS (a sliding window, e.g. 10/60)',
  UPSTREAM_QUEUE_TIMEOUT_MS: 'nothing: it was replaced by UPSTREAM_PATIENCE_MS (ms an operation waits for budget, default 1500)',
};

/** A fresh copy of the defaults, with nested records of its own (settings write into them). */
function defaults(): GatewayConfig {
  return {
    ...DEFAULT_CONFIG,
    corsOrigins: [...DEFAULT_CONFIG.corsOrigins],
    trustedProxies: [...DEFAULT_CONFIG.trustedProxies],
    cacheTtlSeconds: { ...DEFAULT_CONFIG.cacheTtlSeconds },
    costAssumptions: { ...DEFAULT_CONFIG.costAssumptions },
    tracing: { ...DEFAULT_CONFIG.tracing },
  };
}

/**
 * Reads the settings from an environment (default `process.env`), then from `flags`, and
 * applies `overrides` last.
 *
 * Every setting of {@link SETTINGS} is validated here, with the readers above.
 *
 * @param flags - values given on the command line, by the setting's environment variable
 *   (`{PORT: '8080'}` for `--port 8080`); each wins over its variable, and a bad one is
 *   reported under its flag's name (`--port`)
 * @throws ConfigError naming the setting (or flag), the value and what is expected, so a bad deployment fails at start.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<GatewayConfig> = {}, flags: Env = {}): GatewayConfig {
  for (const [removed, expected] of Object.entries(REMOVED_SETTINGS)) {
    const raw = rawSetting(env, removed);
    if (raw !== undefined) throw new ConfigError(removed, raw, expected);
  }
  const config = defaults();
  for (const definition of SETTINGS) {
    const flagValue = flags[definition.env];
    if (flagValue === undefined || definition.flag === null) {
      definition.load(config, env);
      continue;
    }
    try {
      definition.load(config, { [definition.env]: flagValue });
    } catch (error) {
      if (error instanceof ConfigError) throw new ConfigError(`--${definition.flag}`, error.value, error.expected);
      throw error;
    }
  }
  return { ...config, ...overrides };
}

