/**
 * The gateway's settings, read once from the environment.
 *
 * This module is the only reader of `process.env`: everything else receives a
 * {@link GatewayConfig}. Every setting has a default, and each one is listed in
 * the README's configuration table.
 */

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
  /** Most open connections to the upstream (`UPSTREAM_CONNECTIONS`, default 32). */
  upstreamConnections: number;
  /** Allowed CORS origins (`CORS_ORIGINS`, comma-separated, `*` allowed, default none). */
  corsOrigins: string[];
  /** Whether introspection is answered (`INTROSPECTION`, default true). */
  introspection: boolean;
  /** `NODE_ENV`; stack traces appear in errors only when it is `development`. */
  nodeEnv: string;
  /** Largest request body accepted, in bytes (`MAX_BODY_BYTES`, default 1048576). */
  maxBodyBytes: number;
}

/** The defaults, as the README's configuration table lists them. */
export const DEFAULT_CONFIG: Readonly<GatewayConfig> = Object.freeze({
  port: 4000,
  host: '127.0.0.1',
  upstreamBaseUrl: 'https://api.statev.de/req',
  upstreamTimeoutMs: 10_000,
  upstreamConnections: 32,
  corsOrigins: [],
  introspection: true,
  nodeEnv: 'production',
  maxBodyBytes: 1_048_576,
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
  };
  return { ...config, ...overrides };
}
