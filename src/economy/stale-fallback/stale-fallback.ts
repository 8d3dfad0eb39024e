import { UpstreamError } from '../../errors/gateway-error';
import type { StaleInfo, StaleReason } from '../accounting';
import type { CacheEntry } from '../cache/cache-entry';
import type { Freshness } from '../cache/freshness';

/**
 * Why a failure may be answered with stale data: the upstream was unreachable, slow or
 * rate-limited (by itself or by the gateway's own budget). Null for failures stale
 * data must not hide (a definitive 4xx, a bug).
 */
export function staleReason(error: unknown): StaleReason | null {
  if (!(error instanceof UpstreamError)) return null;
  if (error.code === 'UPSTREAM_ERROR' || error.code === 'UPSTREAM_TIMEOUT' || error.code === 'RATE_LIMITED')
    return error.code;
  return null;
}

/**
 * The stale stand-in for a failed fetch: the entry, when it is within the stale window
 * and the failure allows it, and what to report about it in `extensions.stale`.
 *
 * @param reason - from {@link staleReason}; null means no stand-in
 * @param entry - the cached entry (fresh or not), if any
 * @param route - the endpoint's route pattern, for the report
 */
export function staleStandIn(
  reason: StaleReason | null,
  entry: CacheEntry | undefined,
  route: string,
  freshness: Freshness,
): { entry: CacheEntry; info: StaleInfo } | null {
  if (!reason || !entry) return null;
  const ageMs = freshness.ageMs(entry);
  if (ageMs > freshness.staleMaxAgeMs) return null;
  return { entry, info: { endpoint: route, ageSeconds: Math.floor(ageMs / 1000), reason } };
}
