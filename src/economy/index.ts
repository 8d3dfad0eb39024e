/**
 * The upstream economy: how the gateway spends each key's upstream requests (cache,
 * coalescing, the per-key budget and its priority queue, retry, stale fallback,
 * invalidation, state shared by replicas). Code outside `src/economy/` imports from here only.
 */
export { UpstreamEconomy } from './upstream-economy';
export type { UpstreamReply } from './upstream-economy';
export type { EconomyCaller, EconomyEvents, ReadResource, TracedRequest, UpstreamRequestEvent } from './economy-types';
export type { Unexplained429 } from './budget/budget-types';
export { perMinuteShare } from './budget/key-state';
export type { EndpointRules } from './endpoint-rules';
export { NOT_CACHED, UpstreamSession } from './upstream-session';
export { OperationAccounting } from './accounting';
export type { StaleInfo, UpstreamAccounting } from './accounting';
export { keyId } from './key-id';
export { CacheFile, CacheSnapshots } from './cache/cache-file';
export { errorOf } from './cache/cache-entry';
export type { UpstreamFailure } from './cache/cache-entry';
export { RedisSharedState } from './shared-state/redis-shared-state';
export { ChangeSharingRedisState } from './shared-state/change-sharing-state';
export { compactBytes, compactText, compactUtf8, keyBytes } from './cache/compact-json';
export type { CompactJson } from './cache/compact-json';
