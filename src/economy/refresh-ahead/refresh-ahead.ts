import type { LRUCache } from 'lru-cache';
import type { Endpoint } from '../../upstream/endpoints';
import type { BudgetLimit } from '../budget/key-state';
import { pathOfCacheKey, sharedKey } from '../cache/cache-entry';
import { growingLru } from '../growing-lru';
import { EMPTY_READS, forgetLeastRecent, READS_KEPT } from './tracked-resource';
import type { TrackedKey } from './tracked-resource';

/** One read of a cached resource, as the economy reports it. */
export interface ResourceRead {
  /** The hashed API key. */
  keyId: string;
  /** The API key itself: kept in memory only while the key is active, to send its refreshes. Never persisted or logged. */
  apiKey: string;
  /** The cache key (`<hashed key>|<path>`). */
  key: string;
  /** The endpoint read. */
  endpoint: Endpoint;
  /** When the cached answer now served was fetched, epoch ms. */
  storedAt: number;
  /** How long it is fresh, ms. */
  ttlMs: number;
  /** When it was read, epoch ms on this clock, when the reader has read the clock already (else now). */
  at?: number | undefined;
}

/** One refresh the scheduler asks for: fetch `path` for this key now and store the answer. */
export interface RefreshTask {
  /** The hashed API key. */
  keyId: string;
  /** The API key itself, only for the upstream header. */
  apiKey: string;
  /** The cache key (`<hashed key>|<path>`). */
  key: string;
  /** The endpoint read. */
  endpoint: Endpoint;
  /** The path with its parameters. */
  path: string;
}

/** Settings of {@link RefreshAhead}. */
export interface RefreshAheadOptions {
  /** Most of each key's budget refresh-ahead may use, 0–1 (`REFRESH_AHEAD_SHARE`, default 0.7). */
  share: number;
  /** A key nobody has read for this long gets no refreshes, ms (`REFRESH_AHEAD_IDLE_SECONDS`). */
  idleMs: number;
  /** The per-key budget: `requests` in any rolling `windowMs`; null = no budget (then only `maxPerTick` limits). */
  budget: BudgetLimit | null;
  /** A resource becomes a candidate when this share of its freshness is left (default 0.25). */
  leadFraction?: number;
  /** Most refreshes started per key and tick when there is no budget (default 4). */
  maxPerTick?: number;
  /** Resources tracked per key, the most recently read kept (default 512). */
  maxResourcesPerKey?: number;
  /** Keys tracked (default 10,000; the least recently active are forgotten first). */
  maxKeys?: number;
  /** Clock, epoch ms. */
  now?: () => number;
}

/** A resource that may be refreshed now, with its rank. */
export interface RefreshCandidate {
  /** The cache key (`<hashed key>|<path>`). */
  key: string;
  /** Reads within its freshness window. */
  recentReads: number;
  /** Freshness left, seconds (≤ 0 once expired). */
  remainingSeconds: number;
  /** Recent reads per second of remaining freshness: higher goes first. */
  score: number;
}

/**
 * Refresh-ahead: keeps what viewers keep reading fresh before it expires, so a steady
 * stream of views never waits on the upstream, within a share of each key's budget.
 *
 * - A resource read at least twice within its freshness window is a candidate once
 *   `leadFraction` of its freshness is left (or it has expired and is still read).
 * - Candidates are ranked by recent reads per second of remaining freshness: the most
 *   read and the soonest to expire first. When the budget cannot keep every candidate
 *   fresh, the least read ones are refreshed last, so they are the ones that grow old.
 * - A key uses at most `share` of its budget for refreshes (counted over the budget's
 *   rolling window), so new needs of its viewers still get through.
 * - A key nobody has read for `idleMs` gets nothing, and its API key is forgotten.
 *
 * It only decides; {@link RefreshAheadOptions} has no I/O. The economy reports reads
 * ({@link noteRead}), calls {@link tick} on a timer and runs the tasks it returns at its
 * lowest priority, telling {@link done} when each has finished.
 */
export class RefreshAhead {
  private readonly keys: LRUCache<string, TrackedKey>;
  private readonly now: () => number;
  private readonly leadFraction: number;
  /** The key of the last read, and its entry (see {@link noteRead}). */
  private lastKeyId: string | undefined;
  private lastTracked: TrackedKey | undefined;

  /** @param options - the share, idle time, budget and clock */
  constructor(private readonly options: RefreshAheadOptions) {
    this.now = options.now ?? Date.now;
    this.leadFraction = options.leadFraction ?? 0.25;
    this.keys = growingLru<string, TrackedKey>(options.maxKeys ?? 10_000);
  }

