import type { PollClock } from '../../src/subscriptions';

/**
 * A manual clock for the subscription pollers and the economy's cache ages: time
 * moves only when a test calls {@link advance}, which runs the timers that fall due,
 * in order. Polls then happen at once instead of after a real interval.
 */
export class ManualClock implements PollClock {
  private time = Date.now();
  private sequence = 0;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  readonly now = (): number => this.time;

  setTimeout(callback: () => void, ms: number): unknown {
    this.sequence += 1;
    this.timers.set(this.sequence, { at: this.time + ms, callback });
    return this.sequence;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** Timers waiting to run. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = next[1].at;
      next[1].callback();
    }
    this.time = target;
  }
}
