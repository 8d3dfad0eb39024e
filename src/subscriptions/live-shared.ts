/**
 * One live query's execution shared by every subscriber of the identical operation of one
 * key (same document, operation name and variables): it runs once per change, and each
 * distinct result fans out to all its subscribers. A subscriber gets the latest result at
 * once, then each new one; a subscriber that reads slower than results come skips to the
 * latest (a live query's result is the whole state, an older one says nothing more).
 *
 * The execution ends when its last subscriber leaves (or when its source ends, which ends
 * every subscriber after its last result). A subscriber leaving never ends the others.
 */
import type { ExecutionResult } from 'graphql';

/** Where a result keeps its {@link sameness} text: a non-enumerable symbol, which no serialization, copy or comparison sees. */
const SAMENESS = Symbol('sameness');

/**
 * What makes two results of a live query the same: their data and errors (not their
 * extensions, e.g. a run's own figures), as JSON text. Computed once per result object:
 * the run compares it, and the shared execution compares the same object (the store
 * hands on the run's result itself).
 */
export function sameness(result: ExecutionResult): string {
  const remembered = result as ExecutionResult & { readonly [SAMENESS]?: string };
  const known = remembered[SAMENESS];
  if (known !== undefined) return known;
  const text = JSON.stringify({ data: result.data, errors: result.errors });
  if (Object.isExtensible(result)) Object.defineProperty(result, SAMENESS, { value: text });
  return text;
}

/** A result as a client receives it: no `isLive` marker. */
function plain(result: ExecutionResult & { isLive?: boolean }): ExecutionResult {
  const { isLive: _isLive, ...rest } = result;
  return rest;
}

/** One subscriber's stream of a {@link SharedLiveQuery}: the latest result not yet taken, or a `next()` waiting. */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private pending: ExecutionResult | undefined;
  private waiting: ((step: IteratorResult<ExecutionResult>) => void) | undefined;
  private done = false;

  /**
   * @param release - releases the subscriber's places (its connection's, its address's): called once when it ends, however
   * @param detach - takes it out of its execution (the client left)
   */
  constructor(
    private readonly release: () => void,
    private readonly detach: (subscriber: Subscriber) => void,
  ) {}

  /** A new result: handed to a waiting `next()`, or kept in place of the one not taken yet. */
  push(result: ExecutionResult): void {
    if (this.done) return;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting({ done: false, value: result });
    else this.pending = result;
  }

  /** Ends this stream (its places are released): the result not taken yet is still delivered, then it is done. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.release();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ done: true, value: undefined });
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const pending = this.pending;
    if (pending) {
      this.pending = undefined;
      return Promise.resolve({ done: false, value: pending });
    }
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The client left (unsubscribed, went away): this subscriber ends at once, the others go on. */
  return(): Promise<IteratorResult<ExecutionResult>> {
    this.pending = undefined;
    this.end();
    this.detach(this);
    return Promise.resolve({ done: true, value: undefined });
  }

  // graphql-sse ends an operation (client gone, `complete`) only when it is an async
  // generator: `next`, `return` and `throw`. Without `throw` it never calls `return`.
  async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}

/**
 * A live query's results, read once and fanned out to its subscribers.
 *
 * When to use: `LiveQueries.execute` (src/subscriptions/live-queries.ts) makes one per
 * distinct live operation of a key and adds each identical one as a subscriber.
 */
export class SharedLiveQuery {
  private readonly subscribers = new Set<Subscriber>();
  private latest: ExecutionResult | undefined;
  private latestText: string | undefined;
  private ended = false;

  /**
   * Starts reading `source` at once (its first execution starts now).
   *
   * @param source - the store's results of the live query (each whole, marked `isLive`)
   * @param end - called once when the execution ends (last subscriber gone, or `source` done):
   *   releases what the execution holds (its store entry is released by `source.return()` first)
   */
  constructor(
    private readonly source: AsyncIterator<ExecutionResult>,
    private readonly end: () => void,
  ) {
    void this.read();
  }

  /** Subscribers now. */
  get size(): number {
    return this.subscribers.size;
  }

  /** True once the execution ended: it takes no new subscriber. */
  get closed(): boolean {
    return this.ended;
  }

  /**
   * Adds a subscriber: it gets the latest result at once (when there is one), then each new
   * distinct result.
   *
   * @param leave - called once when this subscriber ends, however it ends (releases its places)
   * @returns its results; `return()` or `throw()` takes it out (the last one ends the execution)
   */
  subscribe(leave: () => void): AsyncIterableIterator<ExecutionResult> {
    const subscriber = new Subscriber(leave, (gone) => {
      if (this.subscribers.delete(gone) && this.subscribers.size === 0) this.close();
    });
    if (this.ended) {
      subscriber.end();
      return subscriber;
    }
    this.subscribers.add(subscriber);
    if (this.latest) subscriber.push(this.latest);
    return subscriber;
  }

  /** Ends the execution: every subscriber ends after what it has not taken yet; the source is returned. */
  private close(): void {
    if (this.ended) return;
    this.ended = true;
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    for (const subscriber of subscribers) subscriber.end();
    this.end();
    void Promise.resolve(this.source.return?.()).catch(() => undefined);
  }

  private async read(): Promise<void> {
    try {
      for (;;) {
        const step = await this.source.next();
        if (step.done || this.ended) break;
        // Identical consecutive results are not sent (a re-run over the same data).
        const text = sameness(step.value);
        const result = plain(step.value);
        if (text === this.latestText) continue;
        this.latestText = text;
        this.latest = result;
        for (const subscriber of this.subscribers) subscriber.push(result);
      }
    } catch {
      // The source failed: its subscribers end (as when it ends).
    }
    this.close();
  }
}
