/**
 * `factoryOptionChanged(factoryId, slot)`: a company's option slots, polled from
 * `GET /factory/options/{id}/{slot}`. One subscribable resource in one file: the event
 * type, the diff, the feed and the field.
 */
import { Arg, Ctx, Field, ID, Int, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { ArgumentBounds, boundsText, describeBounds } from '../../field-rules/bounds';
import { diffRecords } from '../feeds/changes';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import type { SubscriptionContext } from '../gateway-context';
import { checkFactoryOwned, fetchOption } from './factories.api';
import { FactoryOption, SLOT_BOUNDS } from './factory-option.type';
import { PerCharacter } from '../../field-rules/per-character';

/** Event of `factoryOptionChanged`. */
@ObjectType({ description: 'An option slot of a company was written or cleared.' })
export class FactoryOptionChange {
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  @Field(() => Int, { description: "The slot, 1..10 (at most the gateway's OPTION_SLOTS setting)." })
  slot!: number;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => FactoryOption, {
    nullable: true,
    description: 'The slot after the change; null when it was cleared or is no longer set.',
  })
  option!: FactoryOption | null;
}

/**
 * True when an option slot's content changed (written, cleared, or set for the first
 * time); a slot written with the same title and data again counts by its lastUpdated.
 */
export function optionChanged(before: FactoryOption | null, after: FactoryOption | null): boolean {
  const slot = (option: FactoryOption): string => String(option.slot);
  const same = (a: FactoryOption, b: FactoryOption): boolean =>
    a.title === b.title && a.data === b.data && a.lastUpdated?.getTime() === b.lastUpdated?.getTime();
  return diffRecords(before ? [before] : [], after ? [after] : [], slot, same).length > 0;
}

/**
 * The feed of `factoryOptionChanged` for one slot: `GET /factory/options/{id}/{slot}`. An
 * unset slot answers 404 like a company the key does not own, so the first poll also
 * reads the company list (usually cached) to tell the two apart.
 *
 * @throws GatewayError `NOT_FOUND` from the first poll when the key's character owns no such company.
 */
export function optionFeed(factoryId: string, slot: number): Feed<FactoryOption | null, FactoryOptionChange> {
  return {
    kind: 'option',
    resource: `option/${factoryId}/${slot}`,
    endpoint: ENDPOINTS.factoryOption,
    async poll(session, first) {
      if (first) await checkFactoryOwned(session, factoryId);
      return fetchOption(session, { id: factoryId, slot });
    },
    diff: (previous, next, observedAt) =>
      optionChanged(previous, next) ? [{ factoryId, slot, observedAt, option: next }] : [],
  };
}

/** `factoryOptionChanged`: a company's option slots. */
@Resolver()
export class FactoryOptionSubscriptionResolver {
  /** One event per written or cleared slot; one poller per slot watched. */
  @ArgumentBounds(SLOT_BOUNDS)
  @PerCharacter({ owner: 'factories', arg: 'factoryId' })
  @Subscription(() => FactoryOptionChange, {
    description: `A company's option slot was written, or cleared; every slot (OPTION_SLOTS, default 10: one poll each per interval) when slot is omitted. ${describePolling(ENDPOINTS.factoryOption)} The first poll also reads GET /factory/list/ to tell a company the key does not own (NOT_FOUND) from an unset slot. ${describeBounds(SLOT_BOUNDS)}`,
    subscribe: ({ args, context }) => {
      const { factoryId, slot } = args as { factoryId: string; slot?: number | null };
      // Without `slot`: every slot the company has (OPTION_SLOTS, as Factory.options reads them).
      const slots =
        slot === undefined || slot === null
          ? Array.from({ length: (context as SubscriptionContext).optionSlots }, (_, i) => i + 1)
          : [slot];
      return openFeeds(
        context as SubscriptionContext,
        slots.map((each) => optionFeed(factoryId, each)),
      );
    },
  })
  factoryOptionChanged(
    @Root() message: FeedMessage<FactoryOptionChange>,
    @Arg('factoryId', () => ID, { description: "The company (must be owned by the key's character, else NOT_FOUND)." })
    _factoryId: string,
    @Arg('slot', () => Int, {
      nullable: true,
      description: `One slot, ${boundsText('slot', SLOT_BOUNDS.slot)}; omitted: every slot. Out of bounds: BAD_USER_INPUT before any upstream request.`,
    })
    _slot: number | null,
    @Ctx() ctx: SubscriptionContext,
  ): FactoryOptionChange {
    return eventOf(message, ctx);
  }
}
