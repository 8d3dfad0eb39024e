/**
 * Where the tolerant reader tells that an upstream response differed from the
 * reference (a renamed, missing or mistyped field): `statev_upstream_shape_drift_total`
 * and a log line once per endpoint and field, so an operator learns that the upstream
 * changed.
 *
 * When to use: the runtime subscribes with {@link onShapeDrift} and unsubscribes when
 * it stops; `mapResponse` emits. Labels are route patterns and field paths from the
 * mappers' own code (never values, ids or keys), so their number is bounded.
 */
export type ShapeDriftListener = (endpoint: string, field: string) => void;

const listeners = new Set<ShapeDriftListener>();

/** Subscribes to drift reports; returns the unsubscribe function. */
export function onShapeDrift(listener: ShapeDriftListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Reports one drifted field of one response of `endpoint` (a route pattern). */
export function emitShapeDrift(endpoint: string, field: string): void {
  for (const listener of listeners) {
    try {
      listener(endpoint, field);
    } catch {
      // Reporting must never change an answer.
    }
  }
}
