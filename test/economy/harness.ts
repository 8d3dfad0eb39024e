/**
 * @deprecated The economy tests' former stack, now `startStack` in test/support (kept
 * as a thin re-export while other branches move over).
 */
import { startStack } from '../support/stack';
import type { Stack, StackOptions } from '../support/stack';

export { advanceClock, setClock, T0, turn, until, useFakeDate } from '../support/clock';
export { LineCollector } from '../support/logs';
export { errorAt, nullPaths, staleOf, upstreamError, upstreamOf } from '../support/results';
export type { StaleEntry } from '../support/results';
export type { CallOptions, HttpAnswer } from '../support/stack';

/** @deprecated use `StackOptions`. */
export type EconomyStackOptions = StackOptions;
/** @deprecated use `Stack`. */
export type EconomyStack = Stack;
/** @deprecated use `startStack`. */
export const startEconomyStack = (options: StackOptions = {}): Promise<Stack> => startStack(options);
