import { DEFAULT_CONFIG } from '../../src/config';
import type { UpstreamEconomy } from '../../src/economy';

/** What `new UpstreamEconomy(client, options)` takes. */
type EconomyOptions = ConstructorParameters<typeof UpstreamEconomy>[1];

/**
 * The options of a bare economy for unit tests of its parts: the default cache and freshness,
 * no stale answers, no budget, no patience, no background fill, no retry delay; `overrides`
 * change any of them.
 */
export function bareEconomyOptions(overrides: Partial<EconomyOptions> = {}): EconomyOptions {
  return {
    cacheEnabled: true,
    cacheMaxBytes: DEFAULT_CONFIG.cacheMaxBytes,
    ttlSeconds: DEFAULT_CONFIG.cacheTtlSeconds,
    staleMaxAgeSeconds: 0,
    defaultBackoffSeconds: 60,
    retryDelayMs: 0,
    rateLimit: null,
    concurrencyPerKey: 6,
    patienceMs: 0,
    backgroundFill: false,
    ...overrides,
  };
}
