import { randomUUID } from 'node:crypto';
import type { SharedState } from './shared-state/shared-state';

/** How long a replica's write lock lives without renewal, ms (a replica that died frees it after this). */
const LOCK_TTL_MS = 60_000;
/** How often a holder renews its lock (and its expected commit), ms. */
const RENEW_EVERY_MS = 15_000;
/** How often a writer waiting for another replica's lock asks again, ms. */
const RETRY_EVERY_MS = 100;

/** A held lock (`release` once when done) or the holder's expected commit (epoch ms, 0 = unknown). */
export type WriteLockOutcome = { held: true; release: () => void } | { held: false; commitAt: number };

/**
 * Writers' locks shared by every replica (Redis when `REDIS_URL` is set): one writer of a
 * name at a time across replicas, its value telling the others when the holder expects to
 * commit, renewed while held. Without shared state every lock is granted at once (the
 * process serialises its own writers).
 *
 * When to use: the economy owns one; site-document writes lock their company with it.
 */
export class ReplicaWriteLocks {
  /** This process's locks, taken before the replicas' one. */
  readonly local = new ProcessWriteLocks();

  /** @param shared - the replicas' state, if any; `now` the clock */
  constructor(
    private readonly shared: SharedState | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes the lock of `name`, waiting at most `waitMs` (asking again every 100 ms while
   * another replica holds it and expects to commit within that wait).
   *
   * @param commitAt - when this writer expects to commit (epoch ms), asked at each renewal
   */
  async take(name: string, commitAt: () => number, waitMs: number): Promise<WriteLockOutcome> {
    const shared = this.shared;
    if (!shared) return { held: true, release: () => undefined };
    const token = randomUUID();
    const deadline = this.now() + waitMs;
    for (;;) {
      const holder = await shared.takeWriteLock(name, token, commitAt(), LOCK_TTL_MS);
      if (holder === null) break;
      if (this.now() + RETRY_EVERY_MS > deadline || holder > deadline) return { held: false, commitAt: holder };
      await new Promise<void>((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
    }
    const renew = setInterval(() => void shared.takeWriteLock(name, token, commitAt(), LOCK_TTL_MS), RENEW_EVERY_MS);
    renew.unref();
    let released = false;
    return {
      held: true,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        void shared.releaseWriteLock(name, token);
      },
    };
  }
}

/**
 * Writers' locks of this process (one per economy, so one per replica): writers of one
 * name (a company's site documents, whatever key they come with) run one at a time. The
 * holder tells when it expects to commit, so a writer that cannot wait is refused with
 * that time, not a fixed patience. Across replicas see {@link ReplicaWriteLocks}.
 */
export class ProcessWriteLocks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly commits = new Map<string, () => number>();

  /**
   * Waits for the lock of `key` at most `waitMs`.
   *
   * @returns the release function, or null when the lock was not free in time
   */
  async acquire(key: string, waitMs: number): Promise<(() => void) | null> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)));
    const outcome = await Promise.race([previous.then(() => 'ready' as const), timedOut]);
    clearTimeout(timer);
    const done = (): void => {
      release();
      this.commits.delete(key);
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    if (outcome === 'timeout') {
      // Give the turn back at once when it comes: this writer has gone.
      void previous.then(done);
      return null;
    }
    return done;
  }

  /** The holder of `key`'s lock tells when it expects to have committed (epoch ms, asked when needed). */
  expectCommit(key: string, at: () => number): void {
    this.commits.set(key, at);
  }

  /** When the write holding `key`'s lock expects to commit (epoch ms), or null when none is known. */
  commitExpected(key: string): number | null {
    return this.commits.get(key)?.() ?? null;
  }
}
