import type { KeyBudgetOptions, Unexplained429 } from './budget-types';
import { nextBackoffSeconds } from './key-state';
import type { BudgetLimit, KeyState } from './key-state';

/**
 * The report of an upstream 429 the key's own requests do not explain, or null when they
 * do: fewer than the limit in the last window (`sent` holds the refused request too, while
 * its slot is held: not counted). `firstInWindow` is true once per key and window, and
 * marks the key's state (`unexplainedWarnedAt`) so that the warning is logged once.
 *
 * @param state - the key's budget state (its `unexplainedWarnedAt` is updated)
 * @param sent - the key's requests in its current window, the refused one included
 * @param retryAfterSeconds - the cooldown the 429 set, seconds
 */
export function unexplained429(
  keyId: string,
  state: KeyState,
  limit: BudgetLimit | undefined,
  sent: number,
  now: number,
  retryAfterSeconds: number,
): Unexplained429 | null {
  const sentInWindow = Math.max(0, sent - 1);
  if (!limit || sentInWindow >= limit.requests) return null;
  const firstInWindow = state.unexplainedWarnedAt === 0 || now - state.unexplainedWarnedAt >= limit.windowMs;
  if (firstInWindow) state.unexplainedWarnedAt = now;
  return {
    keyId,
    sentInWindow,
    limit: limit.requests,
    windowSeconds: limit.windowMs / 1000,
    retryAfterSeconds,
    firstInWindow,
  };
}

/**
 * The cooldown of an upstream 429 without `Retry-After`, seconds: the gateway's own backoff
 * (`defaultBackoffSeconds`, doubled for each 429 soon after the previous backoff, at most
 * `maxBackoffSeconds`).
 */
export function backoffSeconds(state: KeyState, options: KeyBudgetOptions, now: number): number {
  const windowMs = options.limit?.windowMs ?? 60_000;
  return nextBackoffSeconds(
    state,
    windowMs,
    now,
    options.defaultBackoffSeconds ?? 60,
    options.maxBackoffSeconds ?? 3600,
  );
}
