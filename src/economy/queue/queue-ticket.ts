import { PRIORITY_RANK } from './priority';
import type { UpstreamPriority } from './priority';

/** Where a ticket's request is: not yet at the budget, waiting for budget or a slot, or sent. */
export type TicketState = 'pending' | 'queued' | 'sent';

/**
 * The handle of one upstream request (one flight) on its way through the key's queue:
 * its priority, which a caller joining the flight may raise, whether it is still waiting
 * for budget, and when the limiter expects to send it.
 *
 * Why: callers share one flight per request (in-flight coalescing), but they do not share
 * a priority or a patience. A view that joins a flight queued by background fill must not
 * wait behind other background work, nor longer than its own patience: it raises the
 * ticket to `operation` and waits only while the request is sent or within its patience
 * (see `awaitJoined` in `joined-wait.ts`).
 *
 * When to use: the economy makes one per flight and hands it to `KeyBudget.acquire`,
 * which keeps it up to date.
 */
export class QueueTicket {
  private current: UpstreamPriority;
  private where: TicketState = 'pending';
  private wake: (() => void) | undefined;
  private readonly listeners = new Set<() => void>();
  /** Epoch ms when the limiter expects to send the request (its place planned on the window log), while it is queued. */
  expectedAt: number | undefined;

  /** @param priority - the priority the request starts at */
  constructor(priority: UpstreamPriority) {
    this.current = priority;
  }

  /** The priority the request waits at now. */
  get priority(): UpstreamPriority {
    return this.current;
  }

  /** Where the request is now. */
  get state(): TicketState {
    return this.where;
  }

  /**
   * Raises the request to `priority` when that is higher (never lowers it), and wakes
   * its wait so the limiter plans it again at the new priority.
   */
  raise(priority: UpstreamPriority): void {
    if (PRIORITY_RANK[priority] >= PRIORITY_RANK[this.current]) return;
    this.current = priority;
    this.wake?.();
  }

  /** Registers `listener`, told each time the state changes; returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The limiter's: the request must wait for budget until about `at` (epoch ms); listeners are told. */
  plan(at: number): void {
    this.expectedAt = at;
    for (const listener of [...this.listeners]) listener();
  }

  /** The limiter's: the request waits for budget or a slot (again, for a retry). */
  markQueued(): void {
    this.move('queued');
  }

  /** The limiter's: the request has its budget and slot and goes upstream. */
  markSent(): void {
    this.expectedAt = undefined;
    this.move('sent');
  }

  /** The limiter's: waits `ms`, or less when {@link raise} wakes it. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      // Background work keeps no process alive: once the gateway has stopped, nobody waits
      // for it (an operation's wait, or one raised to it, keeps its timer).
      if (this.current !== 'operation' && this.current !== 'write') timer.unref();
      this.wake = done;
    });
  }

  private move(state: TicketState): void {
    if (this.where === state) return;
    this.where = state;
    for (const listener of [...this.listeners]) listener();
  }
}
