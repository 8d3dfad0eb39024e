/**
 * The settings table, {@link SETTINGS}: every setting's environment variable, flag, reader,
 * default and one-line meaning, in the order of docs/configuration.md. config.ts reads the
 * environment through it (`loadConfig`), and the command line (`--help`, its flags,
 * `--print-config`) is generated from it. It reads nothing itself: each reader is given the
 * environment.
 */
import {
  boolSetting,
  cacheFileSetting,
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
import type { Env } from './settings-readers';
import { DEFAULT_CONFIG, LOG_LEVELS, SITE_DOCUMENT_ENCODINGS, TRACES_SAMPLERS, TTL_SETTINGS } from './gateway-config';
import type { CostAssumptions, GatewayConfig, TracingSettings } from './gateway-config';
import { MAX_OPTION_SLOTS } from '../upstream/endpoints';
import type { CacheKind } from '../upstream/endpoints';

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
  return field(
    env,
    read,
    (config) => config[key],
    (config, value) => (config[key] = value),
    summary,
    options,
  );
}

/** The fields of {@link GatewayConfig} that hold a number. */
type NumberField = { [K in keyof GatewayConfig]: GatewayConfig[K] extends number ? K : never }[keyof GatewayConfig];

/** A whole-number setting of at least `min`, its default the field's in {@link DEFAULT_CONFIG} (most settings). */
function integer(key: NumberField, env: string, min: number, summary: string): Omit<SettingDefinition, 'group'> {
  // Milliseconds, and seconds that become timers, are bounded by Node's longest timer.
  const unit = env.endsWith('_MS') ? 'ms' : TIMER_SECONDS_SETTINGS.has(env) ? 'seconds' : null;
  const read = (source: Env, name: string): number =>
    unit
      ? durationSetting(source, name, DEFAULT_CONFIG[key], min, unit)
      : intSetting(source, name, DEFAULT_CONFIG[key], min);
  return field(
    env,
    read,
    (config) => config[key],
    (config, value) => (config[key] = value),
    summary,
  );
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
function otel<K extends keyof TracingSettings>(
  key: K,
  env: string,
  read: (env: Env, name: string) => TracingSettings[K],
  summary: string,
  options: SettingOptions = {},
): Omit<SettingDefinition, 'group'> {
  return field(
    env,
    read,
    (config) => config.tracing[key],
    (config, value) => (config.tracing[key] = value),
    summary,
    options,
  );
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
    setting(
      'port',
      'PORT',
      (env, name) => portSetting(env, name, DEFAULT_CONFIG.port),
      'HTTP port, 0-65535; 0 picks a free port',
    ),
    setting(
      'host',
      'HOST',
      (env, name) => hostSetting(env, name, DEFAULT_CONFIG.host),
      'bind address (0.0.0.0 or :: accepts other machines)',
    ),
    setting(
      'upstreamBaseUrl',
      'STATEV_BASE_URL',
      (env, name) => urlSetting(env, name, DEFAULT_CONFIG.upstreamBaseUrl),
      'upstream base URL, including /req',
    ),
    integer(
      'upstreamTimeoutMs',
      'UPSTREAM_TIMEOUT_MS',
      1,
      'deadline of each upstream request (connect, headers, body), ms',
    ),
    integer(
      'upstreamConnections',
      'UPSTREAM_CONNECTIONS',
      0,
      'most upstream connections for all keys together; 0 = no shared cap',
    ),
    integer('upstreamMaxBodyBytes', 'UPSTREAM_MAX_BODY_BYTES', 1024, 'largest upstream response body, bytes'),
    setting(
      'corsOrigins',
      'CORS_ORIGINS',
      (env, name) => originsSetting(env, name),
      'comma-separated browser origins allowed (scheme://host[:port]), * for any',
    ),
    setting(
      'introspection',
      'INTROSPECTION',
      (env, name) => boolSetting(env, name, DEFAULT_CONFIG.introspection),
      'answer introspection queries',
    ),
    setting(
      'nodeEnv',
      'NODE_ENV',
      (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.nodeEnv,
      'stack traces appear in errors only when development',
    ),
    integer('maxBodyBytes', 'MAX_BODY_BYTES', 1024, 'largest request body, bytes (larger: 413)'),
    integer(
      'maxVariablesBytes',
      'MAX_VARIABLES_BYTES',
      1024,
      'largest variables of one request, bytes of JSON (larger: 413)',
    ),
    integer(
      'shutdownGracePeriodMs',
      'SHUTDOWN_GRACE_PERIOD_MS',
      0,
      'how long a stop lets requests in flight finish, ms',
    ),
    integer(
      'shutdownDelayMs',
      'SHUTDOWN_DELAY_MS',
      0,
      'how long a stop keeps serving with /readyz at 503 before draining, ms',
    ),
    integer(
      'httpHeadersTimeoutMs',
      'HTTP_HEADERS_TIMEOUT_MS',
      1,
      "longest a client may take to send a request's headers, ms (then 408)",
    ),
    integer(
      'httpRequestTimeoutMs',
      'HTTP_REQUEST_TIMEOUT_MS',
      1,
      'longest a client may take to send a whole request, ms (then 408)',
    ),
    setting(
      'logLevel',
      'LOG_LEVEL',
      (env, name) => enumSetting(env, name, DEFAULT_CONFIG.logLevel, LOG_LEVELS),
      `pino log level: ${LOG_LEVELS.join(', ')}`,
    ),
  ]),
  ...section('Caching', [
    setting(
      'cacheEnabled',
      'CACHE_ENABLED',
      (env, name) => boolSetting(env, name, DEFAULT_CONFIG.cacheEnabled),
      'per-key cache of upstream answers (off only for benchmarks)',
    ),
    integer('cacheMaxBytes', 'CACHE_MAX_BYTES', 1024, 'memory bound of that cache, bytes'),
    ...(Object.keys(TTL_SETTINGS) as CacheKind[]).map(ttl),
    integer(
      'staleMaxAgeSeconds',
      'STALE_MAX_AGE_SECONDS',
      0,
      'oldest cached answer served when the upstream fails, seconds',
    ),
    setting(
      'responseCacheEnabled',
      'RESPONSE_CACHE_ENABLED',
      (env, name) => boolSetting(env, name, DEFAULT_CONFIG.responseCacheEnabled),
      'per-key whole-response cache (needs CACHE_ENABLED)',
    ),
    integer('responseCacheMaxBytes', 'RESPONSE_CACHE_MAX_BYTES', 1024, 'memory bound of the response cache, bytes'),
    integer(
      'documentCacheMaxBytes',
      'DOCUMENT_CACHE_MAX_BYTES',
      1024,
      'memory bound of the parsed and validated documents kept (the pipeline 7/8, Apollo 1/8), bytes',
    ),
    setting(
      'executionJit',
      'EXECUTION_JIT',
      (env, name) => boolSetting(env, name, DEFAULT_CONFIG.executionJit),
      'execute HTTP operations and live-query runs with graphql-jit (off: graphql-js)',
    ),
    setting(
      'cacheFile',
      'CACHE_FILE',
      (env, name) => cacheFileSetting(env, name, DEFAULT_CONFIG.cacheFile),
      'file keeping the cache across restarts without Redis; off = none',
      { none: 'off' },
    ),
    integer(
      'cacheSnapshotSeconds',
      'CACHE_SNAPSHOT_SECONDS',
      0,
      'how often the cache file is written, seconds; 0 = only at stop',
    ),
    setting(
      'heapGrowingPercent',
      'HEAP_GROWING_PERCENT',
      (env, name) => intSetting(env, name, DEFAULT_CONFIG.heapGrowingPercent, 0, 300),
      "V8 heap growth past live data before a full collection, percent; 0 = V8's own",
    ),
    setting(
      'refreshAheadShare',
      'REFRESH_AHEAD_SHARE',
      (env, name) => fractionSetting(env, name, DEFAULT_CONFIG.refreshAheadShare),
      "most of a key's budget refresh-ahead may use, 0-1; 0 = off",
    ),
    integer(
      'refreshAheadIdleSeconds',
      'REFRESH_AHEAD_IDLE_SECONDS',
      1,
      'no refresh-ahead for a key unread this long, seconds',
    ),
    setting(
      'loadersEnabled',
      'LOADERS_ENABLED',
      (env, name) => boolSetting(env, name, DEFAULT_CONFIG.loadersEnabled),
      'per-operation DataLoaders (off only for benchmarks)',
    ),
  ]),
  ...section('Per-key limits', [
    integer(
      'rateLimitBackoffSeconds',
      'RATE_LIMIT_BACKOFF_SECONDS',
      1,
      'cooldown after an upstream 429 without Retry-After, seconds',
    ),
    integer('retryAfterMaxSeconds', 'RETRY_AFTER_MAX_SECONDS', 1, 'longest cooldown a Retry-After can impose, seconds'),
    setting(
      'upstreamRateLimit',
      'UPSTREAM_RATE_LIMIT',
      (env, name) => rateSetting(env, name, DEFAULT_CONFIG.upstreamRateLimit),
      'per-key upstream budget: N/SECONDS (N requests in any SECONDS) or off',
      { none: 'off' },
    ),
    integer('upstreamConcurrencyPerKey', 'UPSTREAM_CONCURRENCY_PER_KEY', 1, 'upstream requests in flight per key'),
    integer(
      'upstreamPatienceMs',
      'UPSTREAM_PATIENCE_MS',
      0,
      'how long an operation waits for budget before answering with what it has, ms',
    ),
    integer(
      'upstreamPatienceMaxMs',
      'UPSTREAM_PATIENCE_MAX_MS',
      0,
      'longest wait a request may ask for with Prefer: wait=N, ms',
    ),
    integer('upstreamRetryDelayMs', 'UPSTREAM_RETRY_DELAY_MS', 0, 'base delay of the one retry of a failed GET, ms'),
    setting(
      'keyHashSecret',
      'KEY_HASH_SECRET',
      (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.keyHashSecret,
      'HMAC secret turning API keys into ids; set your own, the same on every replica',
      { secret: true },
    ),
  ]),
  ...section('Query limits', [
    integer('maxUpstreamRequests', 'MAX_UPSTREAM_REQUESTS', 1, 'largest worst-case upstream cost of one operation'),
    integer('maxDepth', 'MAX_DEPTH', 1, 'deepest operation accepted'),
    costAssumed('factories', 'COST_ASSUMED_FACTORIES', 'companies per character the cost estimate assumes'),
    costAssumed('buildings', 'COST_ASSUMED_BUILDINGS', 'buildings per character the cost estimate assumes'),
    costAssumed(
      'bankAccounts',
      'COST_ASSUMED_BANK_ACCOUNTS',
      'bank accounts per company or building the cost estimate assumes',
    ),
    costAssumed('rooms', 'COST_ASSUMED_ROOMS', 'rooms per building the cost estimate assumes'),
    integer('maxResponseBytes', 'MAX_RESPONSE_BYTES', 1024, 'largest GraphQL response, bytes'),
    setting(
      'optionSlots',
      'OPTION_SLOTS',
      (env, name) => intSetting(env, name, DEFAULT_CONFIG.optionSlots, 1, MAX_OPTION_SLOTS),
      `option slots Factory.options reads, 1-${MAX_OPTION_SLOTS}`,
    ),
  ]),
  ...section('Public-site mode and examples', [
    setting(
      'serverApiKey',
      'STATEV_API_KEY',
      (env, name) => rawSetting(env, name) ?? null,
      "the server's API key for trusted documents sent without one",
      { secret: true },
    ),
    setting(
      'serverApiSecret',
      'STATEV_API_SECRET',
      (env, name) => rawSetting(env, name) ?? null,
      'the API secret of that key, for trusted mutations',
      { secret: true },
    ),
    setting(
      'trustedDocumentsPath',
      'TRUSTED_DOCUMENTS',
      (env, name) => fileSetting(env, name),
      'path of the trusted-documents manifest (public-site mode with STATEV_API_KEY)',
    ),
    setting(
      'serveExamples',
      'SERVE_EXAMPLES',
      (env, name) => boolSetting(env, name, DEFAULT_CONFIG.serveExamples),
      'serve examples/ at /examples/',
    ),
  ]),
  ...section('Vault and access tokens', [
    setting(
      'vaultFile',
      'VAULT_FILE',
      (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.vaultFile,
      'file of the vault of StateV keys and access tokens (mode 0600); in Redis when REDIS_URL is set',
    ),
    setting(
      'vaultMasterKey',
      'VAULT_MASTER_KEY',
      (env, name) => masterKeySetting(env, name),
      'vault master key: 32 random bytes, base64 (openssl rand -base64 32); new,old while rotating',
      { secret: true },
    ),
    setting(
      'tokenMaxLifetimeDays',
      'TOKEN_MAX_LIFETIME_DAYS',
      (env, name) => intSetting(env, name, DEFAULT_CONFIG.tokenMaxLifetimeDays, 1, 366),
      'longest lifetime tokens create --expires-in accepts, days, 1-366',
    ),
    setting(
      'publicUrl',
      'PUBLIC_URL',
      (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '', ['http:', 'https:'])),
      "the gateway's URL as browsers reach it: console sign-in links, Secure cookies (https), the Origin it accepts",
    ),
  ]),
  ...section('Payments', [
    setting(
      'paymentsFile',
      'PAYMENTS_FILE',
      (env, name) => cacheFileSetting(env, name, DEFAULT_CONFIG.paymentsFile),
      'file of the payment requests (mode 0600); in Redis when REDIS_URL is set; off = memory only',
      { none: 'off' },
    ),
    integer(
      'paymentOpenRequestsMax',
      'PAYMENT_OPEN_REQUESTS_MAX',
      1,
      'open payment requests one key may have per company; as many closed ones kept',
    ),
    integer('webhookTimeoutMs', 'WEBHOOK_TIMEOUT_MS', 1, 'longest webhook delivery, headers and body, ms'),
    setting(
      'webhookAllowHosts',
      'WEBHOOK_ALLOW_HOSTS',
      (env, name) =>
        (rawSetting(env, name) ?? '')
          .split(',')
          .map((host) => host.trim())
          .filter((host) => host !== ''),
      'comma-separated hosts webhooks may reach although private or loopback',
    ),
  ]),
  ...section('Site documents', [
    integer(
      'siteDocumentMaxBytes',
      'SITE_DOCUMENT_MAX_BYTES',
      2,
      'largest site document, UTF-8 bytes of its canonical JSON',
    ),
    setting(
      'siteDocumentEncoding',
      'SITE_DOCUMENT_ENCODING',
      (env, name) => enumSetting(env, name, DEFAULT_CONFIG.siteDocumentEncoding, SITE_DOCUMENT_ENCODINGS),
      `how site-document chunks are encoded: ${SITE_DOCUMENT_ENCODINGS.join(', ')}`,
    ),
  ]),
  ...section('Redis (several replicas)', [
    setting(
      'redisUrl',
      'REDIS_URL',
      (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '', ['redis:', 'rediss:'])),
      'redis:// or rediss:// URL shared by replicas; none = process memory only',
      { urlWithPassword: true },
    ),
    integer('redisTimeoutMs', 'REDIS_TIMEOUT_MS', 1, 'longest wait for one Redis command, ms'),
    setting(
      'redisPrefix',
      'REDIS_PREFIX',
      (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.redisPrefix,
      'prefix of every Redis key',
    ),
  ]),
  ...section('Subscriptions', [
    integer('subscriptionsMaxPerKey', 'SUBSCRIPTIONS_MAX_PER_KEY', 1, 'open subscriptions per key on one replica'),
    integer(
      'subscriptionsMaxPerConnection',
      'SUBSCRIPTIONS_MAX_PER_CONNECTION',
      1,
      'open subscriptions per WebSocket or SSE connection',
    ),
    integer(
      'operationsMaxPerConnection',
      'OPERATIONS_MAX_PER_CONNECTION',
      1,
      'queries and mutations in flight at once per WebSocket',
    ),
    integer(
      'subscriptionErrorEventsAfter',
      'SUBSCRIPTION_ERROR_EVENTS_AFTER',
      1,
      'failed polls in a row before subscribers get an error event',
    ),
    integer('subscriptionRetryBaseMs', 'SUBSCRIPTION_RETRY_BASE_MS', 1, 'first retry delay after a failed poll, ms'),
    integer(
      'subscriptionBudgetPercent',
      'SUBSCRIPTION_BUDGET_PERCENT',
      1,
      "share of a key's budget its polls may use, percent",
    ),
    integer(
      'subscriptionConnectionInitTimeoutMs',
      'SUBSCRIPTION_CONNECTION_INIT_TIMEOUT_MS',
      1,
      'a WebSocket without connection_init this long is closed, ms',
    ),
    integer(
      'subscriptionKeepAliveMs',
      'SUBSCRIPTION_KEEP_ALIVE_MS',
      1,
      'WebSocket ping and SSE keep-alive interval, ms',
    ),
    integer(
      'liveQueryThrottleMs',
      'LIVE_QUERY_THROTTLE_MS',
      0,
      'shortest time between two results of one live query (@live), ms; 0 = every change at once',
    ),
    integer(
      'liveQuerySubscribersMaxPerAddress',
      'LIVE_QUERY_SUBSCRIBERS_MAX_PER_ADDRESS',
      1,
      'live-query subscribers per client address on one replica',
    ),
    setting(
      'trustedProxies',
      'TRUSTED_PROXIES',
      (env, name) => proxiesSetting(env, name),
      'comma-separated proxies (IP, CIDR, loopback) whose X-Forwarded-For is believed',
    ),
    integer(
      'sseReservationTtlMs',
      'SSE_RESERVATION_TTL_MS',
      1,
      'a graphql-sse reservation (PUT /graphql/stream) not connected this long is freed, ms',
    ),
    integer(
      'sseReservationsMaxPerAddress',
      'SSE_RESERVATIONS_MAX_PER_ADDRESS',
      1,
      'graphql-sse reservations not yet connected per client address (more: 429)',
    ),
    integer(
      'sseReservationsMax',
      'SSE_RESERVATIONS_MAX',
      1,
      'graphql-sse reservations not yet connected in all (more: 429)',
    ),
    integer(
      'sseReservationsMaxPerPeer',
      'SSE_RESERVATIONS_MAX_PER_PEER',
      1,
      'graphql-sse reservations not yet connected per socket peer, a proxy counting as one (more: 429)',
    ),
    integer(
      'streamMaxQueuedBytes',
      'STREAM_MAX_QUEUED_BYTES',
      1024,
      'bytes queued for one SSE or WebSocket stream whose client does not read before it is cut',
    ),
    integer(
      'streamDrainTimeoutMs',
      'STREAM_DRAIN_TIMEOUT_MS',
      1,
      'a stream whose write does not reach the kernel within this time is cut, ms',
    ),
    integer(
      'sseDeadPeerTimeoutMs',
      'SSE_DEAD_PEER_TIMEOUT_MS',
      0,
      'an SSE connection whose sent bytes stay unacknowledged this long is closed (TCP_USER_TIMEOUT), ms; 0 = the system decides',
    ),
  ]),
  ...section('Traces (OpenTelemetry)', [
    otel(
      'endpoint',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '')),
      'OTLP HTTP endpoint (traces to <it>/v1/traces); none = tracing off',
      { urlWithPassword: true },
    ),
    otel(
      'tracesEndpoint',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      (env, name) => (rawSetting(env, name) === undefined ? null : urlSetting(env, name, '')),
      'full OTLP HTTP URL of traces, over the endpoint; also turns tracing on',
      { urlWithPassword: true },
    ),
    otel(
      'headers',
      'OTEL_EXPORTER_OTLP_HEADERS',
      (env, name) => otlpHeadersSetting(env, name),
      'headers of every export, name=value,... (URL-encoded values), e.g. a token',
      { secret: true },
    ),
    otel(
      'serviceName',
      'OTEL_SERVICE_NAME',
      (env, name) => rawSetting(env, name) ?? DEFAULT_CONFIG.tracing.serviceName,
      'service.name of the spans',
    ),
    otel(
      'sampler',
      'OTEL_TRACES_SAMPLER',
      (env, name) => enumSetting(env, name, DEFAULT_CONFIG.tracing.sampler, TRACES_SAMPLERS),
      `which traces are kept: ${TRACES_SAMPLERS.join(', ')}`,
    ),
    otel(
      'samplerRatio',
      'OTEL_TRACES_SAMPLER_ARG',
      (env, name) => fractionSetting(env, name, DEFAULT_CONFIG.tracing.samplerRatio),
      'share of traces the *traceidratio samplers keep, 0-1',
    ),
  ]),
  ...section('Demo only', [
    setting(
      'simulatorPort',
      'SIMULATOR_PORT',
      (env, name) => portSetting(env, name, DEFAULT_CONFIG.simulatorPort),
      'port of the simulator npm run demo starts',
    ),
    setting(
      'simulatorRateLimit',
      'SIMULATOR_RATE_LIMIT',
      (env, name) => rateSetting(env, name, DEFAULT_CONFIG.simulatorRateLimit),
      "per-key limit of the demo's simulator: N/SECONDS or off",
      { none: 'off' },
    ),
  ]),
];
