import { UpstreamError } from '../errors/gateway-error';
import type { Endpoint } from '../upstream/endpoints';

/** Where a `RATE_LIMITED` came from: the upstream's 429, its cooldown, or the gateway's own budget. */
export type RateLimitSource = 'upstream' | 'cooldown' | 'budget';

/** Why a request may not go upstream now, and for how long (thrown by `KeyBudget.acquire`). */
export class LimitExceeded extends Error {
  /**
   * @param retryAfterSeconds - whole seconds until a request may be sent again (at least 1)
   * @param reason - `cooldown`: the upstream answered 429; `budget`: the gateway's own per-key budget, queue or slot
   */
  constructor(
    /** Whole seconds until a request may be sent again (at least 1). */
    readonly retryAfterSeconds: number,
    /** `cooldown`: the upstream answered 429; `budget`: the gateway's own per-key budget or queue. */
    readonly reason: 'cooldown' | 'budget',
  ) {
    super(
      reason === 'cooldown'
        ? 'The upstream rate limit of this key is cooling down'
        : 'The per-key upstream budget is spent',
    );
    this.name = 'LimitExceeded';
  }
}

/**
 * `RATE_LIMITED` raised by the gateway itself (cooldown or budget), before any request:
 * the error an operation sees for a {@link LimitExceeded}.
 *
 * @param retryAfterSeconds - whole seconds, for `extensions.retryAfterSeconds`
 */
export function rateLimited(
  endpoint: Endpoint,
  retryAfterSeconds: number,
  reason: 'cooldown' | 'budget',
): UpstreamError {
  const message =
    reason === 'cooldown'
      ? 'the upstream rate-limited this key; the gateway sends nothing for it until Retry-After has passed'
      : 'the per-key upstream budget of the gateway is spent';
  return new UpstreamError(
    'RATE_LIMITED',
    endpoint,
    { status: null, endpoint: endpoint.route, message },
    { retryAfterSeconds },
  );
}

/** True for the upstream's own 429 (its `Retry-After`, if any, is in `extensions.retryAfterSeconds`). */
export function isUpstream429(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.code === 'RATE_LIMITED' && error.upstream.status === 429;
}
