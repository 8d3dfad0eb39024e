/** One GET an operation could not afford, to be fetched in the background. */
export interface MissedRequest {
  /** The hashed key (state) and the key itself (only for the upstream header). */
  keyId: string;
  /** The API key itself, only for the upstream header; never logged or persisted. */
  apiKey: string;
  /** The cache key of the request (hashed key and path). */
  key: string;
  /** Sends the request at priority `missed` and stores the answer (the economy's `fetchInBackground`). */
  fetch: () => Promise<unknown>;
  /** True when the cache holds a fresh answer already (someone fetched it meanwhile): then it is skipped. */
  isFresh: () => boolean;
}

/** Settings of {@link BackgroundFill}. */
export interface BackgroundFillOptions {
  /** When the key could send each of `count` more requests at priority `missed` (epoch ms, ascending). */
  plan: (keyId: string, count: number) => number[];
  /** Most missed requests kept per key, and over all keys; more are dropped (and counted). */
  maxPerKey: number;
  /** Most missed requests kept over all keys. */
  maxTotal: number;
  /** Told of each missed request dropped because a bound was reached. */
  onDropped?: () => void;
  /** Clock, epoch ms. */
  now: () => number;
}

interface Pending {
  request: MissedRequest;
  /** How many operations missed it since it was queued. */
  count: number;
}

interface KeyQueue {
  pending: Map<string, Pending>;
  timer: NodeJS.Timeout | undefined;
  /** True while a batch is being fetched (the next is planned when it has finished). */
  running: boolean;
}

/**
 * Background fill: what an operation could not afford (its patience ran out before the
 * key's budget had room) stays queued here and is fetched as the budget refills, without
 * any client asking again, so that a view after the `retryAfterSeconds` it was told is
 * complete.
 *
 * Per key, a timer waits until the budget can afford the next request (the key's plan of
 * send times, after the operations waiting for it), then fetches as many missed requests
 * as the budget affords at once, the most requested first, waits for them to finish, and
 * plans the next batch. A request someone fetched meanwhile (its cache entry is fresh) is
 * skipped at no cost. Queues are bounded per key and overall; what does not fit is
 * dropped and counted.
 *
 * When to use: one per economy; the economy calls {@link note} when an operation's GET
 * failed with `RATE_LIMITED` raised before any request was sent.
 */
export class BackgroundFill {
  private readonly keys = new Map<string, KeyQueue>();
  private total = 0;
  private closed = false;

  /** @param options - how to plan sends, the bounds, the clock */
  constructor(private readonly options: BackgroundFillOptions) {}

  /**
   * Queues a missed request (or counts one more operation that missed it).
   *
   * @returns epoch ms when the request is expected to be sent (its place in the key's
   *   queue, planned on the budget), or null when it was dropped
   */
  note(request: MissedRequest): number | null {
    if (this.closed) return null;
    const queue = this.keys.get(request.keyId) ?? {
      pending: new Map<string, Pending>(),
      timer: undefined,
      running: false,
    };
    const existing = queue.pending.get(request.key);
    if (existing) {
      existing.count += 1;
    } else {
      if (queue.pending.size >= this.options.maxPerKey || this.total >= this.options.maxTotal) {
        this.options.onDropped?.();
        return null;
      }
      this.keys.set(request.keyId, queue);
      queue.pending.set(request.key, { request, count: 1 });
      this.total += 1;
    }
    const position = this.order(queue).findIndex((entry) => entry.request.key === request.key);
    const planned = this.options.plan(request.keyId, position + 1);
    this.schedule(request.keyId, queue);
    return planned[position] ?? this.options.now();
  }

  /** Missed requests waiting, over all keys. */
  get size(): number {
    return this.total;
  }

  /** Missed requests of one key waiting here (not yet handed to the key's limiter). */
  pendingFor(keyId: string): number {
    return this.keys.get(keyId)?.pending.size ?? 0;
  }

  /** Stops every timer; queued requests are forgotten (at shutdown). */
  close(): void {
    this.closed = true;
    for (const queue of this.keys.values()) clearTimeout(queue.timer);
    this.keys.clear();
    this.total = 0;
  }

  private order(queue: KeyQueue): Pending[] {
    // Stable: equally requested ones keep their arrival order.
    return [...queue.pending.values()].sort((a, b) => b.count - a.count);
  }

  private schedule(keyId: string, queue: KeyQueue): void {
    if (queue.timer || queue.running || this.closed) return;
    if (queue.pending.size === 0) {
      this.keys.delete(keyId);
      return;
    }
    const now = this.options.now();
    const at = this.options.plan(keyId, 1)[0] ?? now;
    queue.timer = setTimeout(
      () => {
        queue.timer = undefined;
        void this.pump(keyId, queue);
      },
      Math.max(0, at - now),
    );
    queue.timer.unref();
  }

  /** Fetches what the budget affords now, most requested first, then plans the next batch. */
  private async pump(keyId: string, queue: KeyQueue): Promise<void> {
    const now = this.options.now();
    const order = this.order(queue);
    // At least one: the plan said the budget has room now.
    let affordable = Math.max(1, this.options.plan(keyId, order.length).filter((at) => at <= now).length);
    const batch: Array<Promise<unknown>> = [];
    for (const entry of order) {
      if (affordable === 0) break;
      queue.pending.delete(entry.request.key);
      this.total -= 1;
      if (entry.request.isFresh()) continue;
      affordable -= 1;
      // A failure is the fetch's own business (it is not cached; the next view asks again).
      batch.push(entry.request.fetch().catch(() => undefined));
    }
    queue.running = true;
    await Promise.all(batch);
    queue.running = false;
    this.schedule(keyId, queue);
  }
}
