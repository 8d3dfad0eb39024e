/**
 * The readers of setting values: each takes the environment and a variable's name, and
 * returns the value or throws a {@link ConfigError} naming the variable, the value and what
 * is accepted. `src/config/index.ts` holds the table of settings that uses them (and is the only
 * reader of `process.env`: these read the environment they are given).
 */
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

/** The environment a configuration is read from (`process.env` by default). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A setting with a bad value. The message names the setting, the value and what is
 * expected, e.g. `Setting PORT="70000" is invalid: expected an integer from 0 to 65535.`;
 * `npm start`, `statev-gateway` and `npm run demo` print it and exit with code 2.
 */
export class ConfigError extends Error {
  /** The exit code of a program that stops on it: 2, a usage error. */
  readonly exitCode = 2;

  constructor(
    /** The environment variable, e.g. `PORT`, or the flag, e.g. `--port`, that held the value. */
    readonly setting: string,
    /** The value as given. */
    readonly value: string,
    /** What would have been accepted, e.g. `an integer from 0 to 65535`. */
    readonly expected: string,
  ) {
    super(`${setting.startsWith('--') ? 'Flag' : 'Setting'} ${setting}="${value}" is invalid: expected ${expected}.`);
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
export function intSetting(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(
      name,
      raw,
      max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`,
    );
  }
  return value;
}

/** Node's longest timer, ms (2^31-1, about 24.8 days): a longer delay fires after 1 ms instead. */
const MAX_TIMER_MS = 2_147_483_647;

/** The longest whole number of seconds that still fits {@link MAX_TIMER_MS}. */
const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** Settings in seconds that become timers (×1000), so they are bounded like the `_MS` settings. */
export const TIMER_SECONDS_SETTINGS: ReadonlySet<string> = new Set([
  'CACHE_SNAPSHOT_SECONDS',
  'RATE_LIMIT_BACKOFF_SECONDS',
  'RETRY_AFTER_MAX_SECONDS',
]);

/**
 * A duration that becomes a timer: a whole number from `min` to {@link MAX_TIMER_MS} ms
 * (`unit` `ms`) or {@link MAX_TIMER_SECONDS} s (`unit` `seconds`). Node clamps a longer
 * timer to 1 ms, so a larger value is refused at start, naming the bound.
 */
export function durationSetting(env: Env, name: string, fallback: number, min: number, unit: 'ms' | 'seconds'): number {
  const max = unit === 'ms' ? MAX_TIMER_MS : MAX_TIMER_SECONDS;
  try {
    return intSetting(env, name, fallback, min, max);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      name,
      error.value,
      `an integer from ${min} to ${max} (${unit}; Node's timers wait at most ${MAX_TIMER_MS} ms, about 24.8 days)`,
    );
  }
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
  if (windowSeconds > MAX_TIMER_SECONDS) {
    throw new ConfigError(
      name,
      raw,
      `N/SECONDS with SECONDS at most ${MAX_TIMER_SECONDS} (Node's timers wait at most ${MAX_TIMER_MS} ms, about 24.8 days)`,
    );
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

/**
 * A URL as it may be printed or logged: the password of its credentials (or a user name
 * given alone, which may be a token) replaced by `redacted`, e.g.
 * `https://user:redacted@api.example/req`. Text that is not a URL or holds no credentials
 * is returned as it is; one that does not parse loses whatever stands between `//` and `@`.
 */
export function redactUrlCredentials(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text.replace(/\/\/[^/?#\s]*@/g, '//redacted@');
  }
  if (!url.password && !url.username) return text;
  if (url.password) url.password = 'redacted';
  else url.username = 'redacted';
  return url.href;
}

/** An absolute URL with one of the given schemes (e.g. `['http:', 'https:']`); trailing slashes are removed. */
export function urlSetting(
  env: Env,
  name: string,
  fallback: string,
  protocols: readonly string[] = ['http:', 'https:'],
): string {
  const raw = rawSetting(env, name);
  if (raw === undefined) return fallback;
  const expected = `an absolute ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')} URL`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, redactUrlCredentials(raw), expected);
  }
  if (!protocols.includes(url.protocol) || url.hostname === '')
    throw new ConfigError(name, redactUrlCredentials(raw), expected);
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
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(raw) || !(value >= 0 && value <= 1))
    throw new ConfigError(name, raw, 'a number from 0 to 1, such as 0.7');
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

/** OTLP export headers: `name=value` pairs separated by commas, values URL-encoded (the OpenTelemetry specification's format). */
export function otlpHeadersSetting(env: Env, name: string): string | null {
  const raw = rawSetting(env, name);
  if (raw === undefined) return null;
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    let valid = at > 0 && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(pair.slice(0, at).trim());
    try {
      decodeURIComponent(pair.slice(at + 1));
    } catch {
      valid = false;
    }
    // The value is a secret (often a token): name only the pair's position, never its text.
    if (!valid)
      throw new ConfigError(
        name,
        '<redacted>',
        'name=value pairs separated by commas, values URL-encoded, e.g. authorization=Bearer%20abc',
      );
  }
  return raw;
}

/**
 * A comma-separated list of origins a browser may send in `Origin`: each a bare
 * `scheme://host[:port]` (http or https, no path, no trailing slash, no query), or `*` for any.
 */
export function originsSetting(env: Env, name: string): string[] {
  const entries = (rawSetting(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (entry === '*') continue;
    const reason = originProblem(entry);
    if (reason)
      throw new ConfigError(
        name,
        entry,
        `a bare origin scheme://host[:port] such as https://example.com, or * (${reason}; a browser's Origin header never matches it)`,
      );
  }
  return entries;
}

/**
 * A comma-separated list of trusted proxies: IPv4 or IPv6 addresses, CIDR ranges
 * (`10.0.0.0/8`), or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`.
 */
export function proxiesSetting(env: Env, name: string): string[] {
  const entries = (rawSetting(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new ConfigError(
        name,
        entry,
        'IP addresses or CIDR ranges separated by commas (e.g. 10.0.0.1,10.1.0.0/16), or loopback, linklocal, uniquelocal',
      );
    }
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

/**
 * `VAULT_MASTER_KEY`: one or more base64 keys of 32 bytes each, comma-separated, or null when unset.
 *
 * @throws ConfigError naming the setting (never the value) when a part is not 32 bytes of base64
 */
export function masterKeySetting(env: Env, name: string): string | null {
  const raw = rawSetting(env, name);
  if (raw === undefined) return null;
  for (const part of raw.split(',')) {
    const text = part.trim();
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || Buffer.from(text, 'base64').length !== 32) {
      throw new ConfigError(
        name,
        '<redacted>',
        '32 random bytes in base64 (openssl rand -base64 32), or several separated by commas, newest first',
      );
    }
  }
  return raw;
}
