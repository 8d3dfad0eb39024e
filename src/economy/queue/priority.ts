/**
 * Who is waiting for an upstream request, in the order the budget serves them:
 *
 * 1. `write`: a user's write (a mutation); it takes the next request the key's budget
 *    allows, ahead of everything else, and is never refused for patience (what does not
 *    commit within the operation's patience goes on and says when it will);
 * 2. `operation`: a GraphQL operation is waiting for data it has never had;
 * 3. `missed`: an operation gave up waiting (its patience ran out) and answered without
 *    it; fetched as the budget refills, most requested first, so that a view after
 *    `retryAfterSeconds` is complete (and live-query and first subscription polls);
 * 4. `stale`: a view read data it can still serve stale (expired, within
 *    `STALE_MAX_AGE_SECONDS`): it answered with that and the refresh waits here, so it
 *    never pushes data a view is missing into a later window;
 * 5. `background`: nobody waits (refresh-ahead, subscription polls); served only when
 *    nothing above is queued.
 */
export type UpstreamPriority = 'write' | 'operation' | 'missed' | 'stale' | 'background';

/** Rank of a priority: lower is served first. */
export const PRIORITY_RANK: Readonly<Record<UpstreamPriority, number>> = Object.freeze({
  write: 0,
  operation: 1,
  missed: 2,
  stale: 3,
  background: 4,
});

/** A count of zero per priority (a key's queued requests, the metrics' totals). */
export function noneQueued(): Record<UpstreamPriority, number> {
  return { write: 0, operation: 0, missed: 0, stale: 0, background: 0 };
}
