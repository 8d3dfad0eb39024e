import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { SharedKeyLimits, SharedState } from '../shared-state/shared-state';
import { PRIORITY_RANK } from './priority';
import type { UpstreamPriority } from './priority';
import type { QueueTicket } from './queue-ticket';
import { plannedSendTimes, SlidingWindowLog } from './sliding-window-log';

/**
 * Added to the time a request's answer arrived when it takes its place in the window log,
 * ms: room for an upstream that counts in coarser steps than the gateway's clock. A window
 * of 60 s then ends 60.25 s after the answer; the company page's floor grows by 0.25 s.
 */
export const WINDOW_EDGE_MARGIN_MS = 250;

/** Settings of {@link KeyLimiter}; all times in ms unless named otherwise. */
export interface KeyLimiterOptions {
  /** The per-key budget: at most `requests` in any `windowMs`; null turns it off. */
  limit: { requests: number; windowMs: number } | null;
  /** Most upstream requests in flight per key. */
  concurrency: number;
  /** Default patience: longest an operation's request waits for budget or a slot before failing (background requests wait as long as needed). */
  patienceMs: number;
  /** Most requests of one key waiting for budget (default 1000); more are refused (and counted). */
  maxQueuedPerKey?: number;
  /** Most requests of all keys together waiting for budget (default 20000); more are refused (and counted). */
  maxQueuedTotal?: number;
  /** Clock (tests use fake timers, which drive `Date.now`). */
  now?: () => number;
  /** State shared with other replicas (cooldowns and the window log), when there is any. */
  shared?: Pick<SharedState, 'keyLimits' | 'setCooldown' | 'takeWindowSlot' | 'settleWindowSlot'>;
  /**
   * Added to the time a request's answer arrived when it takes its place in the window
   * log, ms (default {@link WINDOW_EDGE_MARGIN_MS}): room for an upstream that counts in coarser steps than the
   * gateway's clock. See {@link KeyLimiter.acquire}.
   */
  edgeMarginMs?: number;
  /** Told of each request refused because its key's queue was full. */
  onDropped?: (priority: UpstreamPriority) => void;
  /**
   * Missed requests of the key that wait elsewhere (background fill's queue) for their turn:
   * `background` requests wait behind them as behind queued `missed` ones, so refresh-ahead
   * and polls never take the budget the fill planned on.
   */
  missedElsewhere?: (id: string) => number;
}

/** Why a request may not go upstream now, and for how long. */
export class LimitExceeded extends Error {
  constructor(
    /** Whole seconds until a request may be sent again (at least 1). */
    readonly retryAfterSeconds: number,
    /** `cooldown`: the upstream answered 429; `budget`: the gateway's own per-key budget or queue. */
    readonly reason: 'cooldown' | 'budget',
  ) {
    super(reason === 'cooldown' ? 'The upstream rate limit of this key is cooling down' : 'The per-key upstream budget is spent');
    this.name = 'LimitExceeded';
  }
}

/** What {@link KeyLimiter.acquire} is told about one request. */
export interface AcquireOptions {
  /** Who waits for it (default `operation`); lower priorities wait while higher ones are queued. */
  priority?: UpstreamPriority;
  /** This operation's patience, ms (from `Prefer: wait`); default the limiter's `patienceMs`. Background priorities ignore it. */
  patienceMs?: number;
  /**
   * The flight's ticket: its priority (overrides `priority`; callers joining the flight
   * may raise it while it waits) and where the request is, kept up to date here.
   */
  ticket?: QueueTicket;
}

/** A request's place in the window log: when it was taken, and its member in the shared log. */
interface TakenSlot {
  at: number;
  member: string;
}

interface KeyState {
  /** Epoch ms until which nothing is sent (after an upstream 429). */
  cooldownUntil: number;
  /** The learned allowance after the last 429 (it grows back by one request per window), and when it was learned. */
  allowance: number;
  learnedAt: number;
  /** 429s without `Retry-After` in a row (each within a window after the previous cooldown ended). */
  backoffStreak: number;
  /** Requests in flight. */
  active: number;
  /** Requests waiting for a slot, in arrival order. */
  waiting: Array<() => void>;
  /** Requests waiting for budget, per priority. */
  queued: Record<UpstreamPriority, number>;
}

