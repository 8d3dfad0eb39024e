import { randomUUID } from 'node:crypto';
import { KeyConnectionGate } from '../../upstream/key-connections';
import { growingLru } from '../growing-lru';
import type { UpstreamPriority } from '../queue/priority';
import type { QueueTicket } from '../queue/queue-ticket';
import { WaitingLines } from '../queue/waiting-lines';
import type { AcquireOptions, BudgetStats, KeyBudgetOptions } from './budget-types';
import { adoptShared, allowanceOf, learn429, newKeyState, perMinuteShare, stateTotals } from './key-state';
import type { BudgetLimit, KeyState } from './key-state';
import { isUpstream429, LimitExceeded } from '../limit-exceeded';
import { SlidingWindowLog } from './sliding-window-log';
import { takeBudget, waitOutCooldown } from './take-budget';
import { settleSlot, takeSharedSlot, waitForSlot } from './budget-slots';
import { backoffSeconds, unexplained429 } from './unexplained-429';
import { planQueue } from './plan';
import type { TakenSlot } from './take-budget';

export { WINDOW_EDGE_MARGIN_MS } from './budget-slots';

export type { KeyBudgetOptions } from './budget-types';

/**
 * Each key's upstream budget, and the one `acquire` every upstream request of the
 * economy goes through:
 *
 * - a 429 cooldown: nothing is sent for the key until `Retry-After` has passed;
 * - one sliding-window log per key (see `SlidingWindowLog`; with Redis the shared log
 *   decides, across every replica): at most N requests in any window, never a request
 *   the budget cannot afford;
 * - rate learning: an upstream 429 halves the key's allowance, which then grows back by
 *   one request per window without a 429;
 * - the priority queue in front of it (see `UpstreamPriority`, `WaitingLines`): writes,
 *   operations, missed requests, stale refreshes, background work;
 * - a concurrency limit per key.
 *
 * An operation's request waits at most its patience, then fails with
 * {@link LimitExceeded}; the others wait as long as it takes. When to use: one per
 * economy; {@link acquire} before each upstream request, the returned release once after
 * it, {@link observe} with each failure. Statistics never reorder the LRU.
 */
export class KeyBudget {
  private readonly states = growingLru<string, KeyState>(100_000);
  private readonly log: SlidingWindowLog | null;
  private readonly lines: WaitingLines;
  private readonly slots: KeyConnectionGate;
  private readonly now: () => number;

  /** @param options - the limit, concurrency, patience, queue bounds and hooks (see {@link KeyBudgetOptions}) */
  constructor(private readonly options: KeyBudgetOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.limit ? new SlidingWindowLog(options.limit.windowMs) : null;
    this.lines = new WaitingLines(options);
    this.slots = new KeyConnectionGate(Math.max(1, options.concurrency));
  }

  private state(id: string): KeyState {
    let state = this.states.get(id);
    if (!state) {
      state = newKeyState(this.options.limit);
      this.states.set(id, state);
    }
    return state;
  }

