import { PRIORITY_RANK } from '../queue/priority';
import type { UpstreamPriority } from '../queue/priority';
import type { BudgetLimit, KeyState } from './key-state';
import { plannedSendTimes } from './sliding-window-log';

/** What {@link planQueue} reads of one key. */
export interface PlanInput {
  /** The key's state (cooldown, queued requests), if known. */
  state: KeyState | undefined;
  /** Its window log's send times now, oldest first. */
  log: readonly number[];
  /** The budget, or null when off. */
  limit: BudgetLimit | null;
  /** The key's allowance now. */
  allowance: number;
  /** Epoch ms now. */
  now: number;
}

/**
 * When the requests waiting for a key's budget ahead of one of `priority` (`alike`: of
 * the same priority too), then `count` more, could be sent at the earliest (epoch ms,
 * ascending): after the key's cooldown, on its window log.
 *
 * @returns the planned times of all of them, and how many of them were ahead
 */
export function planQueue(
  input: PlanInput,
  count: number,
  priority: UpstreamPriority,
  alike: boolean,
): { times: number[]; ahead: number } {
  const { state, limit, now } = input;
  const notBefore = Math.max(now, state?.cooldownUntil ?? 0);
  const rank = PRIORITY_RANK[priority] + (alike ? 1 : 0);
  let ahead = 0;
  if (state)
    for (const other of Object.keys(state.queued) as UpstreamPriority[])
      if (PRIORITY_RANK[other] < rank) ahead += state.queued[other];
  if (!limit) return { times: Array.from({ length: ahead + count }, () => notBefore), ahead };
  return { times: plannedSendTimes(input.log, ahead + count, input.allowance, limit.windowMs, notBefore), ahead };
}
