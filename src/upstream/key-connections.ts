/** One key's requests in use, and the requests waiting for one of its slots (arrival order). */
interface KeySlots {
  active: number;
  waiting: Array<() => void>;
}

/**
 * Fair sharing of upstream connections between API keys.
 *
 * Each key may have at most `perKey` requests (so connections) in use at once; a
 * further request of that key waits for one of the key's own requests to finish.
 * Requests of other keys never wait behind it: the pool itself has no shared limit
 * that one key's hung requests could fill (unless the operator sets one with
 * `UPSTREAM_CONNECTIONS`). Every request ends by the upstream deadline, so what a key
 * can hold is bounded by `perKey` connections for `UPSTREAM_TIMEOUT_MS` each.
 *
 * When to use: the upstream client owns one and calls {@link acquire} around each
 * exchange; the economy's budget keeps its own (its concurrency per key, with the
 * operation's patience as the deadline). Partitions are hashed key ids, never keys.
 */
export class KeyConnectionGate {
  private readonly inUse = new Map<string, KeySlots>();

  /** @param perKey - most requests in use per key (at least 1) */
  constructor(
    /** Most requests in use per key (at least 1). */
    readonly perKey: number,
  ) {}

  /** Requests in use across all keys (for metrics and tests). */
  get active(): number {
    let total = 0;
    for (const state of this.inUse.values()) total += state.active;
    return total;
  }

  /** Requests in use for one key. */
  activeFor(partition: string): number {
    return this.inUse.get(partition)?.active ?? 0;
  }

  /**
   * Takes one of the key's slots when one is free now, without waiting.
   *
   * @returns the release function (safe to call twice), or null when all `perKey` are in use
   */
  tryAcquire(partition: string): (() => void) | null {
    const state = this.inUse.get(partition);
    if (state && state.active >= this.perKey) return null;
    return this.take(partition, state ?? this.open(partition));
  }

  /**
   * Waits until the key may use one more connection; resolves to the release
   * function (safe to call twice). Rejects with `signal.reason` when the signal
   * aborts first (the request's deadline).
   */
  acquire(partition: string, signal?: AbortSignal): Promise<() => void> {
    const slot = this.inUse.get(partition) ?? this.open(partition);
    if (slot.active < this.perKey) return Promise.resolve(this.take(partition, slot));
    return new Promise<() => void>((resolve, reject) => {
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.take(partition, slot));
      };
      const onAbort = (): void => {
        const index = slot.waiting.indexOf(wake);
        if (index >= 0) slot.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      slot.waiting.push(wake);
    });
  }

  private open(partition: string): KeySlots {
    const state: KeySlots = { active: 0, waiting: [] };
    this.inUse.set(partition, state);
    return state;
  }

  /** Counts one more request in use; the release function hands the slot to the next waiter. */
  private take(partition: string, slot: KeySlots): () => void {
    slot.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slot.active -= 1;
      const next = slot.waiting.shift();
      if (next) next();
      else if (slot.active === 0) this.inUse.delete(partition);
    };
  }
}
