import type { SharedKeyLimits } from '../shared-state/shared-state';
import { noneQueued } from '../queue/priority';
import type { UpstreamPriority } from '../queue/priority';

/** The per-key budget: at most `requests` in any `windowMs`. */
export interface BudgetLimit {
  /** Requests per window. */
  requests: number;
  /** Window length, ms. */
  windowMs: number;
}

/** What the budget knows of one key (besides its window log). */
export interface KeyState {
  /** Epoch ms until which nothing is sent (after an upstream 429). */
  cooldownUntil: number;
  /** The learned allowance after the last 429 (it grows back by one request per window), and when it was learned (epoch ms). */
  allowance: number;
  /** When `allowance` was learned, epoch ms (0 = never). */
  learnedAt: number;
  /** 429s without `Retry-After` in a row (each within a window after the previous cooldown ended). */
  backoffStreak: number;
  /** Requests waiting for budget, per priority. */
  queued: Record<UpstreamPriority, number>;
  /** Upstream 429 answers learned from since the key's state was made (the console's `keyBudgets`). */
  upstream429s: number;
  /** When an upstream 429 the key's own requests did not explain was last reported as a warning, epoch ms (0 = never). */
  unexplainedWarnedAt: number;
}

/** A key nothing has been learned of: the full allowance, no cooldown, nothing queued. */
export function newKeyState(limit: BudgetLimit | null): KeyState {
  return {
    cooldownUntil: 0,
    allowance: limit?.requests ?? 0,
    learnedAt: 0,
    backoffStreak: 0,
    queued: noneQueued(),
    upstream429s: 0,
    unexplainedWarnedAt: 0,
  };
}

/**
 * The key's allowance at `now` (requests per window): the limit, or less while it grows
 * back after a 429, by one request per window. Reads `state` only (statistics may call it
 * while iterating every key). `Infinity` when the budget is off.
 */
export function allowanceOf(state: KeyState | undefined, limit: BudgetLimit | null, now: number): number {
  if (!limit) return Number.POSITIVE_INFINITY;
  if (!state) return limit.requests;
  const grown = state.allowance + Math.floor(Math.max(0, now - state.learnedAt) / limit.windowMs);
  return Math.min(limit.requests, grown);
}

/**
 * Records an upstream 429 in `state`: the allowance halves (at least 1) and the cooldown
 * lasts until `now + seconds` at least.
 *
 * @returns how long other replicas should keep what was learned, ms (until it has grown back)
 */
export function learn429(state: KeyState, limit: BudgetLimit | null, now: number, seconds: number): number {
  state.allowance = Math.max(1, Math.floor(allowanceOf(state, limit, now) / 2));
  state.learnedAt = now;
  state.upstream429s += 1;
  state.cooldownUntil = Math.max(state.cooldownUntil, now + seconds * 1000);
  return limit ? (limit.requests - state.allowance) * limit.windowMs : 0;
}

/**
 * The gateway's own backoff for a 429 without `Retry-After`, seconds: `base`, doubled for
 * each such 429 within a window after the previous backoff ended, at most `max`.
 * Advances the key's streak.
 */
export function nextBackoffSeconds(state: KeyState, windowMs: number, now: number, base: number, max: number): number {
  const again = state.backoffStreak > 0 && now < state.cooldownUntil + windowMs;
  state.backoffStreak = again ? state.backoffStreak + 1 : 1;
  return Math.min(max, base * 2 ** Math.min(30, state.backoffStreak - 1));
}

/** Takes what other replicas learned of the key: a longer cooldown, a newer allowance. */
export function adoptShared(state: KeyState, limits: SharedKeyLimits): void {
  state.cooldownUntil = Math.max(state.cooldownUntil, limits.cooldownUntil);
  if (limits.allowance !== null && limits.learnedAt > state.learnedAt) {
    state.allowance = limits.allowance;
    state.learnedAt = limits.learnedAt;
  }
}

/**
 * Requests per minute a share of the key's budget allows: `percent` of its allowance
 * (the limit, or less after an upstream 429) per window, scaled to a minute. `Infinity`
 * when the budget is off. Example: 10 per 60 s at 50 % → 5; allowance 5 → 2.5.
 *
 * @param limit - the budget, `windowSeconds` in seconds; null when off
 * @param allowance - the key's allowance now (see {@link allowanceOf})
 */
export function perMinuteShare(
  limit: { requests: number; windowSeconds: number } | null,
  allowance: number,
  percent: number,
): number {
  if (!limit || !Number.isFinite(allowance)) return Number.POSITIVE_INFINITY;
  return ((Math.min(allowance, limit.requests) * 60) / limit.windowSeconds) * (percent / 100);
}

/** What `states` add up to now: keys with a reduced allowance, their upstream 429s, and what waits per priority. */
export function stateTotals(
  states: Iterable<KeyState>,
  limit: BudgetLimit | null,
  now: number,
): { reducedKeys: number; upstream429s: number; queued: Record<UpstreamPriority, number> } {
  let [reducedKeys, upstream429s] = [0, 0];
  const queued = noneQueued();
  for (const state of states) {
    if (limit && allowanceOf(state, limit, now) < limit.requests) reducedKeys += 1;
    upstream429s += state.upstream429s;
    for (const priority of Object.keys(queued) as UpstreamPriority[]) queued[priority] += state.queued[priority];
  }
  return { reducedKeys, upstream429s, queued };
}