/**
 * The per-key traffic rules in front of the upstream:
 *
 * - a 429 cooldown: nothing is sent for the key until `Retry-After` has passed;
 * - a budget kept as a sliding-window log (see `SlidingWindowLog`): at most N requests
 *   in any window, in this process or, with Redis, across every replica; never a
 *   request the budget cannot afford;
 * - rate learning: an upstream 429 halves the key's allowance, which then grows back by
 *   one request per window without a 429;
 * - priorities: while requests of a higher priority wait for budget, lower ones wait
 *   behind them (operations first, then missed requests, then background work);
 * - a concurrency limit per key.
 *
 * An operation's request waits at most its patience (`patienceMs`, or the operation's own
 * from `Prefer: wait`), then fails with
 * {@link LimitExceeded} (with the seconds until the budget allows it); background
 * requests wait as long as it takes.
 *
 * When to use: one per process, shared by every operation; call {@link acquire} before
 * each upstream request and the returned release function once after it.
 */
export class KeyLimiter {
  private readonly states = new LRUCache<string, KeyState>({ max: 100_000 });
  private readonly log: SlidingWindowLog | null;
  private readonly now: () => number;
  /** Requests of all keys waiting for budget now. */
  private queuedTotal = 0;

  constructor(private readonly options: KeyLimiterOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.limit ? new SlidingWindowLog(options.limit.windowMs) : null;
  }

  private state(id: string): KeyState {
    let state = this.states.get(id);
    if (!state) {
      const requests = this.options.limit?.requests ?? 0;
      state = { cooldownUntil: 0, allowance: requests, learnedAt: 0, backoffStreak: 0, active: 0, waiting: [], queued: { operation: 0, missed: 0, background: 0 } };
      this.states.set(id, state);
    }
    return state;
  }

