import { UpstreamError } from '../../errors/gateway-error';
import type { Endpoint } from '../../upstream/endpoints';
import { LimitExceeded } from './key-limiter';
import type { KeyLimiter } from './key-limiter';
import type { UpstreamPriority } from './priority';
import type { QueueTicket } from './queue-ticket';

/** Where a `RATE_LIMITED` came from: the upstream's 429, its cooldown, or the gateway's own budget. */
export type RateLimitSource = 'upstream' | 'cooldown' | 'budget';

/** Settings of {@link RateLimitGate}. */
export interface RateLimitGateOptions {
  /** Cooldown after a 429 without `Retry-After`, seconds; it doubles while such 429s follow each other. */
  defaultBackoffSeconds: number;
  /** Longest cooldown of the gateway's own backoff, seconds (`RETRY_AFTER_MAX_SECONDS`; default one hour). */
  maxBackoffSeconds?: number;
  /** Told of every `RATE_LIMITED` (metrics). */
  onRateLimited?: (source: RateLimitSource) => void;
  /** An operation's default patience, ms (for callers joining a flight). */
  patienceMs: number;
  /** Clock (tests use fake timers, which drive `Date.now`). */
  now?: () => number;
}

/**
 * The rate-limit rules as the economy sees them: {@link acquire} before each upstream
 * request (a `RATE_LIMITED` error instead of a request when the key may not send), and
 * {@link observe} on each failed one (an upstream 429 starts the key's cooldown).
 */
export class RateLimitGate {
  constructor(
    private readonly limiter: KeyLimiter,
    private readonly options: RateLimitGateOptions,
  ) {}

  /**
   * Waits until the key may send one request to `endpoint` (operations first, see
   * `UpstreamPriority`); an operation waits at most `patienceMs` (default: the limiter's).
   *
   * @returns the release function: call it exactly once when the request has finished
   * @throws UpstreamError `RATE_LIMITED` with `retryAfterSeconds` during a cooldown or when the budget is spent
   */
  async acquire(keyId: string, endpoint: Endpoint, priority: UpstreamPriority = 'operation', patienceMs?: number, ticket?: QueueTicket): Promise<() => void> {
    try {
      return await this.limiter.acquire(keyId, { priority, patienceMs, ticket });
    } catch (error) {
      if (error instanceof LimitExceeded) {
        this.options.onRateLimited?.(error.reason);
        throw rateLimited(endpoint, error.retryAfterSeconds, error.reason);
      }
      throw error;
    }
  }

  /**
   * An operation joining a flight someone else started (in-flight coalescing) waits for
   * it like for its own request: the flight is raised to `operation` priority, and the
   * operation waits while the request is upstream, but at most its patience while the
   * request still waits for budget (a flight of background fill may be planned a minute
   * ahead). Then it fails with `RATE_LIMITED` and the seconds until the flight is
   * expected to be sent; the flight goes on and stores its answer for the next view.
   *
   * @returns what the flight resolves to
   * @throws the flight's error, or UpstreamError `RATE_LIMITED` when patience ran out while it was queued
   */
  awaitJoined<T>(flight: Promise<T>, ticket: QueueTicket, endpoint: Endpoint, patienceMs?: number): Promise<T> {
    ticket.raise('operation');
    const now = this.options.now ?? Date.now;
    const deadline = now() + (patienceMs ?? this.options.patienceMs);
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const check = (): void => {
        clearTimeout(timer);
        timer = undefined;
        if (ticket.state !== 'queued') return; // upstream (or not at the budget yet): the flight's own deadlines bound it
        const left = deadline - now();
        if (left > 0) {
          timer = setTimeout(check, left);
          return;
        }
        finish();
        const at = ticket.expectedAt ?? now() + 1000;
        this.options.onRateLimited?.('budget');
        reject(rateLimited(endpoint, Math.max(1, Math.ceil((at - now()) / 1000)), 'budget'));
      };
      const stop = ticket.onChange(check);
      const finish = (): void => {
        stop();
        clearTimeout(timer);
      };
      flight.then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
      check();
    });
  }

  /**
   * Learns from a failed request: an upstream 429 cools the key down for its
   * `Retry-After`, or, without one, for the gateway's own backoff (the default, doubled
   * for each 429 that follows soon after the previous backoff, see
   * `KeyLimiter.backoffSeconds`), which is then written into the error's `retryAfterSeconds`.
   */
  observe(keyId: string, error: unknown): void {
    if (error instanceof UpstreamError && error.code === 'RATE_LIMITED' && error.upstream.status === 429) {
      const retryAfter = error.extensions.retryAfterSeconds;
      const seconds =
        typeof retryAfter === 'number'
          ? retryAfter
          : this.limiter.backoffSeconds(keyId, this.options.defaultBackoffSeconds, this.options.maxBackoffSeconds ?? 3600);
      this.limiter.coolDown(keyId, seconds);
      this.options.onRateLimited?.('upstream');
      if (typeof retryAfter !== 'number') error.extensions.retryAfterSeconds = seconds;
    }
  }
}

/** `RATE_LIMITED` raised by the gateway itself (cooldown or budget), before any request. */
function rateLimited(endpoint: Endpoint, retryAfterSeconds: number, reason: 'cooldown' | 'budget'): UpstreamError {
  const message =
    reason === 'cooldown'
      ? 'the upstream rate-limited this key; the gateway sends nothing for it until Retry-After has passed'
      : 'the per-key upstream budget of the gateway is spent';
  return new UpstreamError('RATE_LIMITED', endpoint, { status: null, endpoint: endpoint.route, message }, { retryAfterSeconds });
}
