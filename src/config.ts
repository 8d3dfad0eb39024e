/**
 * The gateway's settings, read once from the environment.
 *
 * This module is the only reader of `process.env`: everything else receives a
 * {@link GatewayConfig}. Every setting has a default, and each one is listed in
 * docs/configuration.md.
 */
import type { CacheKind } from './upstream/endpoints';

/** Every setting of the gateway, with units in the names or the docs. */
export interface GatewayConfig {
  /** HTTP port (`PORT`, default 4000; 0 picks a free port). */
  port: number;
  /** Bind address (`HOST`, default `127.0.0.1`). */
  host: string;
  /** Upstream base URL including `/req` (`STATEV_BASE_URL`, default `https://api.statev.de/req`). */
  upstreamBaseUrl: string;
  /** Per upstream request: connect, headers and body timeouts, in ms (`UPSTREAM_TIMEOUT_MS`, default 10000). */
  upstreamTimeoutMs: number;
  /** Most open connections to the upstream, for all keys together (`UPSTREAM_CONNECTIONS`, default 256). */
  upstreamConnections: number;
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

  /** Cross-request cache of upstream GETs on or off (`CACHE_ENABLED`, default true; off only for benchmarks). */
  cacheEnabled: boolean;
  /** Memory bound of the cache, bytes of cached JSON (`CACHE_MAX_BYTES`, default 67108864 = 64 MiB). */
  cacheMaxBytes: number;
  /** Per-key whole-response cache on or off (`RESPONSE_CACHE_ENABLED`, default true; needs `CACHE_ENABLED`). */
  responseCacheEnabled: boolean;
  /** Memory bound of the response cache, bytes (`RESPONSE_CACHE_MAX_BYTES`, default 33554432 = 32 MiB). */
  responseCacheMaxBytes: number;
  /** Freshness per endpoint kind, seconds (`CACHE_TTL_<KIND>_SECONDS`). */
  cacheTtlSeconds: Record<CacheKind, number>;
  /** Oldest cached value served when the upstream fails or rate-limits, seconds (`STALE_MAX_AGE_SECONDS`, default 3600). */
  staleMaxAgeSeconds: number;
  /** Cooldown after an upstream 429 without `Retry-After`, seconds (`RATE_LIMIT_BACKOFF_SECONDS`, default 60). */
  rateLimitBackoffSeconds: number;
  /** Per-key upstream budget, requests per minute; 0 = off (`UPSTREAM_RATE_PER_MINUTE`, default 0). */
  upstreamRatePerMinute: number;
  /** Burst of that budget (`UPSTREAM_RATE_BURST`, default: the per-minute rate). */
  upstreamRateBurst: number;
  /** Upstream requests in flight per key (`UPSTREAM_CONCURRENCY_PER_KEY`, default 6). */
  upstreamConcurrencyPerKey: number;
  /** Longest wait for budget or a slot before `RATE_LIMITED`, ms (`UPSTREAM_QUEUE_TIMEOUT_MS`, default 2000). */
  upstreamQueueTimeoutMs: number;
  /** Base delay of the one GET retry, ms; actual delay is 50–150 % of it (`UPSTREAM_RETRY_DELAY_MS`, default 200). */
  upstreamRetryDelayMs: number;
  /** Secret for hashing API keys into cache keys, logs and metrics (`KEY_HASH_SECRET`). */
  keyHashSecret: string;
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
  /** Trusted-documents manifest `{hash: document}` (`TRUSTED_DOCUMENTS`, a file path, default none). Public mode needs it and `STATEV_API_KEY`. */
  trustedDocumentsPath: string | null;
  /** Serve `examples/` at `/examples/` (`SERVE_EXAMPLES`, default false; the demo turns it on). */
  serveExamples: boolean;
  /** Port of the built-in simulator started by `npm run demo` (`SIMULATOR_PORT`, default 4010). */
  simulatorPort: number;
  /** Redis shared by replicas for cache, cooldowns, budget and locks (`REDIS_URL`, default none: process memory only). */
  redisUrl: string | null;
  /** Longest wait for one Redis command before the gateway goes on without it, ms (`REDIS_TIMEOUT_MS`, default 100). */
  redisTimeoutMs: number;
  /** Prefix of every Redis key (`REDIS_PREFIX`, default `statev:`). */
  redisPrefix: string;
}

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
  upstreamConnections: 256,
  corsOrigins: [],
  introspection: true,
  nodeEnv: 'production',
  maxBodyBytes: 1_048_576,
  shutdownGracePeriodMs: 10_000,
  cacheEnabled: true,
  cacheMaxBytes: 64 * 1024 * 1024,
  responseCacheEnabled: true,
  responseCacheMaxBytes: 32 * 1024 * 1024,
  cacheTtlSeconds: Object.freeze({ lists: 600, details: 300, options: 300, bankAccounts: 120, stock: 60, activity: 60 }),
  staleMaxAgeSeconds: 3600,
  rateLimitBackoffSeconds: 60,
  upstreamRatePerMinute: 0,
  upstreamRateBurst: 0,
  upstreamConcurrencyPerKey: 6,
  upstreamQueueTimeoutMs: 2000,
  upstreamRetryDelayMs: 200,
  keyHashSecret: 'statev-gateway-key-hash',
  maxUpstreamRequests: 1000,
  maxDepth: 12,
  costAssumptions: Object.freeze({ factories: 10, buildings: 10, bankAccounts: 5, rooms: 10 }),
  loadersEnabled: true,
  logLevel: 'info',
  serverApiKey: null,
  serverApiSecret: null,
  trustedDocumentsPath: null,
  serveExamples: false,
  simulatorPort: 4010,
  redisUrl: null,
  redisTimeoutMs: 100,
  redisPrefix: 'statev:',
}) as Readonly<GatewayConfig>;

