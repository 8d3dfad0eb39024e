/**
 * A sliding-window log: the send times of one key's upstream requests, so that at most
 * `allowance` of them fall within any `windowMs`. Unlike a token bucket (which refills
 * one request every `windowMs / N` and so sends an eleventh request inside the first
 * minute), a log is safe under the upstream's fixed window (NestJS's throttler counts
 * from a key's first hit) and under a sliding one alike.
 *
 * When to use: the in-memory budget of one process; Redis keeps the same log as a sorted
 * set for replicas (see `RedisSharedState.takeWindowSlot`).
 */
export class SlidingWindowLog {
  private readonly logs = new Map<string, number[]>();

  /** @param windowMs - window length, ms */
  constructor(
    /** Window length, ms. */
    readonly windowMs: number,
  ) {}

  /**
   * Records a request of `keyId` at `now` when fewer than `allowance` fall within the window.
   *
   * @returns 0 when it was recorded; else the ms until one more request fits
   */
  take(keyId: string, allowance: number, now: number): number {
    const log = this.prune(keyId, now);
    const wait = waitMs(log, allowance, this.windowMs, now);
    if (wait === 0) {
      log.push(now);
      this.logs.set(keyId, log);
    }
    return wait;
  }

  /**
   * Moves a request's place in the log from when it was sent to when its answer arrived
   * (`doneAt`): the upstream counted it somewhere in between, at its arrival, so only the
   * answer's time is a safe start of its window. Without this, a request whose way there
   * was slow (a new connection) and a later one whose way was fast land less than a
   * window apart at the upstream though they were sent a whole window apart: a 429 at
   * the window's edge. Adds `doneAt` also when `sentAt` has already left the window.
   */
  settle(keyId: string, sentAt: number, doneAt: number): void {
    const log = this.logs.get(keyId);
    const index = log?.indexOf(sentAt) ?? -1;
    if (index >= 0) log?.splice(index, 1);
    this.record(keyId, doneAt);
  }

  /** Records a request at `at`, in order: one sent elsewhere (the shared log took it), so local estimates see it, or a settled one. */
  record(keyId: string, at: number): void {
    const log = this.logs.get(keyId) ?? [];
    log.push(at);
    log.sort((a, b) => a - b);
    this.logs.set(keyId, log);
  }

  /** Send times of `keyId` within the window ending at `now`, oldest first. */
  times(keyId: string, now: number): readonly number[] {
    return this.prune(keyId, now);
  }

  /** Requests of all keys within their windows now (for metrics), and how many keys have any. */
  totals(now: number): { requests: number; keys: number } {
    let requests = 0;
    let keys = 0;
    for (const keyId of [...this.logs.keys()]) {
      const count = this.prune(keyId, now).length;
      requests += count;
      if (count > 0) keys += 1;
    }
    return { requests, keys };
  }

  private prune(keyId: string, now: number): number[] {
    const log = this.logs.get(keyId);
    if (!log) return [];
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < log.length && (log[drop] ?? 0) <= from) drop += 1;
    if (drop > 0) log.splice(0, drop);
    if (log.length === 0) this.logs.delete(keyId);
    return log;
  }
}

/**
 * The ms until one more request fits a log of send times (oldest first, all within the
 * window ending at `now`) under `allowance`: 0 when it fits now, else until enough old
 * requests have left the window.
 */
export function waitMs(log: readonly number[], allowance: number, windowMs: number, now: number): number {
  const limit = Math.max(1, Math.floor(allowance));
  if (log.length < limit) return 0;
  const freeing = log[log.length - limit] ?? now;
  return Math.max(1, freeing + windowMs - now);
}

/**
 * When each of `count` more requests could be sent, at the earliest, given the send
 * times already in the window: the plan the queue follows when the budget allows.
 * Used to tell callers when the gateway expects to hold their data.
 *
 * @returns epoch ms of each request, in order
 */
export function plannedSendTimes(
  log: readonly number[],
  count: number,
  allowance: number,
  windowMs: number,
  notBefore: number,
): number[] {
  const limit = Math.max(1, Math.floor(allowance));
  const times = [...log];
  const planned: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const at =
      times.length < limit ? notBefore : Math.max(notBefore, (times[times.length - limit] ?? notBefore) + windowMs);
    times.push(at);
    planned.push(at);
  }
  return planned;
}
