/**
 * The console overview's history: each vault character's budget sampled once a minute and
 * kept in memory for the last hour (this replica's view; empty after a restart). Sampling
 * reads the economy's statistics only, never the upstream API.
 */

/** One sample of a character's budget. */
export interface BudgetPoint {
  /** When it was taken, ms since the epoch. */
  readonly at: number;
  /** Upstream requests in the window then. */
  readonly usedInWindow: number;
  /** Upstream 429 answers since the start, then. */
  readonly upstream429s: number;
  /** Reads waiting for budget then. */
  readonly queued: number;
}

/** Samples kept per character: one hour at one a minute. */
export const HISTORY_POINTS = 60;

/** How often the gateway samples, ms. */
export const SAMPLE_EVERY_MS = 60_000;

/** Per character, the newest {@link HISTORY_POINTS} samples, oldest first. */
export class BudgetHistory {
  private readonly series = new Map<string, BudgetPoint[]>();

  /**
   * Adds one sample per character; characters missing from `points` (removed keys) are
   * dropped. A sample in the same minute as the last one replaces it.
   */
  record(points: ReadonlyMap<string, BudgetPoint>): void {
    for (const name of [...this.series.keys()]) if (!points.has(name)) this.series.delete(name);
    for (const [name, point] of points) {
      const series = this.series.get(name) ?? [];
      const last = series[series.length - 1];
      if (last && Math.floor(last.at / SAMPLE_EVERY_MS) === Math.floor(point.at / SAMPLE_EVERY_MS)) series.pop();
      series.push(point);
      if (series.length > HISTORY_POINTS) series.splice(0, series.length - HISTORY_POINTS);
      this.series.set(name, series);
    }
  }

  /** A character's samples, oldest first (empty when none). */
  of(name: string): readonly BudgetPoint[] {
    return this.series.get(name) ?? [];
  }
}