/** The env variable of each cache kind's TTL. */
export const TTL_SETTINGS: Readonly<Record<CacheKind, string>> = Object.freeze({
  lists: 'CACHE_TTL_LISTS_SECONDS',
  details: 'CACHE_TTL_DETAILS_SECONDS',
  options: 'CACHE_TTL_OPTIONS_SECONDS',
  bankAccounts: 'CACHE_TTL_BANK_ACCOUNTS_SECONDS',
  stock: 'CACHE_TTL_STOCK_SECONDS',
  activity: 'CACHE_TTL_ACTIVITY_SECONDS',
});

type Env = Readonly<Record<string, string | undefined>>;

function intSetting(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`Setting ${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`Setting ${name} must be true or false, got "${raw}"`);
}

function urlSetting(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const url = new URL(raw); // throws on a malformed URL: better at start than at the first request
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Setting ${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * Reads the settings from an environment (default `process.env`) and applies `overrides` last.
 *
 * @throws Error naming the setting when a value is malformed, so a bad deployment fails at start.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  const ratePerMinute = intSetting(env, 'UPSTREAM_RATE_PER_MINUTE', DEFAULT_CONFIG.upstreamRatePerMinute, 0);
  const config: GatewayConfig = {
    port: intSetting(env, 'PORT', DEFAULT_CONFIG.port, 0),
    host: env.HOST?.trim() || DEFAULT_CONFIG.host,
    upstreamBaseUrl: urlSetting(env, 'STATEV_BASE_URL', DEFAULT_CONFIG.upstreamBaseUrl),
    upstreamTimeoutMs: intSetting(env, 'UPSTREAM_TIMEOUT_MS', DEFAULT_CONFIG.upstreamTimeoutMs, 1),
    upstreamConnections: intSetting(env, 'UPSTREAM_CONNECTIONS', DEFAULT_CONFIG.upstreamConnections, 1),
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
    introspection: boolSetting(env, 'INTROSPECTION', DEFAULT_CONFIG.introspection),
    nodeEnv: env.NODE_ENV?.trim() || DEFAULT_CONFIG.nodeEnv,
    maxBodyBytes: intSetting(env, 'MAX_BODY_BYTES', DEFAULT_CONFIG.maxBodyBytes, 1024),
    shutdownGracePeriodMs: intSetting(env, 'SHUTDOWN_GRACE_PERIOD_MS', DEFAULT_CONFIG.shutdownGracePeriodMs, 0),
    cacheEnabled: boolSetting(env, 'CACHE_ENABLED', DEFAULT_CONFIG.cacheEnabled),
    cacheMaxBytes: intSetting(env, 'CACHE_MAX_BYTES', DEFAULT_CONFIG.cacheMaxBytes, 1024),
    responseCacheEnabled: boolSetting(env, 'RESPONSE_CACHE_ENABLED', DEFAULT_CONFIG.responseCacheEnabled),
    responseCacheMaxBytes: intSetting(env, 'RESPONSE_CACHE_MAX_BYTES', DEFAULT_CONFIG.responseCacheMaxBytes, 1024),
    cacheTtlSeconds: Object.fromEntries(
      (Object.keys(TTL_SETTINGS) as CacheKind[]).map((kind) => [kind, intSetting(env, TTL_SETTINGS[kind], DEFAULT_CONFIG.cacheTtlSeconds[kind], 0)]),
    ) as Record<CacheKind, number>,
    staleMaxAgeSeconds: intSetting(env, 'STALE_MAX_AGE_SECONDS', DEFAULT_CONFIG.staleMaxAgeSeconds, 0),
    rateLimitBackoffSeconds: intSetting(env, 'RATE_LIMIT_BACKOFF_SECONDS', DEFAULT_CONFIG.rateLimitBackoffSeconds, 1),
    upstreamRatePerMinute: ratePerMinute,
    upstreamRateBurst: intSetting(env, 'UPSTREAM_RATE_BURST', ratePerMinute, 0),
    upstreamConcurrencyPerKey: intSetting(env, 'UPSTREAM_CONCURRENCY_PER_KEY', DEFAULT_CONFIG.upstreamConcurrencyPerKey, 1),
    upstreamQueueTimeoutMs: intSetting(env, 'UPSTREAM_QUEUE_TIMEOUT_MS', DEFAULT_CONFIG.upstreamQueueTimeoutMs, 0),
    upstreamRetryDelayMs: intSetting(env, 'UPSTREAM_RETRY_DELAY_MS', DEFAULT_CONFIG.upstreamRetryDelayMs, 0),
    keyHashSecret: env.KEY_HASH_SECRET?.trim() || DEFAULT_CONFIG.keyHashSecret,
    maxUpstreamRequests: intSetting(env, 'MAX_UPSTREAM_REQUESTS', DEFAULT_CONFIG.maxUpstreamRequests, 1),
    maxDepth: intSetting(env, 'MAX_DEPTH', DEFAULT_CONFIG.maxDepth, 1),
    costAssumptions: {
      factories: intSetting(env, 'COST_ASSUMED_FACTORIES', DEFAULT_CONFIG.costAssumptions.factories, 1),
      buildings: intSetting(env, 'COST_ASSUMED_BUILDINGS', DEFAULT_CONFIG.costAssumptions.buildings, 1),
      bankAccounts: intSetting(env, 'COST_ASSUMED_BANK_ACCOUNTS', DEFAULT_CONFIG.costAssumptions.bankAccounts, 1),
      rooms: intSetting(env, 'COST_ASSUMED_ROOMS', DEFAULT_CONFIG.costAssumptions.rooms, 1),
    },
    loadersEnabled: boolSetting(env, 'LOADERS_ENABLED', DEFAULT_CONFIG.loadersEnabled),
    logLevel: env.LOG_LEVEL?.trim() || DEFAULT_CONFIG.logLevel,
    serverApiKey: env.STATEV_API_KEY?.trim() || null,
    serverApiSecret: env.STATEV_API_SECRET?.trim() || null,
    trustedDocumentsPath: env.TRUSTED_DOCUMENTS?.trim() || null,
    serveExamples: boolSetting(env, 'SERVE_EXAMPLES', DEFAULT_CONFIG.serveExamples),
    simulatorPort: intSetting(env, 'SIMULATOR_PORT', DEFAULT_CONFIG.simulatorPort, 0),
    redisUrl: env.REDIS_URL?.trim() || null,
    redisTimeoutMs: intSetting(env, 'REDIS_TIMEOUT_MS', DEFAULT_CONFIG.redisTimeoutMs, 1),
    redisPrefix: env.REDIS_PREFIX?.trim() || DEFAULT_CONFIG.redisPrefix,
  };
  return { ...config, ...overrides };
}