  /** Seconds left of the key's 429 cooldown (whole seconds, rounded up), or 0. */
  cooldownSeconds(id: string): number {
    const left = (this.states.peek(id)?.cooldownUntil ?? 0) - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** The key's allowance now, requests per window: the limit, or less while it grows back after a 429; `Infinity` when the budget is off. */
  allowance(id: string): number {
    return allowanceOf(this.states.peek(id), this.options.limit, this.now());
  }

  /**
   * Requests per minute that `percent` of the key's budget allows now (its allowance, so
   * less after an upstream 429): the share subscription polls may spend. `Infinity` when
   * the budget is off.
   */
  pollShare(id: string, percent: number): number {
    const limit = this.options.limit;
    return perMinuteShare(
      limit && { requests: limit.requests, windowSeconds: limit.windowMs / 1000 },
      this.allowance(id),
      percent,
    );
  }

  /**
   * When the key could send each of `count` more requests (epoch ms, ascending), behind
   * what waits ahead of `priority` (`alike`: of the same priority too); see `planQueue`.
   */
  plannedTimes(id: string, count: number, priority: UpstreamPriority = 'missed', alike = false): number[] {
    const { times, ahead } = this.plan(id, count, priority, alike);
    return times.slice(ahead);
  }

  /**
   * When the last of `writesLeft` writes of a write under way is expected to be sent
   * (epoch ms): one of them is queued or in flight now, behind the writes queued before it.
   */
  plannedCommit(id: string, writesLeft: number): number {
    return this.plan(id, Math.max(0, writesLeft - 1), 'write', true).times.at(-1) ?? this.now();
  }

  private plan(
    id: string,
    count: number,
    priority: UpstreamPriority,
    alike: boolean,
  ): { times: number[]; ahead: number } {
    const now = this.now();
    const limit = this.log ? this.options.limit : null;
    return planQueue(
      { state: this.states.peek(id), log: this.log?.times(id, now) ?? [], limit, allowance: this.allowance(id), now },
      count,
      priority,
      alike,
    );
  }

  /**
   * Records an upstream 429: nothing more is sent for the key for `seconds`, and its
   * allowance is halved (at least 1); with shared state, by every replica.
   */
  coolDown(id: string, seconds: number): void {
    const state = this.state(id);
    const keepMs = learn429(state, this.options.limit, this.now(), seconds);
    void this.options.shared?.setCooldown(id, state.cooldownUntil, {
      allowance: state.allowance,
      learnedAt: state.learnedAt,
      keepMs,
    });
  }

  /**
   * Learns from a failed request: an upstream 429 cools the key down for its
   * `Retry-After`, or, without one, for the gateway's own backoff (`defaultBackoffSeconds`,
   * doubled for each 429 soon after the previous backoff, at most `maxBackoffSeconds`),
   * which is then written into the error's `retryAfterSeconds`. Other errors: nothing.
   */
  observe(id: string, error: unknown): void {
    if (!isUpstream429(error)) return;
    const retryAfter = error.extensions.retryAfterSeconds;
    const state = this.state(id);
    const now = this.now();
    const seconds = typeof retryAfter === 'number' ? retryAfter : backoffSeconds(state, this.options, now);
    // A 429 the key's own requests do not explain (see unexplained429); without a budget there is no count to compare.
    const report = this.options.onUnexplained429;
    const sent = this.log?.times(id, now).length ?? 0;
    const unexplained =
      report && this.log ? unexplained429(id, state, this.options.limit ?? undefined, sent, now, seconds) : null;
    if (unexplained) report?.(unexplained);
    this.coolDown(id, seconds);
    this.options.onRateLimited?.('upstream');
    if (typeof retryAfter !== 'number') error.extensions.retryAfterSeconds = seconds;
  }

  /**
   * Waits until the key may send one request: no cooldown, room in its window behind
   * every request of a higher priority, and a free slot. Resolves to the function that
   * must be called exactly once when the request has finished (a second call does nothing).
   *
   * @throws LimitExceeded during a cooldown (operations only), when the key's queue is
   *   full, or when an operation's budget or slot is not free within its patience
   */
  async acquire(id: string, options: AcquireOptions = {}): Promise<() => void> {
    const ticket = options.ticket;
    const priority = ticket?.priority ?? options.priority ?? 'operation';
    const state = this.state(id);
    // Operations and writes are refused during a 429 cooldown; only operations have a deadline (a write's caller races its own patience).
    const patient = priority !== 'operation' && priority !== 'write';
    const deadline =
      priority !== 'operation'
        ? Number.POSITIVE_INFINITY
        : this.now() + (options.patienceMs ?? this.options.patienceMs);
    const shared = this.options.shared;
    ticket?.markQueued();
    if (shared) adoptShared(state, await shared.keyLimits(id));
    if (!patient) this.checkCooldown(state);
    else if (!this.log && priority === 'stale') await waitOutCooldown(state, this.now, ticket);
    const slot = this.options.limit && this.log ? await this.takeBudget(state, id, priority, deadline, ticket) : null;
    const releaseSlot = this.slots.tryAcquire(id) ?? (await waitForSlot(this.slots, id, deadline, this.now));
    if (!patient && state.cooldownUntil > this.now()) {
      releaseSlot();
      this.checkCooldown(state);
    }
    ticket?.markSent();
    let released = false;
    return () => {
      // Defensive only: callers release exactly once (the retry gives each attempt its own slot).
      if (released) return;
      released = true;
      releaseSlot();
      if (slot && this.options.limit && this.log) settleSlot(this.options, this.log, id, slot, this.now);
    };
  }

  /** Requests in the current windows of all keys (or of the key `id` only), keys with a reduced allowance, upstream 429s and what waits (for metrics and the console). */
  budgetStats(id?: string): BudgetStats {
    const now = this.now();
    // values() and peek() read each state without reordering the LRU (get() inside the loop would never end).
    const states = id === undefined ? this.states.values() : [this.states.peek(id) ?? newKeyState(this.options.limit)];
    return {
      windowRequests: (id === undefined ? this.log?.totals(now).requests : this.log?.times(id, now).length) ?? 0,
      ...stateTotals(states, this.options.limit, now),
    };
  }

  private takeBudget(
    state: KeyState,
    id: string,
    priority: UpstreamPriority,
    deadline: number,
    ticket: QueueTicket | undefined,
  ): Promise<TakenSlot> {
    const limit = this.options.limit as BudgetLimit;
    const log = this.log as SlidingWindowLog;
    return takeBudget(
      { id, state, priority, deadline, ticket },
      {
        limit,
        log,
        lines: this.lines,
        now: this.now,
        allowance: () => this.allowance(id),
        member: (now) => (this.options.shared ? `${now}-${randomUUID()}` : ''),
        takeShared: (allowance, slot, writeIntent) =>
          takeSharedSlot(this.options.shared, log, { id, allowance, slot, windowMs: limit.windowMs, writeIntent }),
        localOnly: !this.options.shared,
        onDropped: this.options.onDropped,
      },
    );
  }

  private checkCooldown(state: KeyState): void {
    const left = state.cooldownUntil - this.now();
    if (left > 0) throw new LimitExceeded(Math.ceil(left / 1000), 'cooldown');
  }
}
