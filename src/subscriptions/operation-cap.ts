/**
 * The cap on queries and mutations in flight on one WebSocket
 * (`OPERATIONS_MAX_PER_CONNECTION`): subscriptions are counted by the subscription limits
 * (`SUBSCRIPTIONS_MAX_PER_CONNECTION`), and without this cap a client could send thousands
 * of queries on one socket and have every one parsed, validated and executed in the same
 * turns of the event loop (3,000 `{ __typename }` held `/healthz` up for over a second).
 *
 * An operation counts from the moment the transport admits it (in the same turn, so every
 * subscribe message of one TCP chunk sees those before it) until graphql-ws completes it
 * (its `complete` or `error`). One over the cap is refused by the pipeline's `operation-cap`
 * step before anything parses it (or, when its text may hold a subscription, by
 * `operation-cap-parsed` once parsed and found not to be one), with `RATE_LIMITED`
 * (`setting`, `limit`: see `operationCapRefusal`), and counts toward the connection's refusals
 * (over 100 in 10 s: close 4429, see admission.ts). Live queries (`@live`) are long-lived
 * and counted by the subscription limits instead, so they never hold one of these places.
 */
import type { OperationsInFlight as InFlight } from '../pipeline/step-types';

/**
 * The queries and mutations in flight on one WebSocket, by their graphql-ws id.
 *
 * When to use: one per connection; {@link full} before running the pipeline,
 * {@link hold} once admitted, {@link release} when graphql-ws completes the id.
 */
export class OperationsInFlight implements InFlight {
  private readonly ids = new Set<string>();

  constructor(
    /** Most queries and mutations in flight at once (`OPERATIONS_MAX_PER_CONNECTION`). */
    readonly max: number,
  ) {}

  /** True when one more may not start now. */
  full(): boolean {
    return this.ids.size >= this.max;
  }

  /** Counts an admitted operation (by its graphql-ws id) until {@link release}. */
  hold(id: string): void {
    this.ids.add(id);
  }

  /** Ends the count of `id` (nothing when it was not held: a refusal, a subscription). */
  release(id: string): void {
    this.ids.delete(id);
  }
}
