import type { Endpoint } from '../../upstream/endpoints';
import { rateLimited } from '../limit-exceeded';
import type { UpstreamPriority } from './priority';
import type { QueueTicket } from './queue-ticket';

/** What {@link awaitJoined} needs besides the flight. */
export interface JoinedWaitOptions {
  /** The operation's patience, ms. */
  patienceMs: number;
  /** Clock, epoch ms (tests use fake timers, which drive `Date.now`). */
  now: () => number;
  /** Told when patience ran out while the flight was queued (metrics: source `budget`). */
  onRateLimited?: () => void;
  /** The priority the flight is raised to (default `operation`). */
  priority?: UpstreamPriority;
  /** True: patience starts only once the budget has planned the flight for later (a request it can send now is awaited). */
  untilPlanned?: boolean;
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
export function awaitJoined<T>(
  flight: Promise<T>,
  ticket: QueueTicket,
  endpoint: Endpoint,
  options: JoinedWaitOptions,
): Promise<T> {
  ticket.raise(options.priority ?? 'operation');
  const now = options.now;
  const deadline = now() + options.patienceMs;
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const check = (): void => {
      clearTimeout(timer);
      timer = undefined;
      if (ticket.state !== 'queued') return; // upstream (or not at the budget yet): the flight's own deadlines bound it
      if (options.untilPlanned && ticket.expectedAt === undefined) return; // at the budget, not told to wait yet
      const left = deadline - now();
      if (left > 0) {
        timer = setTimeout(check, left);
        return;
      }
      finish();
      const at = ticket.expectedAt ?? now() + 1000;
      options.onRateLimited?.();
      reject(rateLimited(endpoint, Math.max(1, Math.ceil((at - now()) / 1000)), 'budget'));
    };
    const stop = ticket.onChange(check);
    const finish = (): void => {
      stop();
      unfollow();
      clearTimeout(timer);
    };
    const unfollow = follow(flight, (outcome) => {
      finish();
      if (outcome.ok) resolve(outcome.value as T);
      else reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)));
    });
    check();
  });
}

/** How a flight settled, as told to its waiters. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The operations waiting on each flight now (see {@link follow}). */
const waitersOf = new WeakMap<Promise<unknown>, Set<(outcome: Outcome) => void>>();

/**
 * Tells `waiter` how `flight` settles, through ONE reaction per flight; the returned
 * removal drops the waiter at once.
 *
 * Why: a flight may stay queued for budget for a minute while operations give up on it
 * after their patience (e.g. thousands of live queries opened and closed meanwhile). A
 * reaction of its own per waiter (`flight.then(...)`) cannot be removed, so each would
 * keep its operation (session, accounting, ticket, error) alive until the flight settles.
 */
function follow(flight: Promise<unknown>, waiter: (outcome: Outcome) => void): () => void {
  let waiters = waitersOf.get(flight);
  if (!waiters) {
    const all = new Set<(outcome: Outcome) => void>();
    waiters = all;
    waitersOf.set(flight, all);
    const settle = (outcome: Outcome): void => {
      waitersOf.delete(flight);
      for (const told of [...all]) told(outcome);
      all.clear();
    };
    flight.then(
      (value) => settle({ ok: true, value }),
      (error: unknown) => settle({ ok: false, error }),
    );
  }
  const joined = waiters;
  joined.add(waiter);
  return () => joined.delete(waiter);
}

/** Operations waiting on `flight` through {@link awaitJoined} now (tests: released when they give up). */
export function joinedWaiters(flight: Promise<unknown>): number {
  return waitersOf.get(flight)?.size ?? 0;
}
