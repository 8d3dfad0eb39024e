/**
 * A bound on synchronous code: a call that never returns (an endless loop) would block
 * the test process, and with it jest's own timeout, for good. V8 can interrupt a script
 * run by `node:vm` with a `timeout`, also inside the functions it calls, so the call
 * fails instead of hanging. The bound is a safety net, not a measurement (speed is
 * measured in the bench): keep it far above what the call needs.
 */
import { createContext, Script } from 'node:vm';

/** Generous bound of {@link terminates}, ms. */
export const TERMINATION_BOUND_MS = 5_000;

/**
 * Runs `fn` and returns its value.
 *
 * @throws Error (`ERR_SCRIPT_EXECUTION_TIMEOUT`) when it has not returned within `boundMs`
 */
export function terminates<T>(fn: () => T, boundMs: number = TERMINATION_BOUND_MS): T {
  // One context and one compiled script for every call: a new context per call costs
  // about a millisecond, which a property test calling this thousands of times pays for.
  sandbox.run = fn;
  try {
    return CALL.runInContext(sandbox, { timeout: boundMs }) as T;
  } finally {
    sandbox.run = undefined;
  }
}

const sandbox = createContext({ run: undefined as (() => unknown) | undefined });
const CALL = new Script('run()');
