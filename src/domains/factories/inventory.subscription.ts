/**
 * `inventoryChanged(factoryId, store)`: a company's store or machine store, polled from
 * `GET /factory/inventory/{id}` or `GET /factory/machine/{id}`. One subscribable
 * resource in one file: the event type, the diff, the feed and the field.
 */
import { Arg, Ctx, Field, Float, ID, ObjectType, registerEnumType, Resolver, Root, Subscription } from 'type-graphql';
import { diffRecords } from '../feeds/changes';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import type { SubscriptionContext } from '../gateway-context';
import { fetchInventory, fetchMachineInventory } from './factories.api';
import { Inventory } from './inventory.type';
import type { InventoryItem } from './inventory.type';
import { PerCharacter } from '../../field-rules/per-character';

/** Which store of a company `inventoryChanged` watches. */
export enum InventoryKind {
  STORE = 'STORE',
  MACHINE = 'MACHINE',
}

registerEnumType(InventoryKind, {
  name: 'InventoryKind',
  description: 'A store of a company: the normal store or all machine stores together.',
  valuesConfig: {
    STORE: { description: 'GET /factory/inventory/{id}' },
    MACHINE: { description: 'GET /factory/machine/{id}' },
  },
});

/** One item whose summed amount changed. */
@ObjectType({ description: 'One item of a store whose summed amount (all stacks of the item together) changed.' })
export class ItemAmountChange {
  @Field(() => String, { description: 'Item name (the identity of the item in a store).' })
  item!: string;

  @Field(() => Float, { description: "Summed amount before, in the item's units; 0 for a new item." })
  before!: number;

  @Field(() => Float, { description: "Summed amount after, in the item's units; 0 when the item is gone." })
  after!: number;

  @Field(() => Float, { description: 'after - before, rounded to 6 decimals.' })
  delta!: number;
}

/** Event of `inventoryChanged`. */
@ObjectType({ description: 'A change of a company store, found by one poll.' })
export class InventoryChange {
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  @Field(() => InventoryKind, { description: 'Which store changed.' })
  store!: InventoryKind;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => [ItemAmountChange], {
    description: 'One entry per item whose summed amount changed; before 0 = new item, after 0 = item gone.',
  })
  changes!: ItemAmountChange[];

  @Field(() => Inventory, { description: 'The store after the change.' })
  inventory!: Inventory;
}

/** One item whose summed amount changed in a store: `before` 0 = new item, `after` 0 = item gone. */
export interface AmountChange {
  /** Item name. */
  item: string;
  /** Summed amount before. */
  before: number;
  /** Summed amount after. */
  after: number;
  /** `after - before`, rounded to 6 decimals. */
  delta: number;
}

/** One record per item: the amounts of all its stacks added up. */
function sumByItem(items: readonly Pick<InventoryItem, 'item' | 'amount'>[]): Array<{ item: string; amount: number }> {
  const sums = new Map<string, number>();
  for (const { item, amount } of items) sums.set(item, (sums.get(item) ?? 0) + amount);
  return [...sums].map(([item, amount]) => ({ item, amount }));
}

/** Rounds away float noise of summed amounts (weights and amounts have at most a few decimals). */
function clean(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * The items of a store whose summed amount changed (stacks of one item are added up),
 * in the order of the new store, then the items that disappeared.
 */
export function diffInventory(before: readonly InventoryItem[], after: readonly InventoryItem[]): AmountChange[] {
  const changes: AmountChange[] = [];
  for (const change of diffRecords(
    sumByItem(before),
    sumByItem(after),
    (entry) => entry.item,
    (a, b) => clean(a.amount) === clean(b.amount),
  )) {
    const previous = change.before?.amount ?? 0;
    const amount = change.after?.amount ?? 0;
    if (clean(amount) !== clean(previous))
      changes.push({ item: change.key, before: previous, after: amount, delta: clean(amount - previous) });
  }
  return changes;
}

/** The feed of `inventoryChanged(factoryId, store)`: one poller per key, company and store. */
export function inventoryFeed(factoryId: string, store: InventoryKind): Feed<Inventory, InventoryChange> {
  const machine = store === InventoryKind.MACHINE;
  return {
    kind: machine ? 'machineInventory' : 'inventory',
    resource: `${machine ? 'machine' : 'inventory'}/${factoryId}`,
    endpoint: machine ? ENDPOINTS.factoryMachine : ENDPOINTS.factoryInventory,
    poll: (session) => (machine ? fetchMachineInventory(session, factoryId) : fetchInventory(session, factoryId)),
    diff(previous, next, observedAt) {
      const changes = diffInventory(previous.items, next.items);
      return changes.length === 0 ? [] : [{ factoryId, store, observedAt, changes, inventory: next }];
    },
  };
}

/** `inventoryChanged`: a company's store or machine store. */
@Resolver()
export class InventorySubscriptionResolver {
  /** One event per poll that found a changed store, with every changed item. */
  @PerCharacter({ owner: 'factories', arg: 'factoryId' })
  @Subscription(() => InventoryChange, {
    description: `Changes of a company's store or machine store. Polled within the key's upstream budget; one poll serves every subscriber of the key. ${describePolling(ENDPOINTS.factoryInventory)} STORE reads GET /factory/inventory/{id}, MACHINE reads GET /factory/machine/{id} (same scopes and interval).`,
    subscribe: ({ args, context }) => {
      const { factoryId, store } = args as { factoryId: string; store?: InventoryKind };
      return openFeeds(context as SubscriptionContext, [inventoryFeed(factoryId, store ?? InventoryKind.STORE)]);
    },
  })
  inventoryChanged(
    @Root() message: FeedMessage<InventoryChange>,
    @Arg('factoryId', () => ID, { description: "The company (must be owned by the key's character, else NOT_FOUND)." })
    _factoryId: string,
    @Arg('store', () => InventoryKind, {
      defaultValue: InventoryKind.STORE,
      description: 'Which store: STORE (default) or MACHINE.',
    })
    _store: InventoryKind,
    @Ctx() ctx: SubscriptionContext,
  ): InventoryChange {
    return eventOf(message, ctx);
  }
}
