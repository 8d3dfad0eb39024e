/**
 * The gateway's settings, read once from the environment.
 *
 * This module is the only reader of `process.env`: everything else receives a
 * {@link GatewayConfig}. Every setting has a default, and each one is listed in
 * docs/configuration.md.
 */
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { MAX_OPTION_SLOTS } from './upstream/endpoints';
import type { CacheKind } from './upstream/endpoints';

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
  /** Largest upstream response body, enforced while streaming, in bytes (`UPSTREAM_MAX_BODY_BYTES`, default 5242880 = 5 MiB). */
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
  /** Longest a client may take to send a request's headers, ms; then 408 and the connection closes (`HTTP_HEADERS_TIMEOUT_MS`, default 10000; at most `HTTP_REQUEST_TIMEOUT_MS`). */
  httpHeadersTimeoutMs: number;
  /** Longest a client may take to send a whole request, headers and body, ms; then 408 and the connection closes (`HTTP_REQUEST_TIMEOUT_MS`, default 30000). */
  httpRequestTimeoutMs: number;
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
  /** Largest site document, UTF-8 bytes of its canonical JSON (`SITE_DOCUMENT_MAX_BYTES`, default 65536). */
  siteDocumentMaxBytes: number;
  /** How site-document chunks are compressed and encoded (`SITE_DOCUMENT_ENCODING`, default `deflate-base64url`; see docs/site-documents.md). */
  siteDocumentEncoding: SiteDocumentEncoding;
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
  upstreamConnections: 0,
  upstreamMaxBodyBytes: 5 * 1024 * 1024,
  corsOrigins: [],
  introspection: true,
  nodeEnv: 'production',
  maxBodyBytes: 1_048_576,
  shutdownGracePeriodMs: 10_000,
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
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
  siteDocumentMaxBytes: 65_536,
  siteDocumentEncoding: 'deflate-base64url',
  maxResponseBytes: 16 * 1024 * 1024,
  maxDepth: 12,
  costAssumptions: Object.freeze({ factories: 10, buildings: 10, bankAccounts: 5, rooms: 10 }),
  loadersEnabled: true,
  logLevel: 'info',
  serverApiKey: null,
  serverApiSecret: null,
  trustedDocumentsPath: null,
  serveExamples: false,
  playgroundApiKey: null,
  simulatorPort: 4010,
  simulatorRateLimit: { requests: 10, windowSeconds: 60 },
  redisUrl: null,
  redisTimeoutMs: 100,
  redisPrefix: 'statev:',
  subscriptionsMaxPerKey: 20,
  subscriptionsMaxPerConnection: 10,
  subscriptionErrorEventsAfter: 3,
  subscriptionRetryBaseMs: 5000,
  subscriptionBudgetPercent: 50,
  subscriptionConnectionInitTimeoutMs: 10_000,
  subscriptionKeepAliveMs: 12_000,
  cacheFile: '.data/upstream-cache',
  cacheSnapshotSeconds: 60,
  heapGrowingPercent: 30,
  refreshAheadShare: 0.7,
  refreshAheadIdleSeconds: 600,
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

/** The environment a configuration is read from (`process.env` by default). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A setting with a bad value. The message names the setting, the value and what is
 * expected, e.g. `Setting PORT="70000" is invalid: expected an integer from 0 to 65535.`;
 * `npm start` and `npm run demo` print it and exit with code 1.
 */
export class ConfigError extends Error {
  constructor(
    /** The environment variable, e.g. `PORT`. */
    readonly setting: string,
    /** The value as given. */
    readonly value: string,
    /** What would have been accepted, e.g. `an integer from 0 to 65535`. */
    readonly expected: string,
  ) {
    super(`Setting ${setting}="${value}" is invalid: expected ${expected}.`);
    this.name = 'ConfigError';
  }
}

/**
 * The raw value of a setting, trimmed; `undefined` when unset or blank (the default applies).
 * Use it for settings that accept any text; the helpers below build on it.
 */
