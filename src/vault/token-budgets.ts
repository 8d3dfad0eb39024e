/**
 * `tokens create --budget-share n`: a token may start at most n upstream requests in any
 * window of its key's budget (`UPSTREAM_RATE_LIMIT`'s seconds), on this replica. A sliding
 * log of start times per token id, in memory.
 */
export class TokenBudgets {
  private readonly logs = new Map<string, number[]>();

  /**
   * @param windowMs - the window, ms (`UPSTREAM_RATE_LIMIT`'s seconds, 60 when it is off)
   * @param now - the clock (tests)
   */
  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

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
