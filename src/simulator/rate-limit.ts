/**
 * The simulator's per-key rate limit, as the real StateV API is believed to enforce it
 * (see the field notes: "10 requests per minute per key", answered by NestJS's
 * throttler). By default a rolling window: at most `requests` answered requests of a
 * key within any `windowSeconds`. The `fixed` form is NestJS's throttler: a window of
 * fixed length that starts at the key's first hit. A refused request does not count.
 */

/** A rate limit: at most `requests` requests per key within `windowSeconds` seconds. */
export interface RateLimit {
  /** Allowed requests per window (≥ 1). */
  requests: number;
  /** Window length in seconds (> 0). */
  windowSeconds: number;
  /** `rolling` (default): any `windowSeconds`; `fixed`: windows that start at a key's first hit (NestJS's throttler). */
  window?: 'rolling' | 'fixed';
}

/** The simulator's default: 10 requests per key per rolling 60 s, the only public statement of the real limit. */
export const DEFAULT_RATE_LIMIT: Readonly<RateLimit> = Object.freeze({
  requests: 10,
  windowSeconds: 60,
  window: 'rolling',
});

/** Checks a limit's numbers. @throws RangeError when they are out of range. */
export function validRateLimit(limit: RateLimit | 'off' | undefined): RateLimit | undefined {
  if (limit === undefined || limit === 'off') return undefined;
  if (!Number.isInteger(limit.requests) || limit.requests < 1)
    throw new RangeError(`rateLimit.requests must be an integer ≥ 1, got ${limit.requests}`);
  if (!Number.isFinite(limit.windowSeconds) || limit.windowSeconds <= 0)
    throw new RangeError(`rateLimit.windowSeconds must be > 0, got ${limit.windowSeconds}`);
  if (limit.window !== undefined && limit.window !== 'rolling' && limit.window !== 'fixed') {
    throw new RangeError(`rateLimit.window must be 'rolling' or 'fixed', got ${String(limit.window)}`);
  }
  return { requests: limit.requests, windowSeconds: limit.windowSeconds, window: limit.window ?? 'rolling' };
}

/**
 * Parses the CLI form: `off`, or `N/SECONDS` (e.g. `10/60`).
 *
 * @throws Error with a readable message for anything else
 */
export function parseRateLimit(text: string): RateLimit | 'off' {
  if (text === 'off') return 'off';
  const parts = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(text);
  if (parts === null) throw new Error(`--rate-limit must be 'off' or look like N/SECONDS, got '${text}'`);
  const requests = Number(parts[1]);
  const windowSeconds = Number(parts[2]);
  if (requests < 1 || windowSeconds <= 0) throw new Error(`--rate-limit needs N ≥ 1 and SECONDS > 0, got '${text}'`);
  return { requests, windowSeconds };
}

/**
 * One line on the rate limit for banners: what it is and how to turn it off.
 *
 * @param offHint - how to turn it off where the banner is shown (default: the CLI flag)
 */
export function describeRateLimit(limit: RateLimit | undefined, offHint = '--rate-limit off'): string {
  if (!limit) return 'Rate limit: off (the real API allows about 10 requests per key per minute).';
  const window = limit.window === 'fixed' ? 'fixed' : 'rolling';
  return `Rate limit: ${limit.requests} requests per key per ${window} ${limit.windowSeconds} s, like the real API (429 ThrottlerException). Turn it off: ${offHint}`;
}

/**
 * The hits of every key, and the decision for one more. Keys are the bearer tokens,
 * held in memory only.
 */
export class RateLimitWindows {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly limit: RateLimit) {}

  /**
   * Counts a request of `key` at `now` (epoch ms) if the limit allows it.
   *
   * @returns undefined when it is allowed; else the whole seconds (≥ 1) until the key may send again
   */
  take(key: string, now: number): number | undefined {
    const windowMs = this.limit.windowSeconds * 1000;
    let hits = this.hits.get(key) ?? [];
    if (this.limit.window === 'fixed') {
      // One window from the first hit; it ends windowMs later (or when the clock went back).
      const start = hits[0];
      if (start === undefined || now - start >= windowMs || now < start) hits = [];
      if (hits.length >= this.limit.requests) return Math.max(1, Math.ceil(((hits[0] ?? now) + windowMs - now) / 1000));
    } else {
      hits = hits.filter((at) => at > now - windowMs && at <= now);
      if (hits.length >= this.limit.requests) {
        // Free again when the oldest hit that keeps it full leaves the window.
        const freeing = hits[hits.length - this.limit.requests] ?? now;
        this.hits.set(key, hits);
        return Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
      }
    }
    hits.push(now);
    this.hits.set(key, hits);
    return undefined;
  }
}
