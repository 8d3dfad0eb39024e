import { UpstreamError } from '../../errors/gateway-error';

/** Statuses worth one more try: the upstream or a proxy in front of it was briefly unwell. */
const RETRY_STATUSES = new Set([502, 503, 504]);

/** Settings of {@link withOneRetry}. */
export interface RetryPolicy {
  /** Base delay before the retry, ms; the actual delay is 50–150 % of it (jitter). */
  delayMs: number;
  /** Randomness for the jitter, in [0, 1). */
  random: () => number;
}

/**
 * Whether an upstream failure is worth one retry: a connection error (no status,
 * `UPSTREAM_ERROR`) or a 502/503/504. Never a timeout (the upstream may still be
 * working on it), a 429, a definitive 4xx, or the gateway's own `RATE_LIMITED`.
 */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false;
  const status = error.upstream.status;
  return status === null ? error.code === 'UPSTREAM_ERROR' : RETRY_STATUSES.has(status);
}

/**
 * Runs `attempt`, and once more after a jittered delay when it failed retryably (see
 * {@link isRetryable}). Each attempt is a whole unit: it takes and gives back its own
 * budget and concurrency slot, so nothing here releases anything on its behalf.
 *
 * @throws whatever the last attempt threw
 */
export async function withOneRetry<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!isRetryable(error)) throw error;
  }
  await new Promise<void>((resolve) => setTimeout(resolve, policy.delayMs * (0.5 + policy.random())));
  return attempt();
}
