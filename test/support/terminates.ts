/**
 * A bound on synchronous code: a call that never returns (an endless loop) would block
 * the test process, and with it jest's own timeout, for good. V8 can interrupt a script
 * run by `node:vm` with a `timeout`, also inside the functions it calls, so the call
 * fails instead of hanging. The bound is a safety net, not a measurement (speed is
 * measured in the bench): keep it far above what the call needs.
 */
import { runInNewContext } from 'node:vm';

/** Generous bound of {@link terminates}, ms. */
export const TERMINATION_BOUND_MS = 5_000;

/**
 * Runs `fn` and returns its value.
 *
 * @throws Error (`ERR_SCRIPT_EXECUTION_TIMEOUT`) when it has not returned within `boundMs`
 */
export function terminates<T>(fn: () => T, boundMs: number = TERMINATION_BOUND_MS): T {
  return runInNewContext('run()', { run: fn }, { timeout: boundMs }) as T;
}
