import { Field, Float, ObjectType } from 'type-graphql';

/** One stack of items in a store. */
@ObjectType({ description: 'One kind of item in a company store or machine store.' })
export class InventoryItem {
  @Field(() => String, { description: 'Item name.' })
  item!: string;

  @Field(() => Float, { description: 'How many units are stored.' })
  amount!: number;

  @Field(() => Float, { description: 'Weight of one unit (unit not documented upstream).' })
  singleWeight!: number;

  @Field(() => Float, { description: 'Weight of all units of this item (amount × singleWeight).' })
  totalWeight!: number;

  @Field(() => String, { nullable: true, description: 'Icon URL; a URL only with premium access, else null.' })
  icon!: string | null;
}

/** A store's contents. An empty store (upstream 404 "… is empty") is an Inventory with no items. */
@ObjectType({
  description:
    'The contents of a company store or of all its machine stores. An empty store is returned as totalWeight 0 and no items (the upstream answers 404 "… is empty").',
})
export class Inventory {
  @Field(() => Float, { description: "Total weight of the store's contents." })
  totalWeight!: number;

  @Field(() => [InventoryItem], { description: 'The stored items.' })
  items!: InventoryItem[];
}
