import { PRIORITY_RANK } from './priority';
import type { UpstreamPriority } from './priority';

/** One queued upstream request of a key, waiting for budget. */
export interface QueuedRequest {
  /** Served in priority order (see {@link UpstreamPriority}). */
  priority: UpstreamPriority;
  /** How many operations asked for it; among `missed` requests the most requested go first. */
  demand: number;
  /** Arrival order, for ties. */
  readonly seq: number;
  /** Called when the request may be sent. */
  readonly grant: () => void;
  /** Called when the request leaves the queue unsent (dropped to make room, or cancelled). */
  readonly drop: (reason: 'full' | 'cancelled') => void;
}

/** Compares two queued requests: negative when `a` goes first. */
export function compareQueued(a: QueuedRequest, b: QueuedRequest): number {
  const rank = PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority];
  if (rank !== 0) return rank;
  if (a.priority === 'missed' && a.demand !== b.demand) return b.demand - a.demand;
  return a.seq - b.seq;
}

/**
 * The waiting requests of one key, served most pressing first (see {@link compareQueued}).
 * Small by construction (bounded per key), so a sorted scan beats a heap in clarity.
 */
export class KeyRequestQueue {
  private readonly items: QueuedRequest[] = [];

  get size(): number {
    return this.items.length;
  }

  add(request: QueuedRequest): void {
    this.items.push(request);
  }

  /** The request to serve next, without removing it. */
  peek(): QueuedRequest | undefined {
    let best: QueuedRequest | undefined;
    for (const item of this.items) if (!best || compareQueued(item, best) < 0) best = item;
    return best;
  }

  /** The request that would be served last: the one to drop when room is needed. */
  last(): QueuedRequest | undefined {
    let worst: QueuedRequest | undefined;
    for (const item of this.items) if (!worst || compareQueued(item, worst) > 0) worst = item;
    return worst;
  }

  remove(request: QueuedRequest): boolean {
    const index = this.items.indexOf(request);
    if (index < 0) return false;
    this.items.splice(index, 1);
    return true;
  }

  /** How many requests go before `request` (its place in line, 0 = next). */
  positionOf(request: QueuedRequest): number {
    let ahead = 0;
    for (const item of this.items) if (item !== request && compareQueued(item, request) < 0) ahead += 1;
    return ahead;
  }

  /** Counts per priority (for metrics). */
  counts(): Record<UpstreamPriority, number> {
    const counts: Record<UpstreamPriority, number> = { operation: 0, missed: 0, background: 0 };
    for (const item of this.items) counts[item.priority] += 1;
    return counts;
  }
}