  /** Seconds left of the key's 429 cooldown, or 0. */
  cooldownSeconds(id: string): number {
    const left = (this.states.peek(id)?.cooldownUntil ?? 0) - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** The key's allowance now: the limit, or less while it grows back after a 429. */
  allowance(id: string): number {
    const limit = this.options.limit;
    if (!limit) return Number.POSITIVE_INFINITY;
    const state = this.states.peek(id);
    return state ? grownAllowance(state, limit, this.now()) : limit.requests;
  }

  /**
   * When the key could send each of `count` more requests at `missed` priority, at the
   * earliest (epoch ms, ascending): after its cooldown, and after the operations waiting
   * for its budget, on its window log. For background fill, which sends missed requests
   * when the budget has room.
   */
  plannedTimes(id: string, count: number): number[] {
    const now = this.now();
    const state = this.states.peek(id);
    const notBefore = Math.max(now, state?.cooldownUntil ?? 0);
    const limit = this.options.limit;
    if (!limit || !this.log) return Array.from({ length: count }, () => notBefore);
    const ahead = state?.queued.operation ?? 0;
    return plannedSendTimes(this.log.times(id, now), ahead + count, this.allowance(id), limit.windowMs, notBefore).slice(ahead);
  }

  /**
   * The gateway's own backoff for an upstream 429 that came without `Retry-After`: `base`
   * seconds, doubled for each such 429 that follows within a window after the previous
   * backoff ended (the upstream still says no), at most `max`. A key that stayed clear of
   * 429s for a window after its backoff starts again at `base`.
   *
   * @returns the seconds to cool down; pass them to {@link coolDown}
   */
  backoffSeconds(id: string, base: number, max: number): number {
    const state = this.state(id);
    const windowMs = this.options.limit?.windowMs ?? 60_000;
    const again = state.backoffStreak > 0 && this.now() < state.cooldownUntil + windowMs;
    state.backoffStreak = again ? state.backoffStreak + 1 : 1;
    return Math.min(max, base * 2 ** Math.min(30, state.backoffStreak - 1));
  }

  /**
   * Records an upstream 429: nothing more is sent for the key for `seconds`, and its
   * allowance is halved (at least 1); with shared state, by every replica (each reads both
   * before its next request of the key).
   */
  coolDown(id: string, seconds: number): void {
    const state = this.state(id);
    state.allowance = Math.max(1, Math.floor(this.allowance(id) / 2));
    state.learnedAt = this.now();
    state.cooldownUntil = Math.max(state.cooldownUntil, this.now() + seconds * 1000);
    const limit = this.options.limit;
    const keepMs = limit ? (limit.requests - state.allowance) * limit.windowMs : 0;
    void this.options.shared?.setCooldown(id, state.cooldownUntil, { allowance: state.allowance, learnedAt: state.learnedAt, keepMs });
  }

  /**
   * Waits until the key may send one request. Resolves to the function that must be
   * called exactly once when the request has finished.
   *
   * @throws LimitExceeded during a cooldown, when the key's queue is full, or when an
   *   operation's budget or slot is not free within the queue timeout.
   */
  async acquire(id: string, options: AcquireOptions = {}): Promise<() => void> {
    const ticket = options.ticket;
    const priority = ticket?.priority ?? options.priority ?? 'operation';
    const state = this.state(id);
    const patient = priority !== 'operation';
    const deadline = patient ? Number.POSITIVE_INFINITY : this.now() + (options.patienceMs ?? this.options.patienceMs);
    const shared = this.options.shared;
    ticket?.markQueued();
    if (shared) this.adopt(state, await shared.keyLimits(id));
    if (!patient) this.checkCooldown(state);
    const slot = this.options.limit ? await this.takeBudget(state, id, priority, deadline, ticket) : null;
    if (state.active >= this.options.concurrency) await this.waitForSlot(state, deadline);
    if (!patient) this.checkCooldown(state);
    state.active += 1;
    ticket?.markSent();
    let released = false;
    return () => {
      // Defensive only: callers release exactly once (the retry gives each attempt its own slot).
      if (released) return;
      released = true;
      state.active -= 1;
      if (slot) this.settle(id, slot);
      state.waiting.shift()?.();
    };
  }

  /**
   * A finished request's place in the window log moves from when it was taken to when its
   * answer arrived, plus the edge margin: the upstream counted it at its arrival, which
   * only the answer bounds (a first request that opened a connection arrives later after
   * being sent than the next one does, so send times a window apart can arrive less than
   * a window apart, and the later one draws a 429).
   */
  private settle(id: string, slot: TakenSlot): void {
    const limit = this.options.limit;
    if (!limit || !this.log) return;
    const at = Math.max(slot.at, this.now() + (this.options.edgeMarginMs ?? WINDOW_EDGE_MARGIN_MS));
    this.log.settle(id, slot.at, at);
    void this.options.shared?.settleWindowSlot(id, slot.member, at, limit.windowMs + (at - this.now()));
  }

  /**
   * Requests in the current windows of all keys, and the keys whose learned allowance is
   * below the limit (for metrics). One pass over the keys' states, read in place: nothing
   * in the loop may look a key up through the LRU (`get` moves the entry to the front while
   * the loop walks towards the back, and the walk never ends).
   */
  budgetStats(): { windowRequests: number; reducedKeys: number; queued: Record<UpstreamPriority, number> } {
    const now = this.now();
    let reducedKeys = 0;
    const queued: Record<UpstreamPriority, number> = { operation: 0, missed: 0, background: 0 };
    const limit = this.options.limit;
    for (const state of this.states.values()) {
      if (limit && grownAllowance(state, limit, now) < limit.requests) reducedKeys += 1;
      queued.operation += state.queued.operation;
      queued.missed += state.queued.missed;
      queued.background += state.queued.background;
    }
    return { windowRequests: this.log?.totals(now).requests ?? 0, reducedKeys, queued };
  }

  /** Takes what other replicas learned of the key: a longer cooldown, a newer allowance. */
  private adopt(state: KeyState, limits: SharedKeyLimits): void {
    state.cooldownUntil = Math.max(state.cooldownUntil, limits.cooldownUntil);
    if (limits.allowance !== null && limits.learnedAt > state.learnedAt) {
      state.allowance = limits.allowance;
      state.learnedAt = limits.learnedAt;
    }
  }

  private checkCooldown(state: KeyState): void {
    const left = state.cooldownUntil - this.now();
    if (left > 0) throw new LimitExceeded(Math.ceil(left / 1000), 'cooldown');
  }

  /** Requests of higher priority than `priority` waiting for the key's budget. */
  private ahead(state: KeyState, priority: UpstreamPriority, id: string): number {
    let count = PRIORITY_RANK[priority] > PRIORITY_RANK.missed ? (this.options.missedElsewhere?.(id) ?? 0) : 0;
    for (const other of Object.keys(state.queued) as UpstreamPriority[]) {
      if (PRIORITY_RANK[other] < PRIORITY_RANK[priority]) count += state.queued[other];
    }
    return count;
  }

  /**
   * Takes one request from the key's window log (the shared one when Redis answers,
   * else this process's), waiting behind higher priorities and for the window to free.
   *
   * @throws LimitExceeded when the key's queue is full, or the wait would pass the deadline
   */
  private async takeBudget(state: KeyState, id: string, initial: UpstreamPriority, deadline: number, ticket: QueueTicket | undefined): Promise<TakenSlot | null> {
    const limit = this.options.limit;
    const log = this.log;
    if (!limit || !log) return null;
    const queuedNow = state.queued.operation + state.queued.missed + state.queued.background;
    if (queuedNow >= (this.options.maxQueuedPerKey ?? 1000) || this.queuedTotal >= (this.options.maxQueuedTotal ?? 20_000)) {
      this.options.onDropped?.(initial);
      throw new LimitExceeded(Math.max(1, Math.ceil(limit.windowMs / 1000)), 'budget');
    }
    let priority = initial;
    state.queued[priority] += 1;
    this.queuedTotal += 1;
    try {
      for (;;) {
        if (ticket && ticket.priority !== priority) {
          // A caller joined the flight at a higher priority: it waits in that line now.
          state.queued[priority] -= 1;
          priority = ticket.priority;
          state.queued[priority] += 1;
        }
        const now = this.now();
        const allowance = this.allowance(id);
        const notBefore = Math.max(now, state.cooldownUntil);
        const ahead = this.ahead(state, priority, id);
        // The member names the request in the shared log (only there is it needed).
        const slot: TakenSlot = { at: now, member: this.options.shared ? `${now}-${randomUUID()}` : '' };
        let waitMs: number;
        if (notBefore > now) {
          waitMs = notBefore - now;
        } else if (ahead > 0) {
          // Higher priorities first: wait until the window has room for them and this one.
          const planned = plannedSendTimes(log.times(id, now), ahead + 1, allowance, limit.windowMs, now);
          waitMs = Math.max(0, (planned[ahead] ?? now) - now);
          if (waitMs === 0) waitMs = this.take(id, allowance, now, log) ? 0 : await this.takeShared(id, allowance, slot, log);
        } else {
          waitMs = await this.takeShared(id, allowance, slot, log);
        }
        if (waitMs === 0) return slot;
        // When the gateway expects this request to fit: its place in line, planned on the log.
        const planned = plannedSendTimes(log.times(id, now), ahead + 1, allowance, limit.windowMs, notBefore);
        const at = Math.max(planned[ahead] ?? now + waitMs, now + waitMs);
        if (ticket) ticket.expectedAt = at;
        if (now + waitMs > deadline) throw new LimitExceeded(Math.max(1, Math.ceil((at - now) / 1000)), 'budget');
        await (ticket ? ticket.sleep(waitMs) : new Promise<void>((resolve) => setTimeout(resolve, waitMs)));
      }
    } finally {
      state.queued[priority] -= 1;
      this.queuedTotal -= 1;
    }
  }

  /** Takes from the local log only (when higher priorities fit too); true when taken. */
  private take(id: string, allowance: number, now: number, log: SlidingWindowLog): boolean {
    if (this.options.shared) return false; // the shared log decides
    return log.take(id, allowance, now) === 0;
  }

  /** Takes from the shared log, or this process's when Redis does not answer: 0 = taken, else ms to wait. */
  private async takeShared(id: string, allowance: number, slot: TakenSlot, log: SlidingWindowLog): Promise<number> {
    const limit = this.options.limit;
    const shared = this.options.shared;
    const now = slot.at;
    if (shared && limit) {
      const waitMs = await shared.takeWindowSlot(id, allowance, limit.windowMs, now, slot.member);
      if (waitMs !== null) {
        if (waitMs === 0) log.record(id, now);
        return waitMs;
      }
    }
    return log.take(id, allowance, now);
  }

  private waitForSlot(state: KeyState, deadline: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = Number.isFinite(deadline)
        ? setTimeout(() => {
            const index = state.waiting.indexOf(wake);
            if (index >= 0) state.waiting.splice(index, 1);
            reject(new LimitExceeded(1, 'budget'));
          }, Math.max(0, deadline - this.now()))
        : undefined;
      state.waiting.push(wake);
    });
  }
}

/** A key's allowance at `now`: its learned allowance plus one request per whole window since it was learned, at most the limit. */
function grownAllowance(state: Pick<KeyState, 'allowance' | 'learnedAt'>, limit: { requests: number; windowMs: number }, now: number): number {
  const grown = state.allowance + Math.floor(Math.max(0, now - state.learnedAt) / limit.windowMs);
  return Math.min(limit.requests, grown);
}
