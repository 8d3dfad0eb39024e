import { OperationAccounting } from './accounting';
import type { StaleInfo } from './accounting';
import type { EconomyCaller, ReadResource, UpstreamReply } from './economy-types';
import type { UpstreamEconomy } from './upstream-economy';
import type { WrittenResource } from './flight';
import type { ProcessWriteLocks, WriteLockOutcome } from './write-lock';
import type { UpstreamPriority } from './queue/priority';
import { missingKeyError } from '../errors/gateway-error';
import type { Endpoint, PathParams } from '../upstream/endpoints';

/**
 * What `get` and `getFresh` throw during {@link UpstreamSession.peek}, synchronously,
 * instead of sending: the cache holds no fresh answer. One shared instance (compare with
 * `===`); nothing was sent or counted.
 */
export const NOT_CACHED: Error = new Error('No fresh cached answer: read it through the session.');

/**
 * One GraphQL operation's view of the upstream: the caller's key (and its hash)
 * bound to the shared {@link UpstreamEconomy}, the operation's accounting, and which
 * results were served stale. Every upstream request of an operation goes through here.
 *
 * When to use: create one per operation in the context; the domain `*.api.ts`
 * functions take it. Loaders above it make each distinct request at most once per
 * operation; the economy below it shares answers across operations of the same key.
 *
 * @throws GatewayError `UNAUTHENTICATED` from {@link get}/{@link post} when the
 *   operation came without a bearer key, before any request is sent.
 */
export class UpstreamSession {
  /** What this operation cost upstream (shared with the sessions of its other keys, see {@link sibling}). */
  readonly accounting: OperationAccounting;
  /** Results that came from stale data, so the operation plugin can name their paths. */
  private readonly staleResults: WeakMap<object, StaleInfo>;
  /** Read the process cache only, never send (a live query's re-run; see `EconomyCaller.cacheOnly`). */
  cacheOnly = false;
  /** When set, every GET of the operation is recorded here by cache key (the resources a live query watches). */
  reads: Map<string, ReadResource> | null = null;
  /** The caller of the last read (see `caller`). */
  private lastCaller: Readonly<EconomyCaller> | undefined;
  /** True while {@link peek} runs: a read the cache cannot answer throws {@link NOT_CACHED}. */
  private peeking = false;

  /** @param economy - the process's economy; the other parameters describe the caller */
  constructor(
    private readonly economy: UpstreamEconomy,
    /** The caller's API key, or null when the request had no bearer key. */
    readonly apiKey: string | null,
    /** The hashed key (see `keyId`), or null without a key. */
    readonly keyId: string | null,
    /** `Cache-Control: no-cache` on the request: fetch fresh data and refresh the cache. */
    readonly noCache = false,
    /** How long this operation waits for budget, ms (`Prefer: wait`), or null for the gateway's `UPSTREAM_PATIENCE_MS`. */
    readonly patienceMs: number | null = null,
    /** Who waits for this session's requests (default `operation`; a detached session's are `missed`). */
    private readonly requestPriority: UpstreamPriority = 'operation',
    /** The operation's first session, when this one is another key's in the same operation (see {@link sibling}). */
    private readonly primary: UpstreamSession | null = null,
  ) {
    this.accounting = primary?.accounting ?? new OperationAccounting();
    this.staleResults = primary?.staleResults ?? new WeakMap<object, StaleInfo>();
  }

  /**
   * A session of another key in the same operation (an access token over several
   * characters): that key's budget, cache and cooldowns, but this operation's accounting
   * (request cap, counters, freshness), stale marks, cache-only mode and read log.
   */
  sibling(apiKey: string, keyId: string): UpstreamSession {
    return new UpstreamSession(
      this.economy,
      apiKey,
      keyId,
      this.noCache,
      this.patienceMs,
      this.requestPriority,
      this.primary ?? this,
    );
  }

  /** GET an endpoint through the economy. */
  get(endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    if (this.peeking) throw NOT_CACHED;
    return this.economy.get(this.caller(), endpoint, params);
  }

  /** A fresh cached answer at once, or `undefined`: then {@link get} (see `ReadPath.freshHit`). */
  cached(endpoint: Endpoint, params?: PathParams): UpstreamReply | undefined {
    return this.economy.freshHit(this.caller(), endpoint, params);
  }

  /**
   * False when a {@link peek} could never find an answer: the operation asks for fresh data
   * (`no-cache`), or came without a key. Loaders then skip the look. (A live query's
   * re-run reads the cache only: its answers are `cached` whatever their age.)
   */
  get answersAtOnce(): boolean {
    return !this.noCache && this.keyId !== null;
  }