export function rawSetting(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

/** A whole number from `min` to `max` (decimal digits only: `1e3`, `0x10` and `12.5` are refused). */
export function intSetting(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, raw, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`);
  }
  return value;
}

/** A rate: at most `requests` requests in any `windowSeconds` seconds. */
export interface RateSetting {
  /** Requests per window, ≥ 1. */
  requests: number;
  /** Window length, seconds, > 0. */
  windowSeconds: number;
}

/** A rate written `N/SECONDS` (e.g. `10/60`: 10 requests in any 60 s), or `off` (null). */
export function rateSetting(env: Env, name: string, fallback: RateSetting | null): RateSetting | null {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'off') return null;
  const parts = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(raw);
  const requests = Number(parts?.[1]);
  const windowSeconds = Number(parts?.[2]);
  if (!parts || !Number.isSafeInteger(requests) || requests < 1 || !(windowSeconds > 0)) {
    throw new ConfigError(name, raw, "'off' or N/SECONDS with N >= 1 and SECONDS > 0, e.g. 10/60");
  }
  return { requests, windowSeconds };
}

/** A TCP port, 0 to 65535 (0 picks a free port). */
export function portSetting(env: Env, name: string, fallback: number): number {
  return intSetting(env, name, fallback, 0, 65535);
}

/** `true/false`, `1/0`, `yes/no` or `on/off`, in any case. */
export function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(name, raw, 'true or false (also 1/0, yes/no, on/off)');
}

/** One of a fixed list of words (compared as given). */
export function enumSetting<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(name, raw, `one of ${allowed.join(', ')}`);
  return raw as T;
}

/** An absolute URL with one of the given schemes (e.g. `['http:', 'https:']`); trailing slashes are removed. */
export function urlSetting(env: Env, name: string, fallback: string, protocols: readonly string[] = ['http:', 'https:']): string {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const expected = `an absolute ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')} URL`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, raw, expected);
  }
  if (!protocols.includes(url.protocol) || url.hostname === '') throw new ConfigError(name, raw, expected);
  return raw.replace(/\/+$/, '');
}

/** A host name (RFC 1123 labels) or an IPv4/IPv6 address without brackets, to listen on or connect to. */
export function hostSetting(env: Env, name: string, fallback: string): string {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
  if (isIP(raw) === 0 && !(raw.length <= 253 && raw.split('.').every((part) => label.test(part)))) {
    throw new ConfigError(name, raw, 'a host name or an IP address, e.g. 127.0.0.1, 0.0.0.0, :: or localhost');
  }
  return raw;
}

/** The path of an existing, readable file (relative paths are taken from the working directory). */
export function fileSetting(env: Env, name: string): string | null {
  const raw = rawSetting(env, name);
  if (raw === undefined) return null;
  try {
    if (!statSync(raw).isFile()) throw new Error('not a file');
    accessSync(raw, fsConstants.R_OK);
  } catch {
    throw new ConfigError(name, raw, 'the path of an existing, readable file');
  }
  return raw;
}

/** A decimal number from 0 to 1, e.g. `0.7`. */
export function fractionSetting(env: Env, name: string, fallback: number): number {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(raw) || !(value >= 0 && value <= 1)) throw new ConfigError(name, raw, 'a number from 0 to 1, such as 0.7');
  return value;
}

/** A path for a file the gateway writes (its folder is created), or `off` / `false` / `none` for none. */
export function cacheFileSetting(env: Env, name: string, fallback: string | null): string | null {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  if (['off', 'false', 'none', '0'].includes(raw.toLowerCase())) return null;
  if (raw.endsWith('/')) throw new ConfigError(name, raw, 'a file path (not a folder), or off');
  return raw;
}

/**
 * A comma-separated list of origins a browser may send in `Origin`: each a bare
 * `scheme://host[:port]` (http or https, no path, no trailing slash, no query), or `*` for any.
 */
export function originsSetting(env: Env, name: string): string[] {
  const entries = (rawSetting(env, name) ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (entry === '*') continue;
    const reason = originProblem(entry);
    if (reason) throw new ConfigError(name, entry, `a bare origin scheme://host[:port] such as https://example.com, or * (${reason}; a browser's Origin header never matches it)`);
  }
  return entries;
}

