/**
 * In-flight coalescing within one process: concurrent callers of the same request
 * share one promise instead of each sending their own. A flight is forgotten as soon
 * as it settles (its answer lives on in the cache), or when an invalidation says its
 * answer is already outdated.
 *
 * When to use: one per economy, keyed like the cache (`<hashed key>|<path>`), so
 * flights are never shared between API keys.
 */
export class InFlight<T, M = undefined> {
  private readonly flights = new Map<string, { flight: Promise<T>; meta: M }>();

  /**
   * The flight of `key`: the running one (`joined: true`) with the `meta` it was started
   * with, or a new one started with `start` (`joined: false`) that keeps `meta` (the
   * economy's: the flight's queue ticket).
   */
  join(key: string, start: () => Promise<T>, meta: M): { flight: Promise<T>; joined: boolean; meta: M } {
    const running = this.flights.get(key);
    if (running) return { ...running, joined: true };
    const flight = start();
    this.flights.set(key, { flight, meta });
    const settle = (): void => {
      if (this.flights.get(key)?.flight === flight) this.flights.delete(key);
    };
    flight.then(settle, settle);
    return { flight, joined: false, meta };
  }

  /** True while a flight of `key` runs (a caller would join it). */
  running(key: string): boolean {
    return this.flights.has(key);
  }

  /** Lets the next caller of `key` start a new flight (callers already waiting keep theirs). */
  forget(key: string): void {
    this.flights.delete(key);
  }

  /** Flights running now (for statistics). */
  get size(): number {
    return this.flights.size;
  }
}
