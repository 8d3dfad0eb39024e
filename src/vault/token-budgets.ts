import { randomUUID } from 'node:crypto';

/** A sliding-window log shared by the replicas (the economy's Redis shared state; see its `takeWindowSlot`). */
export interface SharedWindowLog {
  /** Takes one request of `allowance` per `windowMs` from the log `id`: 0 = taken; >0 = ms until one fits; null = store unavailable. */
  takeWindowSlot(id: string, allowance: number, windowMs: number, now: number, member: string): Promise<number | null>;
}

/**
 * `tokens create --budget-share n`: a token may start at most n upstream requests in any
 * window of its key's budget (`UPSTREAM_RATE_LIMIT`'s seconds). A sliding log of start
 * times per token (and key, for a token over several characters): in memory, per replica,
 * or with `shared` (Redis, `REDIS_URL`) one log for every replica, the process's own log
 * deciding while Redis is unavailable.
 */
export class TokenBudgets {
  private readonly logs = new Map<string, number[]>();

  /**
   * @param windowMs - the window, ms (`UPSTREAM_RATE_LIMIT`'s seconds, 60 when it is off)
   * @param now - the clock (tests)
   * @param shared - the replicas' shared log (Redis), or null: this replica's count only
   */
  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly shared: SharedWindowLog | null = null,
  ) {}

  /** True when the shares are counted across replicas ({@link takeShared}); else {@link take}. */
  get replicated(): boolean {
    return this.shared !== null;
  }

  /**
   * Takes one request of a token's share from the log every replica shares (Redis); from
   * this process's own log when there is none or Redis is unavailable.
   *
   * @returns null when it may start, else the ms until one more fits the window
   */
  async takeShared(tokenId: string, share: number): Promise<number | null> {
    if (!this.shared) return this.take(tokenId, share);
    const waitMs = await this.shared.takeWindowSlot(`token:${tokenId}`, share, this.windowMs, this.now(), randomUUID());
    if (waitMs === null) return this.take(tokenId, share);
    return waitMs === 0 ? null : waitMs;
  }

  /**
   * Takes one request of a token's share.
   *
   * @returns null when it may start, else the ms until the oldest request of the window leaves it
   */
  take(tokenId: string, share: number): number | null {
    const now = this.now();
    const log = (this.logs.get(tokenId) ?? []).filter((at) => at > now - this.windowMs);
    this.logs.set(tokenId, log);
    if (log.length >= share) return (log[0] ?? now) + this.windowMs - now;
    log.push(now);
    return null;
  }
}
