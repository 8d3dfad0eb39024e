import { Field, ObjectType } from 'type-graphql';
import { ItemAmount } from '../shared/item-amount.type';

/** A recipe the company can produce. */
@ObjectType({ description: 'A production (recipe) of the company: the item made and the items it needs.' })
export class Production {
  @Field(() => String, { description: 'Name of the produced item.' })
  itemName!: string;

  @Field(() => String, { nullable: true, description: 'Icon URL of the produced item, or null.' })
  icon!: string | null;

  @Field(() => [ItemAmount], { description: 'The items one production run needs.' })
  neededItems!: ItemAmount[];
}
