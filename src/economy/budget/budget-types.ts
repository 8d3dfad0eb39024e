import type { UpstreamPriority } from '../queue/priority';
import type { QueueTicket } from '../queue/queue-ticket';
import type { WaitingLinesOptions } from '../queue/waiting-lines';
import type { SharedState } from '../shared-state/shared-state';
import type { BudgetLimit } from './key-state';
import type { RateLimitSource } from '../limit-exceeded';

/** Settings of `KeyBudget`; all times in ms unless named otherwise. */
export interface KeyBudgetOptions extends WaitingLinesOptions {
  /** The per-key budget: at most `requests` in any `windowMs`; null turns it off. */
  limit: BudgetLimit | null;
  /** Most upstream requests in flight per key. */
  concurrency: number;
  /** Default patience: longest an operation's request waits for budget or a slot before failing (background requests wait as long as needed). */
  patienceMs: number;
  /** Clock (tests use fake timers, which drive `Date.now`). */
  now?: () => number;
  /** State shared with other replicas (cooldowns and the window log), when there is any. */
  shared?: Pick<SharedState, 'keyLimits' | 'setCooldown' | 'takeWindowSlot' | 'settleWindowSlot'>;
  /** Added to a request's answer time when it takes its place in the window log, ms (default `WINDOW_EDGE_MARGIN_MS`, 250). */
  edgeMarginMs?: number;
  /** Cooldown after a 429 without `Retry-After`, seconds (default 60); it doubles while such 429s follow each other. */
  defaultBackoffSeconds?: number;
  /** Longest cooldown of that backoff, seconds (`RETRY_AFTER_MAX_SECONDS`; default one hour). */
  maxBackoffSeconds?: number;
  /** Told of each request refused because its key's queue was full. */
  onDropped?: (priority: UpstreamPriority) => void;
  /** Told of each upstream 429 learned from (see `KeyBudget.observe`). */
  onRateLimited?: (source: RateLimitSource) => void;
  /** Told of each upstream 429 that the key's own requests in the window do not explain (see {@link Unexplained429}). */
  onUnexplained429?: (report: Unexplained429) => void;
}

/**
 * An upstream 429 the gateway's own count does not explain: the key had sent fewer than
 * the budget's `requests` in the last window (this process's window log, without the
 * refused request), so something else spends the same key upstream: another client, a
 * second gateway that shares no Redis with this one, this gateway before a restart within
 * the window, or an upstream limit lower than `UPSTREAM_RATE_LIMIT`.
 */
export interface Unexplained429 {
  /** The key's id (HMAC of the key, see `keyId`), never the key. */
  keyId: string;
  /** Requests this process sent for the key in the last window, the refused one not counted. */
  sentInWindow: number;
  /** The budget: requests per window (`UPSTREAM_RATE_LIMIT`). */
  limit: number;
  /** The window, seconds. */
  windowSeconds: number;
  /** The cooldown the 429 started, seconds (its `Retry-After`, or the gateway's backoff). */
  retryAfterSeconds: number;
  /** True for the first such 429 of the key in a window: the one to log (later ones are only counted). */
  firstInWindow: boolean;
}

/** What `KeyBudget.acquire` is told about one request. */
export interface AcquireOptions {
  /** Who waits for it (default `operation`); lower priorities wait while higher ones are queued. */
  priority?: UpstreamPriority;
  /** This operation's patience, ms (from `Prefer: wait`); default the budget's `patienceMs`. Background priorities ignore it. */
  patienceMs?: number;
  /** The flight's ticket: its priority (overrides `priority`; joining callers may raise it) and where the request is, kept up to date here. */
  ticket?: QueueTicket;
}

/** The budget's statistics now, for metrics; nothing names a key. */
export interface BudgetStats {
  /** Requests in the current windows of all keys (this process's view). */
  windowRequests: number;
  /** Keys whose learned allowance is below the limit after an upstream 429. */
  reducedKeys: number;
  /** Upstream 429 answers learned from (see `KeyState.upstream429s`). */
  upstream429s: number;
  /** Requests waiting for budget, per priority. */
  queued: Record<UpstreamPriority, number>;
}
