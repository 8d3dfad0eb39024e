/**
 * A request's place in its key's window log and its connection slot, from taking to
 * settling: the shared log first (with Redis, across replicas) or this process's, a slot
 * waited for until the request's deadline, and the place moved to when the answer came.
 * Functions of `KeyBudget`, kept apart so that the budget class only decides.
 */
import type { KeyConnectionGate } from '../../upstream/key-connections';
import { LimitExceeded } from '../limit-exceeded';
import type { KeyBudgetOptions } from './budget-types';
import type { SlidingWindowLog } from './sliding-window-log';
import type { TakenSlot } from './take-budget';

/**
 * Added to the time a request's answer arrived when it takes its place in the window log,
 * ms: room for an upstream that counts in coarser steps than the gateway's clock. A window
 * of 60 s then ends 60.25 s after the answer; the company page's floor grows by 0.25 s.
 */
export const WINDOW_EDGE_MARGIN_MS = 250;

/** What one take asks for: the key, its allowance now, the place and, for a write, its intent. */
interface TakeRequest {
  readonly id: string;
  readonly allowance: number;
  readonly slot: TakenSlot;
  readonly windowMs: number;
  readonly writeIntent?: string;
}

/** Takes from the shared log, or this process's when Redis does not answer: 0 = taken, else ms to wait. */
export async function takeSharedSlot(
  shared: KeyBudgetOptions['shared'],
  log: SlidingWindowLog,
  take: TakeRequest,
): Promise<number> {
  const { id, allowance, slot, windowMs, writeIntent } = take;
  if (shared) {
    const waitMs = await shared.takeWindowSlot(id, allowance, windowMs, slot.at, slot.member, writeIntent);
    if (waitMs !== null) {
      if (waitMs === 0) log.record(id, slot.at);
      return waitMs;
    }
  }
  return log.take(id, allowance, slot.at);
}

/** Waits for one of the key's connection slots, until `deadline` (epoch ms; none for background work). */
export function waitForSlot(
  slots: KeyConnectionGate,
  id: string,
  deadline: number,
  now: () => number,
): Promise<() => void> {
  if (!Number.isFinite(deadline)) return slots.acquire(id);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new LimitExceeded(1, 'budget')), Math.max(0, deadline - now()));
  return slots.acquire(id, controller.signal).finally(() => clearTimeout(timer));
}

/**
 * A finished request's place in the window log moves from when it was taken to when its
 * answer arrived, plus the edge margin: the upstream counted it at its arrival, which
 * only the answer bounds (see `SlidingWindowLog.settle`).
 */
export function settleSlot(
  options: KeyBudgetOptions,
  log: SlidingWindowLog,
  id: string,
  slot: TakenSlot,
  now: () => number,
): void {
  const windowMs = options.limit?.windowMs ?? 60_000;
  const at = Math.max(slot.at, now() + (options.edgeMarginMs ?? WINDOW_EDGE_MARGIN_MS));
  log.settle(id, slot.at, at);
  void options.shared?.settleWindowSlot(id, slot.member, at, windowMs + (at - now()));
}
