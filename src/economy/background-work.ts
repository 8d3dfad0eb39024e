import { UpstreamError } from '../errors/gateway-error';
import type { Endpoint, PathParams } from '../upstream/endpoints';
import { OperationAccounting } from './accounting';
import { BackgroundFill } from './background-fill/background-fill';
import type { KeyBudget } from './budget/key-budget';
import type { CacheEntry } from './cache/cache-entry';
import type { Freshness } from './cache/freshness';
import type { UpstreamCache } from './cache/upstream-cache';
import type { EconomyCaller, EconomyEvents, EconomyOptions, UpstreamReply } from './economy-types';
import type { UpstreamPriority } from './queue/priority';
import { RefreshAhead } from './refresh-ahead/refresh-ahead';
import type { RefreshTask } from './refresh-ahead/refresh-ahead';

/** A GET of background work: the key (hashed id, and the key for the header) and the endpoint. */
export interface BackgroundRequest {
  /** The hashed API key. */
  keyId: string;
  /** The API key itself, only for the upstream header. */
  apiKey: string;
  /** The GET endpoint. */
  endpoint: Endpoint;
  /** Its path parameters, if any. */
  params?: PathParams;
}

/** How a background GET waits and what it skips (see `UpstreamEconomy.fetchInBackground`). */
export interface BackgroundFetchOptions {
  /** Its priority in the key's queue: `missed` (background fill) or `background` (the default). */
  priority?: Exclude<UpstreamPriority, 'operation'>;
  /** True: skip a fresh cached answer and store the new one (a poll that must see changes). Default false. */
  refresh?: boolean;
}

/** What {@link BackgroundWork} needs of the economy. */
export interface BackgroundWorkParts {
  /** The per-key budget (background fill plans on it). */
  budget: KeyBudget;
  /** The process cache (a missed request fetched meanwhile is skipped). */
  cache: UpstreamCache;
  /** Freshness of cached answers. */
  freshness: Freshness;
  /** The economy's hooks (refreshes, dropped requests). */
  events: EconomyEvents;
  /** Clock, epoch ms. */
  now: () => number;
  /** The economy's background GET (`UpstreamEconomy.fetchInBackground`). */
  fetch: (request: BackgroundRequest, options: BackgroundFetchOptions) => Promise<UpstreamReply>;
  /** Starts (or joins) a flight of `caller` for a refresh task; resolves to the stored entry. */
  refresh: (caller: EconomyCaller, task: RefreshTask) => Promise<CacheEntry>;
}

/**
 * The economy's work nobody waits for: background fill (what operations missed, fetched
 * as the budget refills, at priority `missed`) and refresh-ahead (popular answers
 * re-fetched before they expire, at priority `background`, on a timer that starts with
 * the first read). Subscription polls are background work too, but their pollers call
 * `UpstreamEconomy.fetchInBackground` themselves.
 *
 * When to use: the economy owns one and tells it of every answer served
 * ({@link noteServed}) and every `RATE_LIMITED` an operation got ({@link noteMissed}).
 */
export class BackgroundWork {
  private readonly refreshAhead: RefreshAhead | undefined;
  private readonly fill: BackgroundFill | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;

  /**
   * @param options - `refreshAhead` and `backgroundFill` (each off when absent or
   *   `false`; both off without the cache), the rate limit for refresh-ahead's share
   */
  constructor(
    private readonly parts: BackgroundWorkParts,
    options: Pick<EconomyOptions, 'refreshAhead' | 'backgroundFill' | 'cacheEnabled' | 'rateLimit'>,
  ) {
    const refresh = options.refreshAhead;
    const limit = options.rateLimit
      ? { requests: options.rateLimit.requests, windowMs: options.rateLimit.windowSeconds * 1000 }
      : null;
    this.tickMs = refresh?.tickMs ?? 1000;
    this.refreshAhead =
      refresh && refresh.share > 0 && options.cacheEnabled
        ? new RefreshAhead({ share: refresh.share, idleMs: refresh.idleSeconds * 1000, budget: limit, now: parts.now })
        : undefined;
    const fill = options.backgroundFill ?? { maxPerKey: 100, maxTotal: 10_000 };
    this.fill =
      fill && options.cacheEnabled
        ? new BackgroundFill({
            plan: (keyId, count) => parts.budget.plannedTimes(keyId, count),
            maxPerKey: fill.maxPerKey,
            maxTotal: fill.maxTotal,
            onDropped: () => parts.events.queueDropped?.('missed'),
            now: parts.now,
          })
        : undefined;
  }

