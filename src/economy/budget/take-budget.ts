import { randomUUID } from 'node:crypto';
import type { UpstreamPriority } from '../queue/priority';
import type { QueueTicket } from '../queue/queue-ticket';
import type { WaitingLines } from '../queue/waiting-lines';
import type { BudgetLimit, KeyState } from './key-state';
import { LimitExceeded } from '../limit-exceeded';
import { plannedSendTimes } from './sliding-window-log';
import type { SlidingWindowLog } from './sliding-window-log';

/** A request's place in the window log: when it was taken (epoch ms), and its member in the shared log (empty without one). */
export interface TakenSlot {
  /** When the request took its place, epoch ms. */
  at: number;
  /** Its name in the shared log (a time and a UUID), or empty without one. */
  member: string;
}

/** One request waiting for its key's budget. */
interface Waiter {
  id: string;
  state: KeyState;
  /** The priority it starts at (its ticket may raise it while it waits). */
  priority: UpstreamPriority;
  /** Epoch ms after which an operation gives up; `Infinity` for background work. */
  deadline: number;
  ticket: QueueTicket | undefined;
}

/** What the wait needs of the budget (see `KeyBudget`). */
interface BudgetParts {
  limit: BudgetLimit;
  log: SlidingWindowLog;
  lines: WaitingLines;
  now: () => number;
  /** The key's allowance now. */
  allowance: () => number;
  /** The member naming a request taken at `now` in the shared log ('' without one). */
  member: (now: number) => string;
  /** Takes from the shared log (or the local one when Redis does not answer): 0 = taken, else ms to wait; `writeIntent` for a write (see `SharedState.takeWindowSlot`). */
  takeShared: (allowance: number, slot: TakenSlot, writeIntent?: string) => Promise<number>;
  /** True without shared state: the local log may be taken from directly. */
  localOnly: boolean;
  onDropped?: (priority: UpstreamPriority) => void;
}

/**
 * Takes one request from the key's window log, waiting in the key's priority queue
 * behind higher priorities and for the window to free. While it waits, the ticket says
 * when the budget expects to send it.
 *
 * @returns the request's place in the log
 * @throws LimitExceeded when the key's queue is full, or the wait would pass the deadline
 */
export async function takeBudget(waiter: Waiter, budget: BudgetParts): Promise<TakenSlot> {
  const { id, state, deadline, ticket } = waiter;
  const { limit, log, lines } = budget;
  if (!lines.enter(state.queued, waiter.priority)) {
    budget.onDropped?.(waiter.priority);
    throw new LimitExceeded(Math.max(1, Math.ceil(limit.windowMs / 1000)), 'budget');
  }
  let priority = waiter.priority;
  // A write's one name in the shared log's write intents, on every try (made only for a write: this runs for every upstream request).
  let intent: string | undefined;
  const takeShared = (allowance: number, slot: TakenSlot): Promise<number> =>
    budget.takeShared(allowance, slot, priority === 'write' ? (intent ??= randomUUID()) : undefined);
  try {
    for (;;) {
      if (ticket && ticket.priority !== priority) {
        // A caller joined the flight at a higher priority: it waits in that line now.
        lines.move(state.queued, priority, ticket.priority);
        priority = ticket.priority;
      }
      const now = budget.now();
      const allowance = budget.allowance();
      const notBefore = Math.max(now, state.cooldownUntil);
      const ahead = lines.ahead(state.queued, priority, id);
      const slot: TakenSlot = { at: now, member: budget.member(now) };
      let waitMs: number;
      if (notBefore > now) {
        waitMs = notBefore - now;
      } else if (ahead > 0) {
        // Higher priorities first: wait until the window has room for them and this one.
        const planned = plannedSendTimes(log.times(id, now), ahead + 1, allowance, limit.windowMs, now);
        waitMs = Math.max(0, (planned[ahead] ?? now) - now);
        if (waitMs === 0)
          waitMs = budget.localOnly && log.take(id, allowance, now) === 0 ? 0 : await takeShared(allowance, slot);
      } else {
        waitMs = await takeShared(allowance, slot);
      }
      if (waitMs === 0) return slot;
      // When the budget expects this request to fit: its place in line, planned on the log.
      const planned = plannedSendTimes(log.times(id, now), ahead + 1, allowance, limit.windowMs, notBefore);
      const at = Math.max(planned[ahead] ?? now + waitMs, now + waitMs);
      ticket?.plan(at);
      if (now + waitMs > deadline) throw new LimitExceeded(Math.max(1, Math.ceil((at - now) / 1000)), 'budget');
      await (ticket ? ticket.sleep(waitMs) : new Promise<void>((resolve) => setTimeout(resolve, waitMs)));
    }
  } finally {
    lines.leave(state.queued, priority);
  }
}

/**
 * Waits out the key's 429 cooldown (patient requests; with a budget `takeBudget` does it
 * too). While it waits, the ticket says until when.
 */
export async function waitOutCooldown(
  state: KeyState,
  now: () => number,
  ticket: QueueTicket | undefined,
): Promise<void> {
  for (let left = state.cooldownUntil - now(); left > 0; left = state.cooldownUntil - now()) {
    ticket?.plan(state.cooldownUntil);
    await (ticket ? ticket.sleep(left) : new Promise<void>((resolve) => setTimeout(resolve, left)));
  }
}
