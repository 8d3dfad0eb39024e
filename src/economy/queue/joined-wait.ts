import type { Endpoint } from '../../upstream/endpoints';
import { rateLimited } from '../budget/limit-exceeded';
import type { QueueTicket } from './queue-ticket';

/** What {@link awaitJoined} needs besides the flight. */
export interface JoinedWaitOptions {
  /** The operation's patience, ms. */
  patienceMs: number;
  /** Clock, epoch ms (tests use fake timers, which drive `Date.now`). */
  now: () => number;
  /** Told when patience ran out while the flight was queued (metrics: source `budget`). */
  onRateLimited?: () => void;
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
export function awaitJoined<T>(flight: Promise<T>, ticket: QueueTicket, endpoint: Endpoint, options: JoinedWaitOptions): Promise<T> {
  ticket.raise('operation');
  const now = options.now;
  const deadline = now() + options.patienceMs;
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
      options.onRateLimited?.();
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