  /** Missed requests waiting in background fill for `keyId` (the budget queues background work behind them). */
  missedFor(keyId: string): number {
    return this.fill?.pendingFor(keyId) ?? 0;
  }

  /** Missed requests waiting in background fill over all keys. */
  get missed(): number {
    return this.fill?.size ?? 0;
  }

  /**
   * An operation's GET that failed with `RATE_LIMITED` (its patience ran out, the key is
   * cooling down, or the upstream said 429) goes to background fill, which fetches it
   * when the budget has room; the error's `retryAfterSeconds` becomes the time the fill
   * expects to send it, when that is later (missed requests queued ahead of it).
   */
  noteMissed(
    caller: EconomyCaller,
    endpoint: Endpoint,
    params: PathParams | undefined,
    key: string,
    error: unknown,
  ): void {
    if (!this.fill || (caller.priority ?? 'operation') !== 'operation') return;
    if (!(error instanceof UpstreamError) || error.code !== 'RATE_LIMITED') return;
    const { keyId, apiKey } = caller;
    const { cache, freshness } = this.parts;
    const fetch = (): Promise<UpstreamReply> =>
      this.parts.fetch({ keyId, apiKey, endpoint, params }, { priority: 'missed' });
    const at = this.fill.note({
      keyId,
      apiKey,
      key,
      fetch: this.parts.events.queued?.(fetch) ?? fetch,
      isFresh: () => {
        const cached = cache.get(key);
        return cached !== undefined && freshness.isFresh(cached, endpoint);
      },
    });
    if (at === null) return;
    const seconds = Math.max(1, Math.ceil((at - this.parts.now()) / 1000));
    const told = error.extensions.retryAfterSeconds;
    if (typeof told !== 'number' || told < seconds) error.extensions.retryAfterSeconds = seconds;
  }

  /** A read of an answer stored at `entry.storedAt`, fresh for `ttlMs`, at `at` (default: now): refresh-ahead counts it (not for `no-cache` readers). */
  noteServed(
    caller: EconomyCaller,
    endpoint: Endpoint,
    key: string,
    entry: CacheEntry,
    ttlMs: number,
    at?: number,
  ): void {
    if (!this.refreshAhead || caller.noCache) return;
    this.refreshAhead.noteRead({
      keyId: caller.keyId,
      apiKey: caller.apiKey,
      key,
      endpoint,
      storedAt: entry.storedAt,
      ttlMs,
      at,
    });
    if (!this.refreshTimer) {
      this.refreshTimer = setInterval(() => void this.runRefreshes(), this.tickMs);
      this.refreshTimer.unref();
    }
  }

  /**
   * Starts the refreshes refresh-ahead chooses now, each a background fetch through
   * in-flight sharing and the key's budget at priority `background`, accounted to nobody;
   * resolves when all have finished (never rejects).
   */
  runRefreshes(): Promise<void> {
    const tasks = this.refreshAhead?.tick() ?? [];
    return Promise.all(tasks.map((task) => this.refreshOne(task))).then(() => undefined);
  }

  /** Stops background fill and refresh-ahead's timer (at shutdown). */
  close(): void {
    this.fill?.close();
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  private async refreshOne(task: RefreshTask): Promise<void> {
    const caller: EconomyCaller = {
      keyId: task.keyId,
      apiKey: task.apiKey,
      noCache: true,
      priority: 'background',
      accounting: new OperationAccounting(),
    };
    try {
      const entry = await this.parts.refresh(caller, task);
      this.refreshAhead?.done(task, entry.storedAt);
      this.parts.events.refreshed?.('stored');
    } catch {
      this.refreshAhead?.done(task, null);
      this.parts.events.refreshed?.('failed');
    }
  }
}
