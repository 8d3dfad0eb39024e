import { PRIORITY_RANK } from './priority';
import type { UpstreamPriority } from './priority';

/** Settings of {@link WaitingLines}. */
export interface WaitingLinesOptions {
  /** Most requests of one key waiting for budget (default 1000); more are refused. */
  maxQueuedPerKey?: number;
  /** Most requests of all keys together waiting for budget (default 20000); more are refused. */
  maxQueuedTotal?: number;
  /**
   * Missed requests of the key that wait elsewhere (background fill's queue) for their turn:
   * `background` requests wait behind them as behind queued `missed` ones.
   */
  missedElsewhere?: (id: string) => number;
}

/**
 * The priority queue in front of each key's budget, as counts: how many requests of each
 * priority wait for the key's budget (the counts live in the key's state), how many wait
 * over all keys, and the bounds of both. A request waits behind every request of a higher
 * priority (operations, then missed requests, then background work: refresh-ahead and
 * subscription polls); the budget plans its place on the window log from that.
 *
 * When to use: the budget owns one and calls {@link enter} / {@link leave} around each wait.
 */
export class WaitingLines {
  /** Requests of all keys waiting for budget now. */
  private total = 0;

  /** @param options - the bounds, and background fill's count of missed requests */
  constructor(private readonly options: WaitingLinesOptions = {}) {}

  /**
   * Puts one request of `priority` in its key's line.
   *
   * @returns false (and counts nothing) when the key's or the overall bound is reached
   */
  enter(queued: Record<UpstreamPriority, number>, priority: UpstreamPriority): boolean {
    const queuedNow = Object.values(queued).reduce((sum, count) => sum + count, 0);
    if (queuedNow >= (this.options.maxQueuedPerKey ?? 1000) || this.total >= (this.options.maxQueuedTotal ?? 20_000))
      return false;
    queued[priority] += 1;
    this.total += 1;
    return true;
  }

  /** Moves a waiting request to another priority (a caller joining its flight raised it). */
  move(queued: Record<UpstreamPriority, number>, from: UpstreamPriority, to: UpstreamPriority): void {
    queued[from] -= 1;
    queued[to] += 1;
  }

  /** Takes a request of `priority` out of its key's line (it got its budget, or gave up). */
  leave(queued: Record<UpstreamPriority, number>, priority: UpstreamPriority): void {
    queued[priority] -= 1;
    this.total -= 1;
  }

  /**
   * Requests of key `id` waiting for its budget ahead of one of `priority` (background
   * fill's included): those of a higher priority, and with `alike` those of the same
   * priority too (they were there first).
   */
  ahead(queued: Record<UpstreamPriority, number>, priority: UpstreamPriority, id: string, alike = false): number {
    const rank = PRIORITY_RANK[priority] + (alike ? 1 : 0);
    let count = rank > PRIORITY_RANK.missed ? (this.options.missedElsewhere?.(id) ?? 0) : 0;
    for (const other of Object.keys(queued) as UpstreamPriority[]) {
      if (PRIORITY_RANK[other] < rank) count += queued[other];
    }
    return count;
  }
}
