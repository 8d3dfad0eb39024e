/**
 * Where the upstream client tells the whole cause of each failed upstream request: the
 * upstream's complete error text (redacted, up to 16 KiB), or what the gateway found
 * wrong with the answer (JSON nested too deep, with the byte; a body over the limit;
 * invalid JSON). Clients see at most 200 characters of it, markup stripped; this is how
 * the rest reaches the log.
 *
 * When to use: the operation plugin subscribes with {@link onUpstreamFailure} while the
 * server runs and logs each report; the client emits. Reports carry the route pattern,
 * the status, the code and the first characters of the hashed key: never a key or secret.
 * Like the shape-drift reports, they are process-wide: several servers in one process
 * (tests of replicas) each log every report.
 */
import type { UpstreamErrorCode } from '../errors/gateway-error';

/** One failed upstream request. */
export interface UpstreamFailureReport {
  /** Route pattern, e.g. `GET /factory/list/`. */
  route: string;
  /** HTTP status, or null when no (complete) answer arrived. */
  status: number | null;
  /** The error's code. */
  code: UpstreamErrorCode;
  /** The whole cause (see the module comment). */
  detail: string;
  /** First 8 characters of the hashed key. */
  key: string;
}

type Listener = (report: UpstreamFailureReport) => void;

const listeners = new Set<Listener>();

/** Subscribes to failure reports; returns the unsubscribe function. */
export function onUpstreamFailure(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener of one failure. */
export function reportUpstreamFailure(report: UpstreamFailureReport): void {
  for (const listener of listeners) {
    try {
      listener(report);
    } catch {
      // Reporting must never change an answer.
    }
  }
}
