/**
 * Who is waiting for an upstream request, in the order the budget serves them:
 *
 * 1. `operation`: a GraphQL operation is waiting for the answer now;
 * 2. `missed`: an operation gave up waiting (its patience ran out) and answered without
 *    it; fetched as the budget refills, most requested first, so that a view after
 *    `retryAfterSeconds` is complete;
 * 3. `background`: nobody waits (refresh-ahead, subscription polls); served only when
 *    nothing above is queued.
 */
export type UpstreamPriority = 'operation' | 'missed' | 'background';

/** Rank of a priority: lower is served first. */
export const PRIORITY_RANK: Readonly<Record<UpstreamPriority, number>> = Object.freeze({ operation: 1, missed: 2, background: 3 });

