import { Arg, Ctx, ID, Int, Resolver, Root, Subscription } from 'type-graphql';
import { ArgumentBounds, boundsText, describeBounds } from '../../field-rules/bounds';
import { ENDPOINTS } from '../../upstream/endpoints';
import { describePolling } from '../../subscriptions/describe';
import { counterFeed, inventoryFeed, optionFeed } from '../../subscriptions/feeds';
import type { FeedMessage } from '../../subscriptions/poll-hub';
import { eventOf, openFeeds } from '../../subscriptions/subscription-service';
import type { SubscriptionContext } from '../../subscriptions/subscription-service';
import { CounterChange, FactoryOptionChange, InventoryChange, InventoryKind } from './factory-change.type';
import { SLOT_BOUNDS } from './factory-option.type';


interface FactoryArgs {
  factoryId: string;
  store?: InventoryKind;
  slot?: number | null;
}

/** The company subscriptions: store, counter and option slots. */
@Resolver()
export class FactorySubscriptionResolver {
  @Subscription(() => InventoryChange, {
    description: `Changes of a company's store or machine store. Polled within the key's upstream budget; one poll serves every subscriber of the key. ${describePolling(ENDPOINTS.factoryInventory)} STORE reads GET /factory/inventory/{id}, MACHINE reads GET /factory/machine/{id} (same scopes and interval).`,
    subscribe: ({ args, context }) => {
      const { factoryId, store } = args as FactoryArgs;
      return openFeeds(context, [inventoryFeed(factoryId, store ?? InventoryKind.STORE)]);
    },
  })
  inventoryChanged(
    @Root() message: FeedMessage<InventoryChange>,
    @Arg('factoryId', () => ID, { description: 'The company (must be owned by the key\'s character, else NOT_FOUND).' }) _factoryId: string,
    @Arg('store', () => InventoryKind, { defaultValue: InventoryKind.STORE, description: 'Which store: STORE (default) or MACHINE.' }) _store: InventoryKind,
    @Ctx() ctx: SubscriptionContext,
  ): InventoryChange {
    return eventOf(message, ctx);
  }

  @Subscription(() => CounterChange, {
    description: `Changes of a company's counter: items that appeared, disappeared, or changed amount or price. ${describePolling(ENDPOINTS.factoryCounter)}`,
    subscribe: ({ args, context }) => openFeeds(context, [counterFeed((args as FactoryArgs).factoryId)]),
  })
  counterChanged(
    @Root() message: FeedMessage<CounterChange>,
    @Arg('factoryId', () => ID, { description: 'The company (must be owned by the key\'s character, else NOT_FOUND).' }) _factoryId: string,
    @Ctx() ctx: SubscriptionContext,
  ): CounterChange {
    return eventOf(message, ctx);
  }

  @ArgumentBounds(SLOT_BOUNDS)
  @Subscription(() => FactoryOptionChange, {
    description: `A company's option slot was written, or cleared; every slot (OPTION_SLOTS, default 10: one poll each per interval) when slot is omitted. ${describePolling(ENDPOINTS.factoryOption)} The first poll also reads GET /factory/list/ to tell a company the key does not own (NOT_FOUND) from an unset slot. ${describeBounds(SLOT_BOUNDS)}`,
    subscribe: ({ args, context }) => {
      const { factoryId, slot } = args as FactoryArgs;
      // Without `slot`: every slot the company has (OPTION_SLOTS, as Factory.options reads them).
      const slots = slot === undefined || slot === null ? Array.from({ length: (context as SubscriptionContext).optionSlots }, (_, i) => i + 1) : [slot];
      return openFeeds(
        context,
        slots.map((each) => optionFeed(factoryId, each)),
      );
    },
  })
  factoryOptionChanged(
    @Root() message: FeedMessage<FactoryOptionChange>,
    @Arg('factoryId', () => ID, { description: 'The company (must be owned by the key\'s character, else NOT_FOUND).' }) _factoryId: string,
    @Arg('slot', () => Int, { nullable: true, description: `One slot, ${boundsText('slot', SLOT_BOUNDS.slot)}; omitted: every slot. Out of bounds: BAD_USER_INPUT before any upstream request.` }) _slot: number | null,
    @Ctx() ctx: SubscriptionContext,
  ): FactoryOptionChange {
    return eventOf(message, ctx);
  }
}
