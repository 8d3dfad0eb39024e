/**
 * The resources live queries watch (the economy's cache keys each run read), and what
 * re-runs them: an answer stored for one of them (after the current turn, once per batch),
 * a write that dropped a company's option slots (fetched again in the background), or, with
 * replicas, another replica's new answer of one of them (taken from the shared cache). See
 * live-queries.ts, which runs the queries.
 */
import type { ReadResource, UpstreamEconomy } from '../economy';

/** A watched resource: how to fetch it again, and how many live queries watch it. */
interface Watched extends ReadResource {
  readonly keyId: string;
  readonly apiKey: string;
  count: number;
}

/** A run executing now: what it has read so far, and which of those got new data meanwhile. */
export interface RunningReads {
  /** The resources the run has read so far, by cache key. */
  readonly reads: ReadonlyMap<string, ReadResource>;
  /** Those of `reads` that got new data while the run executed. */
  readonly changed: Set<string>;
}

/**
 * The watched resources of one process's live queries, told by the economy of stored
 * answers and invalidations.
 */
export class LiveResources {
  private readonly watched = new Map<string, Watched>();
  private readonly pending = new Set<string>();
  /** The runs executing now (see {@link RunningReads}). */
  private readonly running = new Set<RunningReads>();
  private readonly stopListening: Array<() => void>;

  /**
   * @param economy - whose stored answers and invalidations re-run the queries
   * @param invalidate - re-runs the live queries that watch these cache keys
   */
  constructor(
    private readonly economy: UpstreamEconomy,
    private readonly invalidate: (keys: string[]) => void,
  ) {
    const stored = (_keyId: string, key: string): void => this.changed(key);
    economy.entryStored.add(stored);
    this.stopListening = [
      () => economy.entryStored.delete(stored),
      economy.onInvalidated((keyId, scope, changed) => this.written(keyId, scope, changed)),
    ];
  }

  /** Resources watched by at least one live query now. */
  get size(): number {
    return this.watched.size;
  }

  /** Stops listening to the economy (at shutdown). */
  close(): void {
    for (const stop of this.stopListening.splice(0)) stop();
  }

  /** A run starts reading into `reads`: new data for those while it runs is noted in the handle's `changed`. */
  runStarted(reads: ReadonlyMap<string, ReadResource>): RunningReads {
    const running = { reads, changed: new Set<string>() };
    this.running.add(running);
    return running;
  }

  /** The run of `running` has executed. */
  runEnded(running: RunningReads): void {
    this.running.delete(running);
  }

  /** Moves a query's watch from the resources of `before` to those of `now`. */
  move(
    keyId: string,
    apiKey: string,
    now: ReadonlyMap<string, ReadResource>,
    before: ReadonlyMap<string, ReadResource>,
  ): void {
    for (const [key, resource] of now) {
      if (before.has(key)) continue;
      const watched = this.watched.get(key);
      if (watched) watched.count += 1;
      else this.watched.set(key, { ...resource, keyId, apiKey, count: 1 });
    }
    for (const key of before.keys()) {
      if (now.has(key)) continue;
      const watched = this.watched.get(key);
      if (!watched) continue;
      watched.count -= 1;
      if (watched.count <= 0) this.watched.delete(key);
    }
  }

  /** A stored answer: the live queries that read it re-run (after the current turn, once per batch). */
  private changed(key: string): void {
    for (const run of this.running) if (run.reads.has(key)) run.changed.add(key);
    if (!this.watched.has(key)) return;
    // After the current turn: a run that just ended has its resources tracked by then.
    if (this.pending.size === 0) setImmediate(() => this.flush());
    this.pending.add(key);
  }

  private flush(): void {
    const keys = [...this.pending];
    this.pending.clear();
    this.invalidate(keys);
  }

  /**
   * A write of `keyId` dropped what it changed from the cache (a company's option slots), or another replica
   * stored new answers of `changed` (dropped here too): those its live queries watch are
   * fetched again in the background (as the plain query read after the write would; another
   * replica's answer comes from the shared cache), and their stored answers re-run the queries.
   */
  private written(keyId: string, scope: string | null, changed: readonly string[]): void {
    if (!scope && changed.length === 0) return;
    // After the write has settled: the invalidation has dropped the entries (listeners are
    // told first), and a write-through has stored the new slot (then the read below is a
    // cache hit, no request).
    setImmediate(() => this.refetch(keyId, [...this.economy.scopeKeys(keyId, scope), ...changed]));
  }

  private refetch(keyId: string, keys: readonly string[]): void {
    for (const key of keys) {
      const watched = this.watched.get(key);
      if (!watched) continue;
      this.economy
        .fetchInBackground(
          { keyId, apiKey: watched.apiKey, endpoint: watched.endpoint, params: watched.params },
          { priority: 'missed' },
        )
        .catch(() => undefined);
    }
  }
}
