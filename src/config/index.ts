/**
 * The gateway's settings, read once from the environment (and the command line's flags).
 *
 * This module is the only reader of `process.env`: everything else receives a
 * {@link GatewayConfig} (gateway-config.ts, with its defaults, {@link DEFAULT_CONFIG}). Every
 * setting has a default and one entry in {@link SETTINGS} (settings-table.ts), the table
 * `loadConfig` reads and `statev-gateway --help` is generated from, and a row in
 * docs/configuration.md. The readers of the values are in `src/config/settings-readers.ts`;
 * {@link ConfigError}, what `loadConfig` throws, is exported from here too, as are the
 * configuration's types and defaults and the table: import them from here.
 */
import { DEFAULT_CONFIG } from './gateway-config';
import type { GatewayConfig } from './gateway-config';
import { ConfigError, rawSetting } from './settings-readers';
import type { Env } from './settings-readers';
import { SETTINGS } from './settings-table';

export { ConfigError, redactUrlCredentials } from './settings-readers';
export { DEFAULT_CONFIG, SITE_DOCUMENT_ENCODINGS, TTL_SETTINGS } from './gateway-config';
export type { CostAssumptions, GatewayConfig, SiteDocumentEncoding, TracingSettings } from './gateway-config';
export { SETTINGS } from './settings-table';
export type { SettingDefinition } from './settings-table';

/** Settings that were replaced: setting one is refused at start, naming its successor. */
const REMOVED_SETTINGS: Readonly<Record<string, string>> = {
  UPSTREAM_RATE_PER_MINUTE: 'nothing: it was replaced by UPSTREAM_RATE_LIMIT=N/SECONDS (a sliding window, e.g. 10/60)',
  UPSTREAM_RATE_BURST: 'nothing: it was replaced by UPSTREAM_RATE_LIMIT=N/SECONDS (a sliding window, e.g. 10/60)',
  UPSTREAM_QUEUE_TIMEOUT_MS:
    'nothing: it was replaced by UPSTREAM_PATIENCE_MS (ms an operation waits for budget, default 1500)',
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
export function loadConfig(
  env: Env = process.env,
  overrides: Partial<GatewayConfig> = {},
  flags: Env = {},
): GatewayConfig {
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
