import type { CacheEntry } from '../cache/cache-entry';

/** An allowance learned from a 429, as {@link SharedState.setCooldown} stores it. */
export interface LearnedAllowance {
  /** Requests per window the key may send now. */
  allowance: number;
  /** When it was learned, epoch ms. */
  learnedAt: number;
  /** How long to keep it, ms (until it has grown back to the limit). */
  keepMs: number;
}

/** See {@link SharedState.keyLimits}. */
export interface SharedKeyLimits {
  /** Epoch ms until which the key cools down (0 = none, or unknown). */
  cooldownUntil: number;
  /** The allowance learned from the last 429, requests per window (null = none known). */
  allowance: number | null;
  /** When it was learned, epoch ms. */
  learnedAt: number;
}

/** A resource whose cached answer a replica replaced with a different one (see {@link SharedState.publishInvalidation}). */
export interface ChangedResource {
  /** Its cache key (`<hashed key>|<path>`). */
  readonly key: string;
  /** A digest of its new answer, so a replica that holds that answer already does nothing. */
  readonly digest: string;
}

/** The handler of invalidation messages: `changed` is set for a message naming changed resources only (see {@link SharedState.publishInvalidation}). */
export type InvalidationHandler = (
  keyId: string,
  factoryId: string | null,
  changed?: readonly ChangedResource[],
) => void;

/**
 * State shared by every replica of the gateway (Redis when `REDIS_URL` is set):
 * a second cache level, the per-key 429 cooldowns, the per-key budget, short locks
 * for coalescing across replicas, and invalidation messages.
 *
 * Every method degrades instead of failing: when the store is unavailable or slow it
 * answers "nothing shared" (a miss, no cooldown, `null` budget, a granted lock), so
 * the gateway goes on from process memory and the upstream.
 */
export interface SharedState {
  /** A cached answer, or undefined (also when the store is unavailable). */
  getEntry(key: string): Promise<CacheEntry | undefined>;
  /** Stores an answer for `lifetimeMs` (the store expires it by itself). */
  setEntry(key: string, entry: CacheEntry, lifetimeMs: number): Promise<void>;
  /** Forgets answers; false when the store could not be told (it is unavailable). */
  deleteEntries(keys: readonly string[]): Promise<boolean>;
  /**
   * What replicas learned of the key from upstream 429s: epoch ms until which it is
   * cooling down (0 = none, or unknown), and its learned allowance with when it was learned
   * (`allowance` null when none is known).
   */
  keyLimits(keyId: string): Promise<SharedKeyLimits>;
  /**
   * Records a cooldown for every replica, and the allowance learned with it, kept `keepMs`
   * (until it has grown back) when that is longer than the cooldown.
   */
  setCooldown(keyId: string, untilMs: number, learned?: LearnedAllowance): Promise<void>;
  /**
   * Takes one request from the key's shared sliding-window log (the same algorithm as
   * `SlidingWindowLog`): recorded when fewer than `allowance` requests fall within the
   * `windowMs` ending at `now`. 0 = taken, go now; >0 = ms until one more fits; null =
   * store unavailable (the process's own log decides). `writeIntent` (the same id on each
   * try of one write) marks a user's write: one that must wait keeps the next freed slot
   * from every other request of the key, on every replica.
   */
  takeWindowSlot(
    keyId: string,
    allowance: number,
    windowMs: number,
    now: number,
    member: string,
    writeIntent?: string,
  ): Promise<number | null>;
  /**
   * Moves the request `member` (as given to {@link takeWindowSlot}) to `at` in the key's
   * shared log, adding it when it has already left: when its answer arrived (see
   * `SlidingWindowLog.settle`). Does nothing when the store is unavailable.
   */
  settleWindowSlot(keyId: string, member: string, at: number, windowMs: number): Promise<void>;
  /**
   * Takes (or renews, for the same `token`) a writer's lock of `name` for `ttlMs`, telling
   * other replicas that its holder expects to commit at `commitAt` (epoch ms).
   * @returns null when held (also when the store is unavailable); else the holder's expected commit (epoch ms, 0 = unknown)
   */
  takeWriteLock(name: string, token: string, commitAt: number, ttlMs: number): Promise<number | null>;
  /** Releases a lock taken with {@link takeWriteLock} (only the holder's). */
  releaseWriteLock(name: string, token: string): Promise<void>;
  /** Tries to become the one replica fetching `key`; true also when the store is unavailable. */
  tryLock(key: string, ttlMs: number): Promise<boolean>;
  /** Releases a lock taken with {@link tryLock}. */
  unlock(key: string): Promise<void>;
  /**
   * Tells every replica (this one included) that a key's write changed a company's
   * options, and logs it for replicas that are disconnected now (they catch up when
   * back). False when the store is unavailable: the caller keeps it and re-sends it
   * from {@link onReconnect}. With `changed`, the message only tells that this replica
   * stored new answers for those resources (in the shared cache first): it is not logged,
   * and a replica that misses it only keeps its answer until it expires.
   */
  publishInvalidation(keyId: string, factoryId: string | null, changed?: readonly ChangedResource[]): Promise<boolean>;
  /** Registers the handler of invalidation messages (from any replica, also those caught up after a disconnection). */
  onInvalidation(handler: InvalidationHandler): void;
  /** Registers work to do each time the store is back after an outage, before missed invalidations are caught up. */
  onReconnect(handler: () => Promise<void>): void;
  /**
   * True while this replica may have missed other replicas' invalidations (the store is
   * away, or back but not caught up): data that writes invalidate is then served flagged stale.
   */
  invalidationsInDoubt(): boolean;
  /** Closes connections. */
  close(): Promise<void>;
}
