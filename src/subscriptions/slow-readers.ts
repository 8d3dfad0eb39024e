/**
 * Slow readers are cut, not buffered. A streaming client that stops reading (or whose
 * link died) makes the gateway's writes back up: first in the kernel's send buffer, then
 * in Node's (`writableLength`), and over graphql-sse in the handler's own queue of events,
 * which has no bound. Fifty such SSE clients on a large live query grew the process by
 * 1.7 GB in 80 s. Each stream (an SSE response, a WebSocket) is watched by a
 * {@link SlowReaderGuard}, fed by every write:
 *
 * - bytes queued in the process for it over `STREAM_MAX_QUEUED_BYTES`: cut at once;
 * - a write not flushed to the kernel within `STREAM_DRAIN_TIMEOUT_MS` (Node's backpressure:
 *   the peer does not drain, and a keep-alive that cannot leave counts as well): cut;
 * - meanwhile the operations of an SSE stream wait ({@link SlowReaderGuard.flushed}) before
 *   handing over their next result, so graphql-sse's queue holds no more than one result per
 *   operation (a live query keeps only its latest result, see live-shared.ts).
 *
 * Cutting destroys the connection: the transports then end its operations and free their
 * places, as when the client leaves. Memory per stream is so at most
 * `STREAM_MAX_QUEUED_BYTES` plus one result per operation (docs/subscriptions.md).
 */
import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { nextSlice } from '../graph/execution/turn-slices';

/** The bounds on one stream's backlog (`STREAM_MAX_QUEUED_BYTES`, `STREAM_DRAIN_TIMEOUT_MS`). */
export interface StreamBounds {
  /** Bytes queued in the process for one stream (not yet taken by the kernel) before it is cut. */
  maxQueuedBytes: number;
  /** How long a write may wait to be flushed to the kernel before the stream is cut, ms. */
  drainTimeoutMs: number;
}

/** Why a stream was cut: its backlog went over the bytes bound, or did not drain in time. */
export type CutReason = 'queued-bytes' | 'drain-timeout';

/**
 * Watches one stream's writes against {@link StreamBounds} and cuts it when its client
 * does not drain.
 *
 * When to use: one per stream (see {@link guardWrites}); {@link writing} before each write,
 * {@link wrote} after it, {@link settled} when its callback runs; {@link close} when the
 * stream ends.
 */
export class SlowReaderGuard {
  /** Writes handed to the stream whose callback has not run yet. */
  #unflushed = 0;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #cut = false;
  #waiters: Array<() => void> = [];

  /**
   * @param bounds - the bounds
   * @param queued - bytes queued in the process for the stream now
   * @param onCut - ends the stream (destroys its connection); called once
   */
  constructor(
    private readonly bounds: StreamBounds,
    private readonly queued: () => number,
    private readonly onCut: (reason: CutReason) => void,
  ) {}

  /** True once the stream was cut or closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True once the stream was cut (its writes' errors after that are expected). */
  get cut(): boolean {
    return this.#cut;
  }

  /** A write is about to start (counted before it, as its callback may not wait). */
  writing(): void {
    if (!this.#closed) this.#unflushed += 1;
  }

  /**
   * A write started: cut when the bytes queued are over the bound; else, while bytes wait in
   * the process (the write did not go to the kernel at once), the drain timer runs. A write
   * the kernel took at once arms no timer (its callback follows in the next tick): a peer
   * that stops reading fills the kernel's buffer, and the write after that queues and arms it.
   */
  wrote(): void {
    if (this.#closed || this.#unflushed === 0) return;
    const queued = this.queued();
    if (queued > this.bounds.maxQueuedBytes) {
      this.#end('queued-bytes');
      return;
    }
    if (this.#timer === null && queued > 0) {
      this.#timer = setTimeout(() => this.#end('drain-timeout'), this.bounds.drainTimeoutMs);
      this.#timer.unref();
    }
  }

  /** A write's callback ran (it reached the kernel, or failed): when none is left, the timer stops and waiting operations go on. */
  settled(): void {
    if (this.#unflushed > 0) this.#unflushed -= 1;
    if (this.#unflushed > 0) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#wake();
  }

  /** Null when nothing waits to be flushed; else a promise resolved when all is flushed or the stream ends. */
  flushed(): Promise<void> | null {
    if (this.#closed || this.#unflushed === 0) return null;
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The stream ended: stops the timer and lets waiting operations go on (to find it closed). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#wake();
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  #end(reason: CutReason): void {
    if (this.#closed) return;
    this.#cut = true;
    this.close();
    this.onCut(reason);
  }
}

/**
 * Wraps `stream[method]` (a `write(chunk, encoding?, callback?)`, or `ws`'s
 * `send(data, options?, callback?)`) so that every write feeds `guard` (its start, then its
 * callback), and closes the guard when the stream closes.
 */
export function guardWrites(stream: EventEmitter, method: 'write' | 'send', guard: SlowReaderGuard): void {
  const methods = stream as unknown as Record<string, (...args: unknown[]) => unknown>;
  const write = methods[method];
  if (typeof write !== 'function') throw new TypeError(`guardWrites: the stream has no ${method} method`);
  const guarded = (chunk: unknown, encodingOrCallback?: unknown, maybeCallback?: unknown): unknown => {
    const callback = typeof encodingOrCallback === 'function' ? encodingOrCallback : maybeCallback;
    const encoding = typeof encodingOrCallback === 'function' ? undefined : encodingOrCallback;
    let settled = false;
    const done = (error?: unknown): void => {
      if (!settled) {
        settled = true;
        guard.settled();
      }
      // A write the cut failed is no error of the writer's (graphql-ws would log it, graphql-sse
      // throw it): it finds the stream closed on its next write.
      if (typeof callback === 'function') (callback as (error?: unknown) => void)(guard.cut ? undefined : error);
    };
    guard.writing();
    const ok = encoding === undefined ? write.call(stream, chunk, done) : write.call(stream, chunk, encoding, done);
    guard.wrote();
    return ok;
  };
  methods[method] = guarded;
  stream.once('close', () => guard.close());
}

/**
 * Guards an SSE response: its writes against `bounds`, destroyed when cut; `onCut` is told why.
 * The guard closes at once (no result is handed to the stream after the cut); the connection
 * is destroyed in a slice of a later turn (turn-slices.ts): the streams of one change's write
 * reach their drain bound together, and fifty of them torn down in one timer's turn (each
 * stream's operations ended, its places freed, its queued result let go) held the event loop
 * for 200 ms.
 */
export function guardSseResponse(
  res: ServerResponse,
  bounds: StreamBounds,
  onCut: (reason: CutReason) => void,
): SlowReaderGuard {
  const guard = new SlowReaderGuard(
    bounds,
    () => res.writableLength,
    (reason) => {
      onCut(reason);
      void nextSlice().then(() => res.destroy());
    },
  );
  guardWrites(res, 'write', guard);
  return guard;
}