  /**
   * Runs `read(this, key)` as a look at the process cache only, for a loader that answers
   * at once what the cache holds fresh (`FetchLoader.loadNow`): `cached` as always, the
   * same bookkeeping of a hit; `get` and `getFresh` send nothing and throw
   * {@link NOT_CACHED} synchronously. `read` must not wait for anything (its reads are
   * synchronous up to their first `get`).
   */
  peek<K, V>(read: (session: UpstreamSession, key: K) => V, key: K): V {
    this.peeking = true;
    try {
      return read(this, key);
    } finally {
      this.peeking = false;
    }
  }

  /** GET an endpoint through the economy, skipping a fresh cached answer (and storing the new one). */
  getFresh(endpoint: Endpoint, params?: PathParams): Promise<UpstreamReply> {
    if (this.peeking) throw NOT_CACHED;
    return this.economy.get({ ...this.caller(), noCache: true }, endpoint, params);
  }

  /**
   * POST a JSON body through the economy; resolves to the parsed body or text. `written`
   * is what a GET of the written resource answers after it, when known (see `UpstreamEconomy.post`).
   */
  post(endpoint: Endpoint, body: unknown, written?: WrittenResource): Promise<unknown> {
    return this.economy.post(this.caller(), endpoint, body, written);
  }

  /**
   * A session of the same key for work that may outlive this operation (a site-document
   * write finishing in the background): its own accounting, no request cap, and its
   * requests at priority `write` (ahead of everything queued for the key, and as patient
   * as the budget needs; `patienceMs` is kept for callers that race it).
   */
  detached(patienceMs: number): UpstreamSession {
    return new UpstreamSession(this.economy, this.apiKey, this.keyId, false, patienceMs, 'write');
  }

  /**
   * When a write commits, epoch ms: the last of its `writesLeft` upstream writes, behind
   * the writes queued before it, planned on the key's budget. `underWay`: one of them is
   * queued or in flight now (else they are all still to be sent). `Date.now()` without a key.
   */
  plannedCommit(writesLeft: number, underWay = true): number {
    return this.keyId ? this.economy.plannedCommit(this.keyId, writesLeft, underWay) : Date.now();
  }

  /**
   * Takes the writers' lock of `name` across replicas (Redis when configured; granted at
   * once without), waiting at most `waitMs`; see `ReplicaWriteLocks.take`.
   */
  lockWrites(name: string, commitAt: () => number, waitMs: number): Promise<WriteLockOutcome> {
    return this.economy.writeLocks.take(name, commitAt, waitMs);
  }

  /** This process's writers' locks (one per economy, so per replica); see `ProcessWriteLocks`. */
  processWriteLocks(): ProcessWriteLocks {
    return this.economy.writeLocks.local;
  }

  /**
   * Remembers that `result` (and, for a list, each element) was built from stale
   * data, so that a field resolving to it is reported in `extensions.stale`.
   */
  markStale<T>(result: T, stale: StaleInfo | null): T {
    if (stale && result !== null && typeof result === 'object') {
      this.staleResults.set(result, stale);
      if (Array.isArray(result)) {
        for (const element of result as unknown[]) {
          if (element !== null && typeof element === 'object') this.staleResults.set(element, stale);
        }
      }
    }
    return result;
  }

  /** The stale info of a field's result, if it was built from stale data. */
  staleInfo(result: unknown): StaleInfo | undefined {
    return result !== null && typeof result === 'object' ? this.staleResults.get(result) : undefined;
  }

  /**
   * This session as the economy's caller: one object for all its reads (the economy never
   * changes it), made anew when the operation's cache-only mode or read log changes.
   */
  private caller(): EconomyCaller {
    if (!this.apiKey || !this.keyId) throw missingKeyError();
    const cacheOnly = (this.primary ?? this).cacheOnly;
    const reads = (this.primary ?? this).reads ?? undefined;
    const last = this.lastCaller;
    if (last && last.cacheOnly === cacheOnly && last.reads === reads) return last;
    this.lastCaller = {
      keyId: this.keyId,
      apiKey: this.apiKey,
      noCache: this.noCache,
      priority: this.requestPriority,
      patienceMs: this.patienceMs ?? undefined,
      accounting: this.accounting,
      cacheOnly,
      reads,
    };
    return this.lastCaller;
  }
}