  /** Records a read of a cached resource (fresh or stale). */
  noteRead(read: ResourceRead): void {
    const now = read.at ?? this.now();
    // The reads of one operation come in a row for one key: that key is the LRU's most
    // recent already, so it is taken as it is (a tick's `delete` forgets it here too).
    let tracked = this.lastKeyId === read.keyId ? this.lastTracked : this.keys.get(read.keyId);
    if (!tracked) {
      tracked = { apiKey: read.apiKey, lastReadAt: now, resources: new Map(), readCount: 0, refreshes: [] };
      this.keys.set(read.keyId, tracked);
    }
    this.lastKeyId = read.keyId;
    this.lastTracked = tracked;
    tracked.apiKey = read.apiKey;
    tracked.lastReadAt = now;
    const resources = tracked.resources;
    let resource = resources.get(read.key);
    if (!resource) {
      resource = {
        endpoint: read.endpoint,
        storedAt: read.storedAt,
        ttlMs: read.ttlMs,
        reads: EMPTY_READS,
        next: 0,
        refreshing: false,
        lastRead: 0,
      };
      if (resources.size >= (this.options.maxResourcesPerKey ?? 512)) forgetLeastRecent(resources);
      resources.set(sharedKey(read.key), resource);
    }
    tracked.readCount += 1;
    resource.lastRead = tracked.readCount;
    resource.storedAt = Math.max(resource.storedAt, read.storedAt);
    resource.ttlMs = read.ttlMs;
    if (resource.reads.length < READS_KEPT) {
      // A new array of the exact length, its times unboxed: `push` or a spread would give
      // 17 slots, a spread boxes each time as a heap number (about 400 bytes for 8 reads
      // against 112; 43,000 resources for 500 keys).
      resource.reads = resource.reads.concat(now);
    } else {
      // Full (its own array by now): a ring, `next` the oldest.
      (resource.reads as number[])[resource.next] = now;
      resource.next = (resource.next + 1) % READS_KEPT;
    }
  }

  /** Tells that a resource was stored again (by a refresh or any other fetch): its freshness starts anew. */
  noteStored(keyId: string, key: string, storedAt: number): void {
    const resource = this.keys.peek(keyId)?.resources.get(key);
    if (resource) resource.storedAt = Math.max(resource.storedAt, storedAt);
  }

  /** The candidates of one key now, best first (for {@link tick} and tests). */
  candidates(keyId: string): RefreshCandidate[] {
    const tracked = this.keys.peek(keyId);
    if (!tracked) return [];
    const now = this.now();
    const list: Array<RefreshCandidate & { lastRead: number }> = [];
    for (const [key, resource] of tracked.resources.entries()) {
      if (resource.refreshing) continue;
      const remainingMs = resource.storedAt + resource.ttlMs - now;
      if (remainingMs > resource.ttlMs * this.leadFraction) continue;
      let recentReads = 0;
      for (const at of resource.reads) if (at >= now - resource.ttlMs) recentReads += 1;
      if (recentReads < 2) continue;
      const remainingSeconds = remainingMs / 1000;
      list.push({
        key,
        recentReads,
        remainingSeconds,
        score: recentReads / Math.max(1, remainingSeconds),
        lastRead: resource.lastRead,
      });
    }
    // Equal ones: the least recently read first.
    return list
      .sort((a, b) => b.score - a.score || a.remainingSeconds - b.remainingSeconds || a.lastRead - b.lastRead)
      .map(({ lastRead: _lastRead, ...candidate }) => candidate);
  }

  /** How many refreshes this key may start now within its share of the budget. */
  allowance(keyId: string): number {
    const tracked = this.keys.peek(keyId);
    if (!tracked) return 0;
    const budget = this.options.budget;
    if (!budget) return this.options.maxPerTick ?? 4;
    const now = this.now();
    tracked.refreshes = tracked.refreshes.filter((at) => at > now - budget.windowMs);
    return Math.max(0, Math.floor(budget.requests * this.options.share) - tracked.refreshes.length);
  }

  /**
   * The refreshes to start now, over every active key: each key's best candidates, as
   * many as its share allows. Keys idle for `idleMs` are forgotten (API key included).
   * The returned tasks count against the share at once; call {@link done} after each.
   * Reads keys with `peek` (here and in what it calls): only a read of the key moves it in
   * the LRU, so a tick never reverses which keys are forgotten first.
   */
  tick(): RefreshTask[] {
    const now = this.now();
    const tasks: RefreshTask[] = [];
    for (const [keyId, tracked] of [...this.keys.entries()]) {
      if (now - tracked.lastReadAt >= this.options.idleMs) {
        this.keys.delete(keyId);
        if (this.lastKeyId === keyId) this.lastTracked = undefined;
        continue;
      }
      const allowance = this.allowance(keyId);
      if (allowance <= 0) continue;
      for (const candidate of this.candidates(keyId).slice(0, allowance)) {
        const resource = tracked.resources.get(candidate.key);
        if (!resource) continue;
        resource.refreshing = true;
        tracked.refreshes.push(now);
        tasks.push({
          keyId,
          apiKey: tracked.apiKey,
          key: candidate.key,
          endpoint: resource.endpoint,
          path: pathOfCacheKey(keyId, candidate.key),
        });
      }
    }
    return tasks;
  }

  /** A refresh has finished (stored or failed): the resource may be chosen again. */
  done(task: RefreshTask, storedAt: number | null): void {
    const resource = this.keys.peek(task.keyId)?.resources.get(task.key);
    if (!resource) return;
    resource.refreshing = false;
    if (storedAt !== null) resource.storedAt = Math.max(resource.storedAt, storedAt);
  }

  /** Keys tracked now (metrics, tests). */
  get activeKeys(): number {
    return this.keys.size;
  }
}