/** Why an origin entry can never equal a browser's `Origin` header, or null when it can. */
function originProblem(entry: string): string | null {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the scheme must be http or https';
  if (url.username || url.password) return 'it has credentials';
  if (url.search || entry.includes('?')) return 'it has a query';
  if (url.hash || entry.includes('#')) return 'it has a fragment';
  if (entry.endsWith('/')) return 'it has a trailing slash';
  if (url.pathname !== '/') return 'it has a path';
  if (url.origin !== entry) return `it is not written as browsers send it (${url.origin})`;
  return null;
}

/** How site-document chunks may be compressed and encoded (`SITE_DOCUMENT_ENCODING`), default first; see `site-document.codec.ts`. */
export const SITE_DOCUMENT_ENCODINGS = ['deflate-base64url', 'brotli-base64url', 'brotli-base32768'] as const;
/** One of {@link SITE_DOCUMENT_ENCODINGS}. */
export type SiteDocumentEncoding = (typeof SITE_DOCUMENT_ENCODINGS)[number];

/** The pino log levels `LOG_LEVEL` accepts. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Reads the settings from an environment (default `process.env`) and applies `overrides` last.
 *
 * Every setting is validated here, with the helpers above (use them for new settings).
 *
 * @throws ConfigError naming the setting, the value and what is expected, so a bad deployment fails at start.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  for (const removed of ['UPSTREAM_RATE_PER_MINUTE', 'UPSTREAM_RATE_BURST']) {
    const raw = rawSetting(env, removed);
    if (raw !== undefined) throw new ConfigError(removed, raw, 'nothing: it was replaced by UPSTREAM_RATE_LIMIT=N/SECONDS (a sliding window, e.g. 10/60)');
  }
  const queueTimeout = rawSetting(env, 'UPSTREAM_QUEUE_TIMEOUT_MS');
  if (queueTimeout !== undefined) throw new ConfigError('UPSTREAM_QUEUE_TIMEOUT_MS', queueTimeout, 'nothing: it was replaced by UPSTREAM_PATIENCE_MS (ms an operation waits for budget, default 1500)');
  const config: GatewayConfig = {
    port: portSetting(env, 'PORT', DEFAULT_CONFIG.port),
    host: hostSetting(env, 'HOST', DEFAULT_CONFIG.host),
    upstreamBaseUrl: urlSetting(env, 'STATEV_BASE_URL', DEFAULT_CONFIG.upstreamBaseUrl),
    upstreamTimeoutMs: intSetting(env, 'UPSTREAM_TIMEOUT_MS', DEFAULT_CONFIG.upstreamTimeoutMs, 1),
    upstreamConnections: intSetting(env, 'UPSTREAM_CONNECTIONS', DEFAULT_CONFIG.upstreamConnections, 0),
    upstreamMaxBodyBytes: intSetting(env, 'UPSTREAM_MAX_BODY_BYTES', DEFAULT_CONFIG.upstreamMaxBodyBytes, 1024),
    corsOrigins: originsSetting(env, 'CORS_ORIGINS'),
    introspection: boolSetting(env, 'INTROSPECTION', DEFAULT_CONFIG.introspection),
    nodeEnv: rawSetting(env, 'NODE_ENV') ?? DEFAULT_CONFIG.nodeEnv,
    maxBodyBytes: intSetting(env, 'MAX_BODY_BYTES', DEFAULT_CONFIG.maxBodyBytes, 1024),
    shutdownGracePeriodMs: intSetting(env, 'SHUTDOWN_GRACE_PERIOD_MS', DEFAULT_CONFIG.shutdownGracePeriodMs, 0),
    httpHeadersTimeoutMs: intSetting(env, 'HTTP_HEADERS_TIMEOUT_MS', DEFAULT_CONFIG.httpHeadersTimeoutMs, 1),
    httpRequestTimeoutMs: intSetting(env, 'HTTP_REQUEST_TIMEOUT_MS', DEFAULT_CONFIG.httpRequestTimeoutMs, 1),
    maxVariablesBytes: intSetting(env, 'MAX_VARIABLES_BYTES', DEFAULT_CONFIG.maxVariablesBytes, 1024),
    cacheEnabled: boolSetting(env, 'CACHE_ENABLED', DEFAULT_CONFIG.cacheEnabled),
    cacheMaxBytes: intSetting(env, 'CACHE_MAX_BYTES', DEFAULT_CONFIG.cacheMaxBytes, 1024),
    responseCacheEnabled: boolSetting(env, 'RESPONSE_CACHE_ENABLED', DEFAULT_CONFIG.responseCacheEnabled),
    responseCacheMaxBytes: intSetting(env, 'RESPONSE_CACHE_MAX_BYTES', DEFAULT_CONFIG.responseCacheMaxBytes, 1024),
    documentCacheMaxBytes: intSetting(env, 'DOCUMENT_CACHE_MAX_BYTES', DEFAULT_CONFIG.documentCacheMaxBytes, 1024),
    cacheTtlSeconds: Object.fromEntries(
      (Object.keys(TTL_SETTINGS) as CacheKind[]).map((kind) => [kind, intSetting(env, TTL_SETTINGS[kind], DEFAULT_CONFIG.cacheTtlSeconds[kind], 0)]),
    ) as Record<CacheKind, number>,
    staleMaxAgeSeconds: intSetting(env, 'STALE_MAX_AGE_SECONDS', DEFAULT_CONFIG.staleMaxAgeSeconds, 0),
    retryAfterMaxSeconds: intSetting(env, 'RETRY_AFTER_MAX_SECONDS', DEFAULT_CONFIG.retryAfterMaxSeconds, 1),
    rateLimitBackoffSeconds: intSetting(env, 'RATE_LIMIT_BACKOFF_SECONDS', DEFAULT_CONFIG.rateLimitBackoffSeconds, 1),
    upstreamRateLimit: rateSetting(env, 'UPSTREAM_RATE_LIMIT', DEFAULT_CONFIG.upstreamRateLimit),
    upstreamConcurrencyPerKey: intSetting(env, 'UPSTREAM_CONCURRENCY_PER_KEY', DEFAULT_CONFIG.upstreamConcurrencyPerKey, 1),
    upstreamPatienceMs: intSetting(env, 'UPSTREAM_PATIENCE_MS', DEFAULT_CONFIG.upstreamPatienceMs, 0),
    upstreamPatienceMaxMs: intSetting(env, 'UPSTREAM_PATIENCE_MAX_MS', DEFAULT_CONFIG.upstreamPatienceMaxMs, 0),
    upstreamRetryDelayMs: intSetting(env, 'UPSTREAM_RETRY_DELAY_MS', DEFAULT_CONFIG.upstreamRetryDelayMs, 0),
    keyHashSecret: rawSetting(env, 'KEY_HASH_SECRET') ?? DEFAULT_CONFIG.keyHashSecret,
    maxUpstreamRequests: intSetting(env, 'MAX_UPSTREAM_REQUESTS', DEFAULT_CONFIG.maxUpstreamRequests, 1),
    maxResponseBytes: intSetting(env, 'MAX_RESPONSE_BYTES', DEFAULT_CONFIG.maxResponseBytes, 1024),
    optionSlots: intSetting(env, 'OPTION_SLOTS', DEFAULT_CONFIG.optionSlots, 1, MAX_OPTION_SLOTS),
    siteDocumentMaxBytes: intSetting(env, 'SITE_DOCUMENT_MAX_BYTES', DEFAULT_CONFIG.siteDocumentMaxBytes, 2),
    siteDocumentEncoding: enumSetting(env, 'SITE_DOCUMENT_ENCODING', DEFAULT_CONFIG.siteDocumentEncoding, SITE_DOCUMENT_ENCODINGS),
    maxDepth: intSetting(env, 'MAX_DEPTH', DEFAULT_CONFIG.maxDepth, 1),
    costAssumptions: {
      factories: intSetting(env, 'COST_ASSUMED_FACTORIES', DEFAULT_CONFIG.costAssumptions.factories, 1),
      buildings: intSetting(env, 'COST_ASSUMED_BUILDINGS', DEFAULT_CONFIG.costAssumptions.buildings, 1),
      bankAccounts: intSetting(env, 'COST_ASSUMED_BANK_ACCOUNTS', DEFAULT_CONFIG.costAssumptions.bankAccounts, 1),
      rooms: intSetting(env, 'COST_ASSUMED_ROOMS', DEFAULT_CONFIG.costAssumptions.rooms, 1),
    },
    loadersEnabled: boolSetting(env, 'LOADERS_ENABLED', DEFAULT_CONFIG.loadersEnabled),
    logLevel: enumSetting(env, 'LOG_LEVEL', DEFAULT_CONFIG.logLevel, LOG_LEVELS),
    serverApiKey: rawSetting(env, 'STATEV_API_KEY') ?? null,
    serverApiSecret: rawSetting(env, 'STATEV_API_SECRET') ?? null,
    trustedDocumentsPath: fileSetting(env, 'TRUSTED_DOCUMENTS'),
    serveExamples: boolSetting(env, 'SERVE_EXAMPLES', DEFAULT_CONFIG.serveExamples),
    playgroundApiKey: DEFAULT_CONFIG.playgroundApiKey,
    simulatorPort: portSetting(env, 'SIMULATOR_PORT', DEFAULT_CONFIG.simulatorPort),
    simulatorRateLimit: rateSetting(env, 'SIMULATOR_RATE_LIMIT', DEFAULT_CONFIG.simulatorRateLimit),
    redisUrl: rawSetting(env, 'REDIS_URL') === undefined ? null : urlSetting(env, 'REDIS_URL', '', ['redis:', 'rediss:']),
    redisTimeoutMs: intSetting(env, 'REDIS_TIMEOUT_MS', DEFAULT_CONFIG.redisTimeoutMs, 1),
    redisPrefix: rawSetting(env, 'REDIS_PREFIX') ?? DEFAULT_CONFIG.redisPrefix,
    subscriptionsMaxPerKey: intSetting(env, 'SUBSCRIPTIONS_MAX_PER_KEY', DEFAULT_CONFIG.subscriptionsMaxPerKey, 1),
    subscriptionsMaxPerConnection: intSetting(env, 'SUBSCRIPTIONS_MAX_PER_CONNECTION', DEFAULT_CONFIG.subscriptionsMaxPerConnection, 1),
    subscriptionErrorEventsAfter: intSetting(env, 'SUBSCRIPTION_ERROR_EVENTS_AFTER', DEFAULT_CONFIG.subscriptionErrorEventsAfter, 1),
    subscriptionRetryBaseMs: intSetting(env, 'SUBSCRIPTION_RETRY_BASE_MS', DEFAULT_CONFIG.subscriptionRetryBaseMs, 1),
    subscriptionBudgetPercent: intSetting(env, 'SUBSCRIPTION_BUDGET_PERCENT', DEFAULT_CONFIG.subscriptionBudgetPercent, 1),
    subscriptionConnectionInitTimeoutMs: intSetting(env, 'SUBSCRIPTION_CONNECTION_INIT_TIMEOUT_MS', DEFAULT_CONFIG.subscriptionConnectionInitTimeoutMs, 1),
    subscriptionKeepAliveMs: intSetting(env, 'SUBSCRIPTION_KEEP_ALIVE_MS', DEFAULT_CONFIG.subscriptionKeepAliveMs, 1),
    cacheFile: cacheFileSetting(env, 'CACHE_FILE', DEFAULT_CONFIG.cacheFile),
    cacheSnapshotSeconds: intSetting(env, 'CACHE_SNAPSHOT_SECONDS', DEFAULT_CONFIG.cacheSnapshotSeconds, 0),
    heapGrowingPercent: intSetting(env, 'HEAP_GROWING_PERCENT', DEFAULT_CONFIG.heapGrowingPercent, 0, 300),
    refreshAheadShare: fractionSetting(env, 'REFRESH_AHEAD_SHARE', DEFAULT_CONFIG.refreshAheadShare),
    refreshAheadIdleSeconds: intSetting(env, 'REFRESH_AHEAD_IDLE_SECONDS', DEFAULT_CONFIG.refreshAheadIdleSeconds, 1),
  };
  return { ...config, ...overrides };
}
