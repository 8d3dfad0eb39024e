import { DEFAULT_CONFIG, TTL_SETTINGS } from '../../config';
import { describeSource } from '../../upstream/endpoints';
import type { Endpoint } from '../../upstream/endpoints';

/**
 * The standard description suffix of a subscription field: its source, scopes and
 * premium rule (as the query fields say them) and its polling interval.
 */
export function describePolling(...endpoints: Endpoint[]): string {
  const first = endpoints[0];
  if (!first) return '';
  const kind = first.cacheKind;
  const sources = endpoints.map((endpoint) => describeSource(endpoint)).join(' ');
  return (
    `${sources} Polled once per key for every subscriber, within the key's upstream budget: every ${DEFAULT_CONFIG.cacheTtlSeconds[kind]} s by default ` +
    `(the freshness window ${TTL_SETTINGS[kind]}), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). ` +
    'An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; ' +
    'RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open.'
  );
}
