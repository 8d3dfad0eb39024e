/**
 * The upstream's rate limit in tests. The simulator limits each key to 10 requests per
 * rolling 60 s by default, as the real API is believed to; tests that are not about that
 * limit turn it off through the harnesses' `simulator` option, which defaults to
 * {@link UNLIMITED_SIMULATOR}. Tests about the limit pass `simulator: { rateLimit: … }`.
 */
import type { SimulatorOptions } from '../../src/simulator';

/** Simulator options with the per-key limit off. */
export const UNLIMITED_SIMULATOR: Readonly<SimulatorOptions> = Object.freeze({ rateLimit: 'off' });

/** The harnesses' simulator options: the test's own, on top of {@link UNLIMITED_SIMULATOR}. */
export function testSimulatorOptions(options: SimulatorOptions = {}): SimulatorOptions {
  return { ...UNLIMITED_SIMULATOR, ...options };
}
