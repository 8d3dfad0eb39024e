import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Counter } from './counter.type';
import { FactoryOption } from './factory-option.type';
import { Inventory } from './inventory.type';

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
  @Field(() => String, { description: 'Item name.' })
  item!: string;

  @Field(() => Float, { description: 'Summed amount before; 0 for a new item.' })
  before!: number;

  @Field(() => Float, { description: 'Summed amount after; 0 when the item is gone.' })
  after!: number;

  @Field(() => Float, { description: 'after - before' })
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

  @Field(() => [ItemAmountChange], { description: 'One entry per item whose summed amount changed; before 0 = new item, after 0 = item gone.' })
  changes!: ItemAmountChange[];

  @Field(() => Inventory, { description: 'The store after the change.' })
  inventory!: Inventory;
}

/** One counter item that changed. */
@ObjectType({ description: 'One counter item that appeared, disappeared, or changed amount or price.' })
export class CounterItemChange {
  @Field(() => String, { description: 'Item name.' })
  item!: string;

  @Field(() => Float, { nullable: true, description: 'null when the item was not on the counter before' })
  amountBefore!: number | null;

  @Field(() => Float, { nullable: true, description: 'null when the item is no longer on the counter' })
  amountAfter!: number | null;

  @Field(() => Float, { nullable: true, description: 'Price per unit before; null when the item was not on the counter before.' })
  priceBefore!: number | null;

  @Field(() => Float, { nullable: true, description: 'Price per unit after; null when the item is no longer on the counter.' })
  priceAfter!: number | null;
}

/** Event of `counterChanged`. */
@ObjectType({ description: 'A change of a company\'s counter (shop shelf), found by one poll.' })
export class CounterChange {
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => [CounterItemChange], { description: 'The items that appeared, disappeared, or changed amount or price.' })
  changes!: CounterItemChange[];

  @Field(() => Counter, { description: 'The counter after the change.' })
  counter!: Counter;
}

/** Event of `factoryOptionChanged`. */
@ObjectType({ description: 'An option slot of a company was written or cleared.' })
export class FactoryOptionChange {
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  @Field(() => Int, { description: 'The slot, 1..10.' })
  slot!: number;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => FactoryOption, { nullable: true, description: 'null when the slot was cleared or is no longer set' })
  option!: FactoryOption | null;
}
