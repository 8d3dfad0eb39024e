/**
 * Whether the gateway can serve, for `GET /readyz` (container and Kubernetes readiness
 * probes), apart from whether the process lives (`/healthz`).
 *
 * Ready means: every condition the start registered is met (the schema is built and Apollo
 * started, the cache file is loaded, Redis answered once when `REDIS_URL` is set) and no
 * stop has begun. A stop makes it not ready for good (`draining`), while `/healthz` stays
 * 200 until the process exits.
 */
export class Readiness {
  private readonly pending = new Set<string>();
  private draining = false;

  /** A condition the gateway waits for, e.g. `redis`; not ready until {@link Readiness.met} names it. */
  waitFor(condition: string): void {
    this.pending.add(condition);
  }

  /** The condition is met. */
  met(condition: string): void {
    this.pending.delete(condition);
  }

  /** A stop began: not ready from now on. */
  drain(): void {
    this.draining = true;
  }

  /**
   * The state `/readyz` reports: `ready` (200), `draining` (503), or `starting` (503) with
   * the conditions still awaited.
   */
  state(): { status: 'ready' } | { status: 'draining' } | { status: 'starting'; waitingFor: string[] } {
    if (this.draining) return { status: 'draining' };
    if (this.pending.size > 0) return { status: 'starting', waitingFor: [...this.pending] };
    return { status: 'ready' };
  }
}
