import { LRUCache } from 'lru-cache';
import type { SharedState } from '../shared-state/shared-state';

/** Settings of {@link KeyLimiter}; all times in ms unless named otherwise. */
export interface KeyLimiterOptions {
  /** Requests per minute per key; 0 turns the budget off. */
  ratePerMinute: number;
  /** Largest burst of the budget (bucket size). */
  burst: number;
  /** Most upstream requests in flight per key. */
  concurrency: number;
  /** Longest a request waits for budget or a slot before failing. */
  queueTimeoutMs: number;
  /** Clock (tests use fake timers, which drive `Date.now`). */
  now?: () => number;
  /** State shared with other replicas (cooldowns and budget), when there is any. */
  shared?: Pick<SharedState, 'cooldownUntil' | 'setCooldown' | 'consumeBudget'>;
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

interface KeyState {
  /** Epoch ms until which nothing is sent (after an upstream 429). */
  cooldownUntil: number;
  /** Token bucket level; negative while requests wait for reserved tokens. */
  tokens: number;
  /** When `tokens` was last refilled. */
  refilledAt: number;
  /** Requests in flight. */
  active: number;
  /** Requests waiting for a slot, in arrival order. */
  waiting: Array<() => void>;
}

/**
 * The per-key traffic rules in front of the upstream: a 429 cooldown (nothing is
 * sent for the key until `Retry-After` has passed), an optional token-bucket budget,
 * and a concurrency limit. A request waits at most `queueTimeoutMs` for budget or a
 * slot, then fails with {@link LimitExceeded}.
 *
 * When to use: one per process, shared by every operation; call {@link acquire}
 * before each upstream request and the returned release function after it.
 */
export class KeyLimiter {
  private readonly states = new LRUCache<string, KeyState>({ max: 100_000 });
  private readonly now: () => number;

  constructor(private readonly options: KeyLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  private state(id: string): KeyState {
    let state = this.states.get(id);
    if (!state) {
      state = { cooldownUntil: 0, tokens: this.options.burst, refilledAt: this.now(), active: 0, waiting: [] };
      this.states.set(id, state);
    }
    return state;
  }

  /** Seconds left of the key's 429 cooldown, or 0. */
  cooldownSeconds(id: string): number {
    const left = (this.states.get(id)?.cooldownUntil ?? 0) - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Records an upstream 429: nothing more is sent for the key for `seconds`, by any replica. */
  coolDown(id: string, seconds: number): void {
    const state = this.state(id);
    state.cooldownUntil = Math.max(state.cooldownUntil, this.now() + seconds * 1000);
    void this.options.shared?.setCooldown(id, state.cooldownUntil);
  }

  /**
   * Waits until the key may send one request. Resolves to the function that must be
   * called exactly once when the request has finished.
   *
   * @throws LimitExceeded during a cooldown, or when budget or slot is not free within the queue timeout.
   */
  async acquire(id: string): Promise<() => void> {
    const state = this.state(id);
    const deadline = this.now() + this.options.queueTimeoutMs;
    const shared = this.options.shared;
    if (shared) state.cooldownUntil = Math.max(state.cooldownUntil, await shared.cooldownUntil(id));
    this.checkCooldown(state);
    if (this.options.ratePerMinute > 0) {
      if (!(shared && (await this.takeSharedBudget(shared, id, deadline)))) await this.takeToken(state);
    }
    if (state.active >= this.options.concurrency) await this.waitForSlot(state, deadline);
    this.checkCooldown(state);
    state.active += 1;
    let released = false;
    return () => {
      // Defensive only: callers release exactly once (the retry gives each attempt its own slot).
      if (released) return;
      released = true;
      state.active -= 1;
      state.waiting.shift()?.();
    };
  }

  private checkCooldown(state: KeyState): void {
    const left = state.cooldownUntil - this.now();
    if (left > 0) throw new LimitExceeded(Math.ceil(left / 1000), 'cooldown');
  }

  /**
   * Takes one request from the budget all replicas share, waiting for it within the
   * deadline. False when the shared store is unavailable (the local bucket decides).
   *
   * @throws LimitExceeded when no request is free before the deadline.
   */
  private async takeSharedBudget(shared: NonNullable<KeyLimiterOptions['shared']>, id: string, deadline: number): Promise<boolean> {
    for (;;) {
      const waitMs = await shared.consumeBudget(id);
      if (waitMs === null) return false;
      if (waitMs === 0) return true;
      if (this.now() + waitMs > deadline) throw new LimitExceeded(Math.max(1, Math.ceil(waitMs / 1000)), 'budget');
      await new Promise<void>((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private async takeToken(state: KeyState): Promise<void> {
    const perMs = this.options.ratePerMinute / 60_000;
    const now = this.now();
    state.tokens = Math.min(this.options.burst, state.tokens + (now - state.refilledAt) * perMs);
    state.refilledAt = now;
    state.tokens -= 1; // reserve: waiting requests queue up behind each other in order
    if (state.tokens >= 0) return;
    const waitMs = Math.ceil(-state.tokens / perMs);
    if (waitMs > this.options.queueTimeoutMs) {
      state.tokens += 1;
      throw new LimitExceeded(Math.max(1, Math.ceil(waitMs / 1000)), 'budget');
    }
    await new Promise<void>((resolve) => setTimeout(resolve, waitMs));
  }

  private waitForSlot(state: KeyState, deadline: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = state.waiting.indexOf(wake);
        if (index >= 0) state.waiting.splice(index, 1);
        reject(new LimitExceeded(1, 'budget'));
      }, Math.max(0, deadline - this.now()));
      state.waiting.push(wake);
    });
  }
}
