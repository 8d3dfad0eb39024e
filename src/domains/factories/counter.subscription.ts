/**
 * `counterChanged(factoryId)`: a company's counter (shop shelf), polled from
 * `GET /factory/counter/{id}`. One subscribable resource in one file: the event type,
 * the diff, the feed and the field.
 */
import { Arg, Ctx, Field, Float, ID, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { diffRecords } from '../feeds/changes';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import type { SubscriptionContext } from '../gateway-context';
import { Counter } from './counter.type';
import type { CounterItem } from './counter.type';
import { fetchCounter } from './factories.api';
import { PerCharacter } from '../../field-rules/per-character';

/** One counter item that changed. */
@ObjectType({ description: 'One counter item that appeared, disappeared, or changed amount or price.' })
export class CounterItemChange {
  @Field(() => String, { description: 'Item name (the identity of an item on the counter).' })
  item!: string;

  @Field(() => Float, {
    nullable: true,
    description: 'Amount before; null when the item was not on the counter before.',
  })
  amountBefore!: number | null;

  @Field(() => Float, { nullable: true, description: 'Amount after; null when the item is no longer on the counter.' })
  amountAfter!: number | null;

  @Field(() => Float, {
    nullable: true,
    description: 'Price per unit before (as CounterItem.price); null when the item was not on the counter before.',
  })
  priceBefore!: number | null;

  @Field(() => Float, {
    nullable: true,
    description: 'Price per unit after (as CounterItem.price); null when the item is no longer on the counter.',
  })
  priceAfter!: number | null;
}

/** Event of `counterChanged`. */
@ObjectType({ description: "A change of a company's counter (shop shelf), found by one poll." })
export class CounterChange {
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => [CounterItemChange], {
    description: 'The items that appeared, disappeared, or changed amount or price.',
  })
  changes!: CounterItemChange[];

  @Field(() => Counter, { description: 'The counter after the change.' })
  counter!: Counter;
}

/** One counter item that appeared, disappeared, or changed amount or price; null = not on the counter. */
export interface CounterDiff {
  /** Item name. */
  item: string;
  /** Amount before, or null. */
  amountBefore: number | null;
  /** Amount after, or null. */
  amountAfter: number | null;
  /** Price per unit before, or null. */
  priceBefore: number | null;
  /** Price per unit after, or null. */
  priceAfter: number | null;
}

/** The counter items that appeared, disappeared, or changed amount or price (items keyed by name). */
export function diffCounter(before: readonly CounterItem[], after: readonly CounterItem[]): CounterDiff[] {
  return diffRecords(
    before,
    after,
    (entry) => entry.item,
    (a, b) => a.amount === b.amount && a.price === b.price,
  ).map((change) => ({
    item: change.key,
    amountBefore: change.before?.amount ?? null,
    amountAfter: change.after?.amount ?? null,
    priceBefore: change.before?.price ?? null,
    priceAfter: change.after?.price ?? null,
  }));
}

/** The feed of `counterChanged(factoryId)`: `GET /factory/counter/{id}`, one poller per key and company. */
export function counterFeed(factoryId: string): Feed<Counter, CounterChange> {
  return {
    kind: 'counter',
    resource: `counter/${factoryId}`,
    endpoint: ENDPOINTS.factoryCounter,
    poll: (session) => fetchCounter(session, factoryId),
    diff(previous, next, observedAt) {
      const changes = diffCounter(previous.items, next.items);
      return changes.length === 0 ? [] : [{ factoryId, observedAt, changes, counter: next }];
    },
  };
}

/** `counterChanged`: a company's counter. */
@Resolver()
export class CounterSubscriptionResolver {
  /** One event per poll that found a changed counter, with every changed item. */
  @PerCharacter({ owner: 'factories', arg: 'factoryId' })
  @Subscription(() => CounterChange, {
    description: `Changes of a company's counter: items that appeared, disappeared, or changed amount or price. ${describePolling(ENDPOINTS.factoryCounter)}`,
    subscribe: ({ args, context }) => {
      const { factoryId } = args as { factoryId: string };
      return openFeeds(context as SubscriptionContext, [counterFeed(factoryId)]);
    },
  })
  counterChanged(
    @Root() message: FeedMessage<CounterChange>,
    @Arg('factoryId', () => ID, { description: "The company (must be owned by the key's character, else NOT_FOUND)." })
    _factoryId: string,
    @Ctx() ctx: SubscriptionContext,
  ): CounterChange {
    return eventOf(message, ctx);
  }
}
