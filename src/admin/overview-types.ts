/**
 * The administration graph's types for the console's overview: a character's budget over
 * the last hour and the cache's lookups (emitted to `schema.admin.graphql` with admin-types.ts).
 */
import { Field, Float, Int, ObjectType } from 'type-graphql';

/** One minute of a character's budget. */
@ObjectType({ description: "A character's budget at one moment (one sample a minute)." })
export class BudgetSample {
  /** When. */
  @Field(() => Date, { description: 'When the sample was taken.' })
  at!: Date;

  /** Used. */
  @Field(() => Int, { description: 'Upstream requests in the window then.' })
  usedInWindow!: number;

  /** 429s. */
  @Field(() => Int, { description: 'Upstream 429 answers since the start, then.' })
  upstream429s!: number;

  /** Queued. */
  @Field(() => Int, { description: 'Upstream reads waiting for budget then.' })
  queued!: number;
}

/** The upstream-answer cache's lookups. */
@ObjectType({ description: "The upstream-answer cache's lookups since this replica started. No upstream request." })
export class CacheSummary {
  /** Hits. */
  @Field(() => Int, { description: 'Lookups answered from the cache.' })
  hits!: number;

  /** Misses. */
  @Field(() => Int, { description: 'Lookups that went upstream.' })
  misses!: number;

  /** Stale. */
  @Field(() => Int, { description: 'Lookups answered with a stale value because fresh data failed.' })
  stale!: number;

  /** Hit ratio. */
  @Field(() => Float, {
    nullable: true,
    description: 'hits / (hits + misses + stale), 0..1, or null before any lookup.',
  })
  hitRatio!: number | null;
}
