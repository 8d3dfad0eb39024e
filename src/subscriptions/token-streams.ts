/**
 * Streams opened with an access token end when the token stops being usable: revoked,
 * removed with its key, unknown after the vault was replaced, or expired. The pipeline's
 * `token` step checks a token once, when an operation is admitted; a subscription or live
 * query then runs for as long as its client stays. Here every such stream is recorded
 * with its token, and ended with a final error event (`UNAUTHENTICATED`, the refusal's
 * sentence of `TOKEN_REFUSALS`, `extensions.reason`) followed by its completion:
 *
 * - when the vault changes (`LiveVault.onChange`: the file is polled every 250 ms, Redis
 *   announces each write on its channel, so every replica reloads well within 1 s), each
 *   recorded token is checked again;
 * - at the earliest expiry among the recorded tokens, by one timer (not a poll), those whose
 *   time has come end with `expired`.
 */
import type { ExecutionResult } from 'graphql';
import { GatewayError } from '../errors/gateway-error';
import { TOKEN_REFUSALS } from '../vault';
import type { TokenRefusal } from '../vault';
import type { TokenCheck, TokenText } from '../vault/vault-view';

/** Node's longest timer, ms: a later expiry is waited for in steps of it. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** What {@link TokenStreams} reads of the vault (a `LiveVault`). */
export interface TokenSource {
  /** Checks a token now. */
  check(token: TokenText): TokenCheck;
  /** Calls `listener` each time the vault was opened again after a change; returns the function that stops it. */
  onChange(listener: () => void): () => void;
}

/** One recorded stream. */
interface Watched {
  /** The bearer token it was admitted with (the request's credential: its hash is computed once, see `TokenText`). */
  readonly token: TokenText;
  /** When the token expires (`Date.now()` time), ms. */
  expiresAt: number;
  /** Ends the stream with the refusal. */
  readonly end: (reason: TokenRefusal) => void;
}

/** The final result of a stream whose token was refused: one `UNAUTHENTICATED` error naming why. */
export function tokenEndResult(reason: TokenRefusal): ExecutionResult {
  return { errors: [new GatewayError('UNAUTHENTICATED', TOKEN_REFUSALS[reason], { reason })] };
}

/**
 * An async iterator that can be ended from outside: {@link EndableStream.end} hands a waiting
 * (or the next) `next()` one last value, returns the source, and then reports done.
 */
export class EndableStream<T> implements AsyncGenerator<T, undefined, undefined> {
  #state: 'open' | 'last' | 'done' = 'open';
  #last: T | undefined;
  #waiting: ((result: IteratorResult<T, undefined>) => void) | null = null;

  /**
   * @param source - the stream's own iterator
   * @param onDone - called once when the stream is over (done, returned, thrown or ended)
   */
  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly onDone: () => void,
  ) {}

  /** The next value of the source, or the last one after {@link end}. */
  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#state === 'last') {
      this.#state = 'done';
      const value = this.#last as T;
      this.#last = undefined;
      return Promise.resolve({ value, done: false });
    }
    if (this.#state === 'done') return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = resolve;
      this.source.next().then(
        (result) => {
          if (this.#waiting !== resolve) return;
          this.#waiting = null;
          if (result.done) this.#finish();
          resolve(result.done ? { value: undefined, done: true } : result);
        },
        (error: unknown) => {
          if (this.#waiting !== resolve) return;
          this.#waiting = null;
          this.#finish();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Ends the stream: `last` is its final value, then it is done; the source is returned at once. */
  end(last: T): void {
    if (this.#state !== 'open') return;
    this.#finish();
    void this.source.return?.()?.catch(() => undefined);
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) waiting({ value: last, done: false });
    else {
      this.#state = 'last';
      this.#last = last;
    }
  }

  /** The client left: the source is returned. */
  async return(): Promise<IteratorResult<T, undefined>> {
    const open = this.#state === 'open';
    this.#finish();
    this.#last = undefined;
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.({ value: undefined, done: true });
    if (open) await this.source.return?.();
    return { value: undefined, done: true };
  }

  /** Ends the stream with an error (as a generator's `throw`). */
  async throw(error: unknown): Promise<IteratorResult<T, undefined>> {
    await this.return();
    throw error instanceof Error ? error : new Error(String(error));
  }

  /** Itself (an async generator is its own iterator). */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Not an ECMAScript disposable: present for the AsyncGenerator type. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  #finish(): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    this.onDone();
  }
}

/**
 * The streams opened with access tokens on this replica, ended when their token is refused.
 *
 * When to use: one per gateway with a vault; {@link guard} each subscription or live
 * query admitted with a token.
 */
export class TokenStreams {
  readonly #source: TokenSource;
  readonly #watched = new Set<Watched>();
  #timer: NodeJS.Timeout | null = null;
  /** When {@link #timer} fires, ms (`Date.now()` time). */
  #timerAt = Infinity;
  readonly #stop: () => void;

  /** @param source - the vault, kept current (`LiveVault`) */
  constructor(source: TokenSource) {
    this.#source = source;
    this.#stop = source.onChange(() => this.#recheck());
  }

  /** Streams recorded now. */
  get size(): number {
    return this.#watched.size;
  }

  /**
   * Records `stream` (a subscription's or live query's iterator) admitted with `token`, which
   * expires at `expiresAt`; returns the stream to hand the transport in its place, which ends
   * with {@link tokenEndResult} when the token is refused.
   */
  guard(
    stream: AsyncIterator<ExecutionResult>,
    token: TokenText,
    expiresAt: Date,
  ): AsyncGenerator<ExecutionResult, undefined, undefined> {
    const watched: Watched = {
      token,
      expiresAt: expiresAt.getTime(),
      end: (reason) => endable.end(tokenEndResult(reason)),
    };
    const endable = new EndableStream<ExecutionResult>(stream, () => this.#watched.delete(watched));
    this.#watched.add(watched);
    this.#schedule(watched.expiresAt);
    return endable;
  }

  /** Stops watching the vault and the clock (the streams themselves end with their transports). */
  close(): void {
    this.#stop();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
  }

  /** The vault changed: every recorded token is checked again. */
  #recheck(): void {
    for (const watched of [...this.#watched]) {
      const checked = this.#source.check(watched.token);
      if (checked.kind === 'refused') watched.end(checked.reason);
      else watched.expiresAt = checked.token.expiresAt.getTime();
    }
    this.#reschedule();
  }

  /** Sets the timer for `at` unless it is set for sooner. */
  #schedule(at: number): void {
    if (at >= this.#timerAt) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.min(LONGEST_TIMER_MS, Math.max(0, at - Date.now())));
    this.#timer.unref();
  }

  /** The timer fired: the streams whose token has expired end; the timer is set for the next. */
  #expire(): void {
    this.#timer = null;
    this.#timerAt = Infinity;
    const now = Date.now();
    for (const watched of [...this.#watched]) if (watched.expiresAt <= now) watched.end('expired');
    this.#reschedule();
  }

  /** Sets the timer for the earliest expiry left. */
  #reschedule(): void {
    let earliest = Infinity;
    for (const watched of this.#watched) earliest = Math.min(earliest, watched.expiresAt);
    if (earliest === this.#timerAt) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
    if (earliest !== Infinity) this.#schedule(earliest);
  }
}
